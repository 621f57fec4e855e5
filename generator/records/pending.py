"""Blocks kept as they complete: measurements/pending/<run-id>/block-<invocation>-<n>.json.

A configuration's run folder is written when its last block is timed, and the first wave
gives every configuration its minimum blocks, so every configuration finishes near the end
of a `measure` call. A call that is stopped (a Slurm time limit, a lease running out,
Ctrl-C, SIGKILL) would lose every block timed so far. So each block is written here, in one
atomic file, the moment it is timed; the next `measure` call of the same configuration
resumes from them (the interrupted invocation goes on), and the run folder, once written,
takes them over and the pending folder is removed. The report lists what is pending as not
calibrated, with the command that completes it.

Each file holds the whole context of its block (the configuration, its hash, the device's
name, the groups it serves, which invocation it belongs to), so no second file has to be
written with it, and a folder is read whole or not at all (a half-written file cannot exist:
temp file and rename).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from generator.atomic import write_json
from generator.records.versioned import load_json, upgrade, validated

PENDING_SCHEMA_VERSION = 1
PENDING_DIR = "pending"
FIX = "delete the file (its block is lost) and run the same `measure` command again"


class PendingBlock(BaseModel):
    """One timed block of a configuration whose run folder is not written yet."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = PENDING_SCHEMA_VERSION
    run_id: str
    config: dict[str, Any]  # RunConfig.as_dict()
    config_hash: str
    device_name: str
    groups: list[str]
    invocation: int  # which `measure` call of this result (0: the first), as run.json history
    index: int  # the block's place in its invocation (0, 1, ...)
    started_at: str  # when the invocation that timed it started
    kept_at: str
    block: dict[str, Any]  # measure.block.BlockResult's fields


@dataclass(frozen=True)
class Pending:
    """A configuration's kept blocks, in order."""

    run_id: str
    blocks: tuple[PendingBlock, ...]

    @property
    def first(self) -> PendingBlock:
        return self.blocks[0]

    @property
    def min_blocks(self) -> int:
        return int(self.first.config.get("min_blocks") or 0)

    @property
    def group(self) -> str:
        return self.first.groups[0] if self.first.groups else str(self.first.config["group"])

    @property
    def device(self) -> str:
        return str(self.first.config["device"])

    def step_times(self) -> list[list[float]]:
        """Each kept block's step times."""
        return [[float(row["step_s"]) for row in b.block.get("rows") or []] for b in self.blocks]

    def resume_command(self) -> str:
        """The command that completes this configuration (it resumes from these blocks)."""
        return f"nox -s measure -- --group {self.group} --device {self.device}"


def pending_folder(measurements: Path, run_id: str) -> Path:
    return measurements / PENDING_DIR / run_id


def block_path(measurements: Path, run_id: str, invocation: int, index: int) -> Path:
    return pending_folder(measurements, run_id) / f"block-{invocation:03d}-{index:04d}.json"


def keep_block(measurements: Path, block: PendingBlock) -> Path:
    """Write one timed block (atomically); returns its file."""
    path = block_path(measurements, block.run_id, block.invocation, block.index)
    write_json(path, block.model_dump(mode="json"))
    return path


def _read(path: Path) -> PendingBlock:
    data = upgrade(load_json(path, FIX), path, PENDING_SCHEMA_VERSION)
    return validated(PendingBlock, data, path, FIX)


def read_pending(measurements: Path, run_id: str) -> Pending | None:
    """The kept blocks of one configuration, or None when it has none."""
    folder = pending_folder(measurements, run_id)
    files = sorted(folder.glob("block-*.json")) if folder.is_dir() else []
    if not files:
        return None
    return Pending(run_id, tuple(_read(path) for path in files))


def read_all_pending(measurements: Path) -> list[Pending]:
    """Every configuration with kept blocks, by run id."""
    root = measurements / PENDING_DIR
    found = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        pending = read_pending(measurements, folder.name)
        if pending is not None:
            found.append(pending)
    return found


def drop_pending(measurements: Path, run_id: str) -> None:
    """Forget a configuration's kept blocks: its run folder holds them now."""
    folder = pending_folder(measurements, run_id)
    if folder.is_dir():
        shutil.rmtree(folder, ignore_errors=True)
    root = measurements / PENDING_DIR
    if root.is_dir() and not any(root.iterdir()):
        root.rmdir()
