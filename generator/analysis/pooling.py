"""One result per workload: runs of the same configuration on the same device, measured in
different groups, pooled into one set of samples.

A workload is a run's configuration without what only says how or where it was filed
(group, warm-up, iteration counts, stopping rule, profiling): ResNet-18 b64 training in
groups A, C and D is one workload. Every run's row then carries its workload's pooled
median, interval and sample count in the columns the report reads (`median_s`, `ci_low_s`,
`ci_high_s`, `iterations`, `throughput`, `modelled_attained`), so the same configuration
shows the same numbers wherever it appears; the run's own figures stay beside them
(`run_median_s`, ...). All intervals are recomputed from the samples, whatever a run.json
recorded, by one rule:

- a workload timed by more than one independent process (the blocks of the `blocks`
  method, or several runs of one process each) gets the estimate across processes and the
  95 % re-measurement interval (`hierarchical.block_estimate`), `interval = "blocks"`;
- a workload timed in one process only gets the distribution-free interval of the median
  over its iterations (`stats.median_ci`), `interval = "one process"`: it says how precise
  that process's median is, not where a re-measurement would fall."""

from __future__ import annotations

import statistics
from collections.abc import Mapping

import polars as pl

from generator.analysis.per_workload import workload_blocks, workload_samples
from generator.hierarchical import block_estimate
from generator.stats import median_ci

# The run's own figures, kept under these names when the pooled ones take their place.
OWN = {
    "median_s": "run_median_s",
    "ci_low_s": "run_ci_low_s",
    "ci_high_s": "run_ci_high_s",
    "iterations": "run_iterations",
}
POOLED_COLUMNS = {
    **{own: pl.Float64 for own in OWN.values()},
    "run_iterations": pl.Int64,
    "pooled_runs": pl.Int64,  # how many ok runs share the workload (1: not pooled)
    "pooled_groups": pl.String,  # their groups, comma-separated, in order
    "spread_low_s": pl.Float64,  # the lowest and highest of the pooled runs' own medians
    "spread_high_s": pl.Float64,
    "blocks": pl.Int64,  # independent processes the interval rests on
    "interval": pl.String,  # "blocks" (across processes) or "one process" (iterations)
}


def pool_runs(
    runs: pl.DataFrame,
    steps: Mapping[str, pl.DataFrame],
    session_cvs: Mapping[str, float] | None = None,
) -> pl.DataFrame:
    """`runs` (ingest.runs.RUN_SCHEMA) with each ok run's timing replaced by its workload's
    pooled timing; failed runs and runs without samples keep theirs. `session_cvs`: device
    name -> the between-invocation variation its re-measurements showed
    (records.calibration.session_cvs), which widens the re-measurement interval."""
    ok = runs.filter((pl.col("status") == "ok") & pl.col("run_id").is_in(list(steps)))
    pooled: dict[str, dict[str, object]] = {}
    blocks_of = workload_blocks(ok, steps)
    for workload, samples in workload_samples(ok, steps).items():
        if len(samples) < 2:
            continue
        part = ok.filter(pl.col("workload") == workload)
        ids = sorted(part["run_id"].to_list())
        blocks = blocks_of.get(workload, [])
        if len(blocks) >= 2:
            session = session_cvs.get(str(part["device_name"][0]), 0.0) if session_cvs else 0.0
            estimate = block_estimate(blocks, session_cv=session)
            median, (low, high) = estimate.estimate_s, estimate.remeasure95_s
        else:
            median, (low, high) = statistics.median(samples), median_ci(samples)
        medians = [
            statistics.median(steps[run_id]["step_s"].drop_nulls().to_list()) for run_id in ids
        ]
        shared: dict[str, object] = {  # the same for every run of the workload
            "median_s": median,
            "ci_low_s": low,
            "ci_high_s": high,
            "blocks": len(blocks),
            "interval": "blocks" if len(blocks) >= 2 else "one process",
            "iterations": len(samples),
            "pooled_runs": len(ids),
            "pooled_groups": ", ".join(
                sorted(_groups(part.select(sorted(_GROUP_COLUMNS & set(part.columns))).to_dicts()))
            ),
            "spread_low_s": min(medians),
            "spread_high_s": max(medians),
        }
        pooled.update((run_id, shared) for run_id in ids)
    rows = []
    for row in runs.to_dicts():
        own = {new: row[old] for old, new in OWN.items()}
        update = pooled.get(row["run_id"])
        if update is not None:
            median = float(update["median_s"])  # type: ignore[arg-type]
            row = row | update
            row["throughput"] = row["batch"] / median
            if row["modelled_flops"] is not None:
                row["modelled_attained"] = row["modelled_flops"] / median
        rows.append(row | own | ({} if update else _unpooled(row)))
    schema = runs.schema | pl.Schema(POOLED_COLUMNS)
    return pl.DataFrame(rows, schema=schema)


_GROUP_COLUMNS = {"group", "groups"}  # what `_groups` reads of a row


def _unpooled(row: dict[str, object]) -> dict[str, object]:
    return {
        "blocks": None,
        "interval": None,
        "pooled_runs": 1 if row["status"] == "ok" else 0,
        "pooled_groups": ", ".join(sorted(_groups([row]))),
        "spread_low_s": row["median_s"],
        "spread_high_s": row["median_s"],
    }


def _groups(rows: list[dict[str, object]]) -> set[str]:
    """Every group the rows serve: their own and those sharing the one result."""
    found: set[str] = set()
    for row in rows:
        shared = row.get("groups")
        found.update(shared if isinstance(shared, list) and shared else [str(row["group"])])
    return found
