"""A `[slurm.<device>]` table of experiments.toml: where and how that device's runs are
submitted (`measure/slurm/options.py` resolves it against the command line's flags)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SlurmSettings(BaseModel):
    """One device's table, e.g. `[slurm.cuda]` with `partition = ["t4", "a100"]`."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    # One GPU type per partition: a list spreads the same runs over several partitions.
    partition: str | list[str] | None = None
    gpus_per_task: int | None = Field(default=None, ge=0)
    cpus_per_task: int | None = Field(default=None, ge=1)
    array_parallelism: int | None = Field(default=None, ge=1)
    account: str | None = None
    time: int | None = Field(default=None, ge=1)  # minutes per task
    # Any other sbatch option, verbatim (e.g. {qos = "high", constraint = "a100", exclusive = true}).
    sbatch: dict[str, str | int | bool] = {}
