"""Measured run folders (measurements/runs/*/run.json) and ceilings into Polars, without torch."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from generator.errors import UserError
from generator.measure.store import load_json, read_run
from generator.units_format import si

RUN_COLUMNS: dict[str, Any] = {
    "run_id": pl.String,
    "group": pl.String,
    "model": pl.String,
    "dataset": pl.String,
    "batch": pl.Int64,
    "phase": pl.String,
    "precision": pl.String,
    "device": pl.String,
    "device_name": pl.String,
    "status": pl.String,
    "median_s": pl.Float64,
    "ci_low_s": pl.Float64,
    "ci_high_s": pl.Float64,
    "cv": pl.Float64,
    "iterations": pl.Int64,
    "throughput": pl.Float64,
    "modelled_flops": pl.Float64,
    "modelled_bytes": pl.Float64,
    "modelled_attained": pl.Float64,
    "modelled_ai": pl.Float64,
    "finished_at": pl.String,
    "commit": pl.String,
    "error": pl.String,
}
RUN_SCHEMA = pl.Schema(RUN_COLUMNS)


def _row(data: dict[str, Any]) -> dict[str, Any]:
    config = data.get("config", {})
    timing = data.get("timing") or {}
    point = data.get("modelled_point") or {}
    ci = timing.get("median_ci95_s") or [None, None]
    error = data.get("error")
    return {
        "run_id": data.get("run_id"),
        "group": config.get("group"),
        "model": config.get("model"),
        "dataset": config.get("dataset"),
        "batch": config.get("batch"),
        "phase": config.get("phase"),
        "precision": config.get("precision"),
        "device": config.get("device"),
        "device_name": data.get("device_name"),
        "status": data.get("status"),
        "median_s": timing.get("median_s"),
        "ci_low_s": ci[0],
        "ci_high_s": ci[1],
        "cv": timing.get("cv"),
        "iterations": timing.get("n"),
        "throughput": timing.get("throughput_samples_per_s"),
        "modelled_flops": point.get("flops"),
        "modelled_bytes": point.get("bytes"),
        "modelled_attained": point.get("attained_flops_per_s"),
        "modelled_ai": point.get("arithmetic_intensity"),
        "finished_at": data.get("finished_at"),
        "commit": (data.get("environment", {}).get("git") or {}).get("commit"),
        "error": f"{error.get('type')}: {error.get('message')}" if error else None,
    }


def load_runs(measurements: Path) -> pl.DataFrame:
    """One row per run folder, sorted by run id; a folder without run.json is an error."""
    folder = measurements / "runs"
    rows = []
    if folder.is_dir():
        for run in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
            data = read_run(run)
            if data is None:
                raise UserError(
                    "run folder without run.json",
                    file=run,
                    fix="measure it again (`nox -s measure -- --force`) or delete the folder",
                )
            if data.get("run_id") != run.name:
                raise UserError(
                    f"run.json names run {data.get('run_id')!r} but sits in folder {run.name!r}",
                    file=run / "run.json",
                    key="run_id",
                    fix="a run folder is named by its run id: rename it back, or measure again",
                )
            rows.append(_row(data))
    return pl.DataFrame(rows, schema=RUN_SCHEMA).sort("run_id")


@dataclass(frozen=True)
class MeasuredCeilings:
    """The best rates of measurements/ceilings/<device-id>.json (see measure/ceilings.py)."""

    device_name: str
    gemm_flops_per_s: dict[str, float]  # precision -> best GEMM rate
    copy_bytes_per_s: float | None
    triad_bytes_per_s: float | None
    measured_at: str

    def gemm_summary(self) -> str:
        return ", ".join(f"{p} {si(v, 'FLOP/s')}" for p, v in self.gemm_flops_per_s.items())


def load_ceilings(measurements: Path) -> list[MeasuredCeilings]:
    folder = measurements / "ceilings"
    result = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        data = load_json(path, fix="delete it; `nox -s measure` measures the ceilings again")
        stream = data.get("stream", {})
        result.append(
            MeasuredCeilings(
                device_name=str(data.get("device_name", "?")),
                gemm_flops_per_s={
                    p: e["best_flops_per_s"] for p, e in data.get("gemm", {}).items()
                },
                copy_bytes_per_s=stream.get("copy", {}).get("best_bytes_per_s"),
                triad_bytes_per_s=stream.get("triad", {}).get("best_bytes_per_s"),
                measured_at=str(data.get("measured_at", "")),
            )
        )
    return result
