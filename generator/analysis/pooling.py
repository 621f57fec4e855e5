"""The runs table with each ok run's timing columns taken from its workload's one result
(`analysis/results.py`), so that a page, chart or download that reads a run's row shows the
same median and interval as every other: nothing here computes a median or an interval.

The columns the report reads (`median_s`, `ci_low_s`, `ci_high_s`, `iterations`,
`throughput`, `modelled_attained`) are the result's, and `cv` the run's own spread of steps
(run.json stores none of them: `records.run.Timing`); `ci_low_s` and `ci_high_s` are empty
where the result has no interval (several runs each timed in one process) and where its
interval is too uncertain to state (its ends more than `interval.MAX_SPAN` times apart: the
pages say so in words, and `interval` says so here, with the ends). `interval` names
the interval's kind (calibrated, within one process, not calibrated), `blocks` the processes
it rests on; the run's own figures stay beside them (`run_median_s`, ...)."""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from generator.analysis.interval import Interval
from generator.analysis.results import Result

# The run's own figures, kept under these names when the result's take their place.
OWN = {
    "median_s": "run_median_s",
    "ci_low_s": "run_ci_low_s",
    "ci_high_s": "run_ci_high_s",
    "iterations": "run_iterations",
}
POOLED_COLUMNS = {
    **{own: pl.Float64 for own in OWN.values()},
    "run_iterations": pl.Int64,
    "run_interval": pl.String,  # the kind of the run's own interval
    "pooled_runs": pl.Int64,  # how many ok runs share the workload (1: not pooled)
    "pooled_groups": pl.String,  # the groups it serves, comma-separated, in order
    "spread_low_s": pl.Float64,  # the lowest and highest of the pooled runs' own medians
    "spread_high_s": pl.Float64,
    "blocks": pl.Int64,  # independent processes the result rests on
    "interval": pl.String,  # its kind: analysis.interval.CALIBRATED, ONE_PROCESS or NONE
}


def pool_runs(runs: pl.DataFrame, results: Mapping[str, Result]) -> pl.DataFrame:
    """`runs` (ingest.runs.RUN_SCHEMA) with each ok run's timing replaced by its workload's
    result; failed runs and runs without samples keep theirs."""
    rows = []
    for row in runs.to_dicts():
        result = results.get(row["workload"]) if row["status"] == "ok" else None
        own = next((r for r in result.runs if r.run_id == row["run_id"]), None) if result else None
        if result is None or own is None:
            rows.append(row | {new: row[old] for old, new in OWN.items()} | _unpooled(row))
            continue
        step = result.step
        stated = step if not step.too_wide else Interval(step.value, kind=step.kind)
        medians = [run.step.value for run in result.runs]
        attained = result.attained
        rows.append(
            row | {
                "run_median_s": own.step.value, "run_ci_low_s": own.step.low,
                "run_ci_high_s": own.step.high, "run_iterations": row["iterations"],
                "run_interval": own.step.kind, "cv": own.cv,
                "median_s": step.value, "ci_low_s": stated.low, "ci_high_s": stated.high,
                "interval": _kind(step), "blocks": step.processes,
                "iterations": result.iterations, "pooled_runs": len(result.runs),
                "pooled_groups": ", ".join(result.groups),
                "spread_low_s": min(medians), "spread_high_s": max(medians),
                "throughput": result.throughput.value,
                "modelled_attained": attained.value if attained else None,
            }
        )  # fmt: skip
    schema = runs.schema | pl.Schema(POOLED_COLUMNS)
    return pl.DataFrame(rows, schema=schema)


def _kind(step: Interval) -> str:
    """The interval's kind, and for one too uncertain to state, why its ends are not given."""
    if not step.too_wide:
        return step.kind
    return f"{step.kind}, too uncertain (95 % ends {step.low:.4g} s and {step.high:.4g} s)"


def _unpooled(row: dict[str, object]) -> dict[str, object]:
    shared = row.get("groups")
    groups = shared if isinstance(shared, list) and shared else [str(row["group"])]
    return {
        "run_interval": None,
        "blocks": None,
        "interval": None,
        "pooled_runs": 1 if row["status"] == "ok" else 0,
        "pooled_groups": ", ".join(sorted(groups)),
        "spread_low_s": row["median_s"],
        "spread_high_s": row["median_s"],
    }
