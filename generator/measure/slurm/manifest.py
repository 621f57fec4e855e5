"""The job manifest (`<slurm folder>/manifest.json`): which Slurm job measures which planned
task, so a second `measure --executor slurm` re-attaches instead of submitting twice, and
which device each partition turned out to have (a task learns its GPU's name on the node)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from generator.atomic import write_json
from generator.config import RunConfig
from generator.errors import UserError

MANIFEST_FILE = "manifest.json"
MANIFEST_VERSION = 1


class JobEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    job_id: str  # submitit's id: "<array job>_<index>"
    partition: str | None
    device: str  # cpu or cuda
    cpus_per_task: int | None = None  # a CPU's device name counts its threads
    label: str  # group/model/bBATCH/phase/precision, for progress and errors
    submitted_at: str
    config: dict[str, Any]  # RunConfig.as_dict(): settles the job even if the matrix changed


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: int = MANIFEST_VERSION
    jobs: dict[str, JobEntry] = {}  # task key -> the job measuring it
    # "<partition>/<device>/<cpus per task>" -> device name, as the tasks there reported
    device_names: dict[str, str] = {}

    def device_name(self, partition: str | None, device: str, cpus: int | None) -> str | None:
        return self.device_names.get(placement(partition, device, cpus))


def placement(partition: str | None, device: str, cpus_per_task: int | None) -> str:
    """What decides a task's device name: the partition's hardware, and for a CPU the
    threads it may use (Slurm's --cpus-per-task, else the node's default)."""
    return f"{partition or '(default)'}/{device}/{cpus_per_task or 'default'}"


def task_key(config: RunConfig, partition: str | None) -> str:
    """One configuration on one partition: what is submitted once and re-attached to."""
    payload = json.dumps({"partition": partition, **config.as_dict()}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def task_label(config: RunConfig, partition: str | None) -> str:
    where = f" @{partition}" if partition else ""
    return (
        f"{config.group}/{config.model}/b{config.batch}/{config.phase}/{config.precision}/"
        f"{config.device}{where}"
    )


def load_manifest(folder: Path) -> Manifest:
    path = folder / MANIFEST_FILE
    if not path.exists():
        return Manifest()
    fix = f"delete {path} if no jobs of it are still queued (then nothing is re-attached)"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        manifest = Manifest.model_validate(raw)
    except (json.JSONDecodeError, ValidationError) as error:
        raise UserError(f"not a valid job manifest: {error}", file=path, fix=fix) from None
    if manifest.schema_version != MANIFEST_VERSION:
        raise UserError(
            f"manifest schema_version {manifest.schema_version}; this version reads "
            f"{MANIFEST_VERSION}",
            file=path,
            key="schema_version",
            fix=fix,
        )
    return manifest


def save_manifest(folder: Path, manifest: Manifest) -> None:
    write_json(folder / MANIFEST_FILE, manifest.model_dump(mode="json"))
