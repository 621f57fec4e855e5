"""Which planned tasks to skip, re-attach to or submit: pure, from the manifest, the queue
and the run folders, so it is tested without a cluster."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from generator.config import RunConfig
from generator.measure.outcome import Outcome
from generator.measure.slurm.manifest import Manifest, task_key
from generator.measure.slurm.options import SlurmOptions
from generator.records.run import read_run


@dataclass(frozen=True)
class Planned:
    config: RunConfig
    partition: str | None
    key: str
    action: str  # skip (measured with this config hash), attach (queued/running), submit
    outcome: Outcome | None = None  # skip: the recorded result


def plan_tasks(
    runs: list[RunConfig],
    options: dict[str, SlurmOptions],
    manifest: Manifest,
    runs_dir: Path,
    force: bool,
) -> list[Planned]:
    """Every run on every partition of its device. `manifest.jobs` holds only jobs still in
    the queue (ended ones were settled first), so a key found there is re-attached, even
    with --force: it must not be submitted twice."""
    planned = []
    for config in runs:
        for partition in options[config.device].partitions:
            key = task_key(config, partition)
            if key in manifest.jobs:
                planned.append(Planned(config, partition, key, "attach"))
                continue
            cpus = options[config.device].cpus_per_task
            done = None if force else _measured(config, partition, cpus, manifest, runs_dir)
            action = "skip" if done is not None else "submit"
            planned.append(Planned(config, partition, key, action, done))
    return planned


def _measured(
    config: RunConfig, partition: str | None, cpus: int | None, manifest: Manifest, runs_dir: Path
) -> Outcome | None:
    """The run's ok result when this partition's device is known and measured it with the
    same configuration hash; a partition no task has reported from yet has none."""
    name = manifest.device_name(partition, config.device, cpus)
    if name is None:
        return None
    run_id = config.run_id(name)
    record = read_run(runs_dir / run_id)
    if record is None or record.status != "ok" or record.timing is None:
        return None
    if record.config_hash != config.config_hash(name):
        return None
    return Outcome.of(run_id, "skipped", "already measured", runs_dir / run_id)
