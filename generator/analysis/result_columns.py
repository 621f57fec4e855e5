"""A run's timing columns, made from its workload's one result (`analysis/results.py`) at the
download step: the runs table carries none of them (run.json stores no statistic, and the
report keeps no copy of a result), and runs.md's table, an experiment page's runs table and
a run page's run-summary are made here, so they show the median and interval every page
states.

The result's columns (`median_s`, `ci_low_s`, `ci_high_s`, `iterations`, `throughput`,
`modelled_attained`) and `cv`, the run's own spread of steps; `ci_low_s` and `ci_high_s`
are empty where the result has no interval (several runs each timed in one process) and
where its interval is too uncertain to state (its ends more than `interval.MAX_SPAN` times
apart: the pages say so in words, and `interval` says so here, with the ends). `interval`
names the interval's kind (calibrated, within one process, not calibrated), `blocks` the
processes it rests on; the run's own figures stand beside them (`run_median_s`, ...)."""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from generator.analysis.interval import Interval
from generator.analysis.results import Result
from generator.ingest.runs import RunRow, run_rows

# The result's columns, each after the runs table's column it followed when that table
# carried copies of them: a download keeps its column order.
AFTER: dict[str, dict[str, type[pl.DataType]]] = {
    "status": {
        "median_s": pl.Float64,
        "ci_low_s": pl.Float64,
        "ci_high_s": pl.Float64,
        "cv": pl.Float64,
    },
    "iterations": {"throughput": pl.Float64},
    "modelled_bytes": {"modelled_attained": pl.Float64},
}
# Then, at the end: the run's own figures and how the result pools its runs.
OWN_AND_POOLED: dict[str, type[pl.DataType]] = {
    "run_median_s": pl.Float64,
    "run_ci_low_s": pl.Float64,
    "run_ci_high_s": pl.Float64,
    "run_iterations": pl.Int64,
    "run_interval": pl.String,  # the kind of the run's own interval
    "pooled_runs": pl.Int64,  # how many ok runs share the workload (1: not pooled)
    "pooled_groups": pl.String,  # the groups it serves, comma-separated, in order
    "spread_low_s": pl.Float64,  # the lowest and highest of the pooled runs' own medians
    "spread_high_s": pl.Float64,
    "blocks": pl.Int64,  # independent processes the result rests on
    "interval": pl.String,  # its kind: analysis.interval.CALIBRATED, ONE_PROCESS or NONE
}


def step_columns(step: Interval) -> dict[str, float | None]:
    """The step time as the downloads state it: its ends empty where it has none, or where
    they are too far apart to state."""
    stated = step if not step.too_wide else Interval(step.value, kind=step.kind)
    return {"median_s": step.value, "ci_low_s": stated.low, "ci_high_s": stated.high}


def timing_columns(row: RunRow, result: Result | None) -> dict[str, object]:
    """The run's timing columns (AFTER's and OWN_AND_POOLED's) from `result`, its workload's
    (None: a failed run, or one without timed steps, which has none)."""
    own = result.run(row["run_id"]) if result is not None else None
    if result is None or own is None or row["status"] != "ok":
        return _none(row)
    step = result.step
    medians = [run.step.value for run in result.runs]
    attained = result.attained
    return {
        **step_columns(step), "cv": own.cv, "iterations": result.iterations,
        "throughput": result.throughput.value,
        "modelled_attained": attained.value if attained else None,
        "run_median_s": own.step.value, "run_ci_low_s": own.step.low,
        "run_ci_high_s": own.step.high, "run_iterations": row["iterations"],
        "run_interval": own.step.kind, "pooled_runs": len(result.runs),
        "pooled_groups": ", ".join(result.groups),
        "spread_low_s": min(medians), "spread_high_s": max(medians),
        "blocks": step.processes, "interval": _kind(step),
    }  # fmt: skip


def download_row(row: RunRow, result: Result | None) -> dict[str, object]:
    """The run's row with its timing columns, in the download's column order."""
    timing = timing_columns(row, result)
    found: dict[str, object] = {}
    for column, value in row.items():
        found[column] = timing.get(column, value)
        found.update({name: timing[name] for name in AFTER.get(column, {})})
    return found | {name: timing[name] for name in OWN_AND_POOLED}


def download_schema(runs: pl.Schema) -> pl.Schema:
    """The runs table's schema with the timing columns, in the download's order."""
    columns: dict[str, pl.DataType | type[pl.DataType]] = {}
    for column, dtype in runs.items():
        columns[column] = dtype
        columns.update(AFTER.get(column, {}))
    columns.update(OWN_AND_POOLED)
    return pl.Schema(columns)


def runs_download(runs: pl.DataFrame, results: Mapping[str, Result]) -> pl.DataFrame:
    """The runs table as a download: each run's row with its workload's result's columns."""
    rows = [
        download_row(row, results.get(row["workload"]) if row["status"] == "ok" else None)
        for row in run_rows(runs)
    ]
    return pl.DataFrame(rows, schema=download_schema(runs.schema))


def _kind(step: Interval) -> str:
    """The interval's kind, and for one too uncertain to state, why its ends are not given."""
    if not step.too_wide:
        return step.kind
    return f"{step.kind}, too uncertain (95 % ends {step.low:.4g} s and {step.high:.4g} s)"


def _none(row: RunRow) -> dict[str, object]:
    """A run without a result: no statistic; its own count of timed steps, its groups."""
    shared = row["groups"]
    groups = shared if shared else [row["group"]]
    return {
        "median_s": None, "ci_low_s": None, "ci_high_s": None, "cv": None,
        "iterations": row["iterations"], "throughput": None, "modelled_attained": None,
        "run_median_s": None, "run_ci_low_s": None, "run_ci_high_s": None,
        "run_iterations": row["iterations"], "run_interval": None,
        "pooled_runs": 1 if row["status"] == "ok" else 0,
        "pooled_groups": ", ".join(sorted(groups)), "spread_low_s": None,
        "spread_high_s": None, "blocks": None, "interval": None,
    }  # fmt: skip
