"""Measured run folders (measurements/runs/*/run.json) into one Polars table, without torch."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict, cast

import polars as pl

from generator.catalog import device_label
from generator.errors import UserError
from generator.records.run import RUN_FILE, RunRecord, read_run

RUN_COLUMNS: dict[str, pl.DataType | type[pl.DataType]] = {
    "run_id": pl.String,
    "workload": pl.String,  # the configuration without its group (records.run.NOT_WORKLOAD)
    "group": pl.String,  # the group that names the run's folder
    "groups": pl.List(pl.String),  # every group this one result serves (run.json groups)
    "model": pl.String,
    "dataset": pl.String,
    "batch": pl.Int64,
    "phase": pl.String,
    "precision": pl.String,
    "device": pl.String,
    "compile": pl.String,  # eager, or a torch.compile mode (records.run_modes)
    "device_name": pl.String,
    "device_label": pl.String,  # the concrete device, one name per product (catalog.device_label)
    "status": pl.String,
    # no statistic of its steps: each ok run's is its workload's result's
    # (analysis/results.py), which the downloads add (analysis/result_columns.py)
    "iterations": pl.Int64,  # the run's own timed steps
    "params": pl.Float64,  # analytic (complexity totals)
    "forward_flops": pl.Float64,
    "backward_flops": pl.Float64,
    "forward_s": pl.Float64,  # the run's median time of each part of the step (steps.csv)
    "loss_s": pl.Float64,
    "backward_s": pl.Float64,
    "optimizer_step_s": pl.Float64,
    "modelled_flops": pl.Float64,
    "modelled_bytes": pl.Float64,
    "modelled_ai": pl.Float64,
    "memory_bytes": pl.Float64,  # the step's measured peak (measure.memory); null: not measured
    "memory_analytic_bytes": pl.Float64,  # complexity.footprint
    "compile_s": pl.Float64,  # the first block's (cold) compile time; null: eager
    "finished_at": pl.String,
    "commit": pl.String,
    "error": pl.String,
}
RUN_SCHEMA = pl.Schema(RUN_COLUMNS)


class RunRow(TypedDict):
    """One row of the runs table (RUN_COLUMNS, in that order): what a page reads of a run.
    The configuration's fields are always filled; the rest are None where not measured."""

    run_id: str
    workload: str
    group: str
    groups: list[str]
    model: str
    dataset: str
    batch: int
    phase: str
    precision: str
    device: str
    compile: str
    device_name: str
    device_label: str
    status: str
    iterations: int | None
    params: float | None
    forward_flops: float | None
    backward_flops: float | None
    forward_s: float | None
    loss_s: float | None
    backward_s: float | None
    optimizer_step_s: float | None
    modelled_flops: float | None
    modelled_bytes: float | None
    modelled_ai: float | None
    memory_bytes: float | None
    memory_analytic_bytes: float | None
    compile_s: float | None
    finished_at: str | None
    commit: str | None
    error: str | None


def run_rows(runs: pl.DataFrame) -> list[RunRow]:
    """The rows of a runs table, typed: RUN_SCHEMA (whose columns are RunRow's: a test holds
    them equal)."""
    return cast(list[RunRow], runs.to_dicts())


def _row(record: RunRecord) -> dict[str, object]:
    """The record's row and its concrete device: two GPUs are both `cuda` in the config, and
    only this label keeps their runs apart in groups, charts and verdicts."""
    name = record.device_name.strip()
    return record.row() | {"device_label": device_label(name) if name else record.config.device}


def load_runs(measurements: Path) -> pl.DataFrame:
    """One row per run folder, sorted by run id; a folder without run.json is an error."""
    return runs_frame(read_runs(measurements))


def read_runs(measurements: Path) -> dict[str, RunRecord]:
    """Every run folder's record by run id, sorted; a folder without run.json is an error."""
    folder = measurements / "runs"
    records = {}
    if folder.is_dir():
        for run in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
            data = read_run(run)
            if data is None:
                raise UserError(
                    "run folder without run.json",
                    file=run,
                    fix="measure it again (`nox -s measure -- --force`) or delete the folder",
                )
            if data.run_id != run.name:
                raise UserError(
                    f"run.json names run {data.run_id!r} but sits in folder {run.name!r}",
                    file=run / RUN_FILE,
                    key="run_id",
                    fix="a run folder is named by its run id: rename it back, or measure again",
                )
            records[run.name] = data
    return records


def runs_frame(records: dict[str, RunRecord]) -> pl.DataFrame:
    """The runs' table, one row per record, sorted by run id."""
    return pl.DataFrame([_row(data) for data in records.values()], schema=RUN_SCHEMA).sort("run_id")


def in_group(group_id: str) -> pl.Expr:
    """The runs a group reads: those filed in it and the shared results that serve it."""
    return pl.col("groups").list.contains(group_id) | (pl.col("group") == group_id)
