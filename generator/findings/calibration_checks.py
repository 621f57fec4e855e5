"""Measured again, did the result hold? `not-reproduced` on a run whose latest re-measurement
(`python -m generator remeasure`, measurements/calibration/) fell outside the 95 %
interval the report states for it, and the coverage sentence the report prints."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from generator.formatting import number, seconds
from generator.records.calibration import CalibrationFile, Remeasured
from generator.records.finding import Finding
from generator.records.run import RunRecord


@dataclass(frozen=True)
class Coverage:
    covered: int
    total: int
    calibrations: int  # files (remeasure calls) they come from
    first: str  # started_at of the oldest and newest call
    last: str
    min_minutes_after: float  # the shortest time between a result and its re-measurement

    def sentence(self) -> str:
        share = f"{100 * self.covered / self.total:.0f} %" if self.total else "n/a"
        calls = "one re-measurement call" if self.calibrations == 1 else (
            f"{self.calibrations} re-measurement calls")  # fmt: skip
        return (
            f"Our 95 % intervals covered {self.covered} of {self.total} re-measurements "
            f"({share}; {calls}, {self.first[:10]}"
            + (f" to {self.last[:10]}" if self.last[:10] != self.first[:10] else "")
            + f", each at least {number(self.min_minutes_after, 2)} minutes after the result "
            "it checks)."
        )


def coverage(calibrations: Sequence[CalibrationFile]) -> Coverage | None:
    """Every re-measurement on record, pooled: how many fell inside their stated interval."""
    items = [item for calibration in calibrations for item in calibration.configurations]
    if not items:
        return None
    starts = sorted(c.started_at for c in calibrations if c.configurations)
    return Coverage(
        covered=sum(item.inside for item in items),
        total=len(items),
        calibrations=len(starts),
        first=starts[0],
        last=starts[-1],
        min_minutes_after=min(item.minutes_after for item in items),
    )


def latest_remeasurements(
    calibrations: Sequence[CalibrationFile], records: Mapping[str, RunRecord]
) -> dict[str, tuple[CalibrationFile, Remeasured]]:
    """Run -> its newest re-measurement that checked the result as it stands (a result
    measured again since was not what that call checked)."""
    latest: dict[str, tuple[CalibrationFile, Remeasured]] = {}
    for calibration in sorted(calibrations, key=lambda c: c.started_at):
        for item in calibration.configurations:
            record = records.get(item.run_id)
            if record is None or (record.finished_at or "") > calibration.started_at:
                continue
            latest[item.run_id] = (calibration, item)
    return latest


def not_reproduced(
    calibrations: Sequence[CalibrationFile], records: Mapping[str, RunRecord]
) -> dict[str, tuple[Finding, ...]]:
    found: dict[str, tuple[Finding, ...]] = {}
    for run_id, (calibration, item) in latest_remeasurements(calibrations, records).items():
        if item.inside:
            continue
        low, high = item.committed.interval95_s
        found[run_id] = (
            Finding(
                "not-reproduced",
                "warning",
                "A re-measurement fell outside this result's 95 % interval",
                f"measured again on {calibration.started_at[:16].replace('T', ' ')} UTC, "
                f"{number(item.minutes_after, 2)} minutes later, in a new invocation: "
                f"{seconds(item.remeasured.median_s)} ({number(item.ratio, 3)}× the committed "
                f"{seconds(item.committed.median_s)}), outside its interval [{seconds(low)}, "
                f"{seconds(high)}]",
                "read the interval as too narrow for this configuration: measure it again "
                "(`nox -s measure -- --force --group ...` adds blocks, and blocks from "
                "another session widen the interval by what changed between them)",
            ),
        )
    return found
