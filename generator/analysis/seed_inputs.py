"""What the seed-time prediction (analysis/seed_prediction.py) reads from this project's
data: the analytic counts of each workload, and the kernels per step of our profiled GPU
steps (its launch floor)."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from generator.analysis.device_choice import kernels_per_step
from generator.analysis.seed_prediction import Counts, Kernels, WorkloadKey
from generator.analysis.views import TraceView


def counts_by_workload(table: pl.DataFrame | None, runs: pl.DataFrame) -> dict[WorkloadKey, Counts]:
    """The analytic counts of each workload: seed_workloads.csv (complexity-tables), else an
    ok run here of the same configuration (its modelled FLOPs and bytes, the same counter)."""
    found: dict[WorkloadKey, Counts] = {}
    if table is not None:
        for row in table.to_dicts():
            key = (row["model"], row["dataset"], row["batch"], row["phase"], row["precision"])
            found[key] = Counts(
                float(row["step_flops"]),
                float(row["min_traffic_bytes"]),
                "analytic count (measurements/complexity/seed_workloads.csv)",
            )
    if "modelled_flops" not in runs.columns:
        return found
    ok = runs.filter(
        (pl.col("status") == "ok")
        & pl.col("modelled_flops").is_not_null()
        & pl.col("modelled_bytes").is_not_null()
    )
    for row in ok.sort("run_id").to_dicts():
        key = (row["model"], row["dataset"], row["batch"], row["phase"], row["precision"])
        if key not in found:
            found[key] = Counts(
                float(row["modelled_flops"]),
                float(row["modelled_bytes"]),
                f"analytic count of run {row['run_id']}",
            )
    return found


def profiled_kernels(traces: Sequence[TraceView], runs: pl.DataFrame) -> dict[WorkloadKey, Kernels]:
    """Kernels per step of each configuration's profiled GPU step here (its first run's)."""
    config = {
        row["run_id"]: (row["model"], row["dataset"], row["batch"], row["phase"], row["precision"])
        for row in runs.to_dicts()
    }
    found: dict[WorkloadKey, Kernels] = {}
    for trace in sorted(traces, key=lambda t: t.slug):
        run_id = trace.slug.removeprefix("run-")
        if trace.kind != "run" or run_id not in config:
            continue
        per_step = kernels_per_step(trace)
        if per_step and config[run_id] not in found:
            found[config[run_id]] = Kernels(per_step, f"the profiled step of GPU run {run_id}")
    return found
