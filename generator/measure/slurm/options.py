"""Where and how each device's runs are submitted: `[slurm.<device>]` in experiments.toml,
overridden by the command line's --partition, --gpus-per-task, … flags."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from generator.records.slurm_settings import SlurmSettings

DEFAULT_TIME_MIN = 60


@dataclass(frozen=True)
class SlurmOptions:
    """The resolved options of one device's runs (command line over the file's table)."""

    partitions: tuple[str | None, ...] = (None,)  # None: the cluster's default partition
    gpus_per_task: int = 0
    cpus_per_task: int | None = None
    array_parallelism: int = 256  # submitit's default: Slurm's own limit decides
    account: str | None = None
    time_min: int = DEFAULT_TIME_MIN
    sbatch: dict[str, str | int | bool] = field(default_factory=dict)

    def executor_parameters(self, partition: str | None) -> dict[str, Any]:
        """submitit.SlurmExecutor.update_parameters() keywords for one partition."""
        parameters: dict[str, Any] = {
            "time": self.time_min,
            "array_parallelism": self.array_parallelism,
            "job_name": "roofline-atlas",
        }
        if partition is not None:
            parameters["partition"] = partition
        if self.gpus_per_task:
            parameters["gpus_per_task"] = self.gpus_per_task
        if self.cpus_per_task is not None:
            parameters["cpus_per_task"] = self.cpus_per_task
        if self.account is not None:
            parameters["account"] = self.account
        if self.sbatch:
            parameters["additional_parameters"] = dict(self.sbatch)
        return parameters


@dataclass(frozen=True)
class CommandLineSlurm:
    """The --partition … flags as given (None: not given, the file or the default decides)."""

    partitions: tuple[str, ...] | None = None
    gpus_per_task: int | None = None
    cpus_per_task: int | None = None
    array_parallelism: int | None = None
    account: str | None = None
    time_min: int | None = None


def resolve_options(
    device: str, table: SlurmSettings | None, flags: CommandLineSlurm
) -> SlurmOptions:
    """Flags over the device's table over the defaults (a CUDA task asks for one GPU)."""
    table = table or SlurmSettings()
    partitions: tuple[str | None, ...] = (None,)
    if flags.partitions:
        partitions = flags.partitions
    elif isinstance(table.partition, str):
        partitions = (table.partition,)
    elif table.partition:
        partitions = tuple(table.partition)
    options = SlurmOptions(
        partitions=partitions,
        gpus_per_task=1 if device == "cuda" else 0,
        sbatch=dict(table.sbatch),
    )
    chosen = {
        "gpus_per_task": _first(flags.gpus_per_task, table.gpus_per_task),
        "cpus_per_task": _first(flags.cpus_per_task, table.cpus_per_task),
        "array_parallelism": _first(flags.array_parallelism, table.array_parallelism),
        "account": _first(flags.account, table.account),
        "time_min": _first(flags.time_min, table.time),
    }
    return replace(options, **{k: v for k, v in chosen.items() if v is not None})


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)
