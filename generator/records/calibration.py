"""measurements/calibration/<when>.json: a re-measurement of committed results, and how many
of them fell inside the intervals the report states (the empirical coverage).

`python -m generator remeasure` writes one file per call; the report reads them all back to
state the coverage on the Methodology and Tool performance pages and to raise
`not-reproduced` on a run whose re-measurement fell outside. This module alone knows the
file's keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from generator.atomic import write_json
from generator.hierarchical import SessionCheck, session_cv
from generator.records.run_modes import EAGER, mode_of_run_id
from generator.records.versioned import load_json, upgrade, validated

CALIBRATION_SCHEMA_VERSION = 1
CALIBRATION_DIR = "calibration"
_FIX = "restore it from git, or delete it and run `python -m generator remeasure` again"


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow")


class Result(_Part):
    median_s: float
    interval95_s: tuple[float, float]
    blocks: int
    samples: int
    block_median_cv: float | None = None  # the spread its interval rests on (hierarchical)


class Remeasured(_Part):
    """One configuration: what was committed, what this call measured, and the verdict."""

    run_id: str
    workload: str
    committed: Result
    committed_finished_at: str
    remeasured: Result
    minutes_after: float  # from the committed result's last invocation to this one's start
    inside: bool  # the re-measured estimate lies within the committed interval
    ratio: float  # re-measured / committed estimate


class CalibrationFile(_Part):
    schema_version: int = CALIBRATION_SCHEMA_VERSION
    started_at: str
    finished_at: str
    device: str
    device_name: str
    command: str
    commit: str | None = None
    seed: int
    # the between-invocation variation the checked intervals included (one compile mode's
    # when the call checked only that mode, else the device's eager one)
    session_cv: float = 0.0
    confidence: float = 0.95
    interval: str = "re-measurement"  # which committed interval was checked (run.json)
    configurations: list[Remeasured]
    failed: list[dict[str, Any]] = []  # run_id and error of configurations that did not run

    @property
    def covered(self) -> int:
        return sum(item.inside for item in self.configurations)

    @property
    def total(self) -> int:
        return len(self.configurations)


def calibration_path(measurements: Path, started_at: str) -> Path:
    stamp = started_at.replace(":", "").replace("-", "").replace("+0000", "Z")
    return measurements / CALIBRATION_DIR / f"{stamp}.json"


def write_calibration(measurements: Path, record: CalibrationFile) -> Path:
    path = calibration_path(measurements, record.started_at)
    write_json(path, record.model_dump(mode="json"))
    return path


def read_calibration(path: Path) -> CalibrationFile:
    data = upgrade(load_json(path, _FIX), path, CALIBRATION_SCHEMA_VERSION)
    return validated(CalibrationFile, data, path, _FIX)


def read_calibrations(measurements: Path) -> list[CalibrationFile]:
    """Every calibration file, oldest first (an absent folder: none)."""
    folder = measurements / CALIBRATION_DIR
    if not folder.is_dir():
        return []
    return [read_calibration(path) for path in sorted(folder.glob("*.json"))]


def session_key(device_name: str, mode: str = EAGER) -> str:
    """Whose between-invocation variation: a device's, for its eager runs; a device's in one
    torch.compile mode, for those (compiled steps vary between processes in their own way:
    their variation must not widen every eager interval of the device)."""
    return device_name if mode == EAGER else f"{device_name}|{mode}"


def session_cvs(calibrations: list[CalibrationFile]) -> dict[str, float]:
    """`session_key` (device name, and compile mode where not eager) -> the
    between-invocation variation its re-measurements show (hierarchical.session_cv), from
    every check that recorded both spreads; one never re-measured is absent (no third level
    known: 0)."""
    checks: dict[str, list[SessionCheck]] = {}
    for calibration in calibrations:
        for item in calibration.configurations:
            committed, again = item.committed, item.remeasured
            if committed.block_median_cv is None or again.block_median_cv is None:
                continue
            if committed.blocks < 2 or again.blocks < 2:
                continue
            key = session_key(calibration.device_name, mode_of_run_id(item.run_id))
            checks.setdefault(key, []).append(SessionCheck(
                committed.median_s, committed.block_median_cv, committed.blocks,
                again.median_s, again.block_median_cv, again.blocks,
            ))  # fmt: skip
    return {name: session_cv(found) for name, found in checks.items()}
