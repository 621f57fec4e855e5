"""Does latency follow analytic FLOPs, or parameters? Seed 003 ranked ten models' batch-1
inference latency against their FLOPs and parameters (Spearman). Here the same ranking is
computed for every set of runs that share a device, phase, precision and batch and cover at
least three models, one point per workload, with a bootstrap interval, so a ρ from three or
ten points is never read as more certain than it is."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

from generator.analysis.bootstrap import (
    MIN_INTERVAL_POINTS,
    MIN_POINTS,
    RESAMPLES,
    SEED,
    Interval,
    spearman,
)
from generator.analysis.per_workload import one_per_workload
from generator.analysis.result_columns import step_columns
from generator.analysis.results import Result

SET_KEYS = ("device_label", "phase", "precision", "batch")
QUANTITIES = {"modelled_flops": "analytic FLOPs", "params": "parameters"}
POINT_COLUMNS = (*SET_KEYS, "model", "dataset", "label", "median_s", "ci_low_s", "ci_high_s",
                 "modelled_flops", "params", "workload")  # fmt: skip
PHASE_TIME = {
    "inference": "inference latency",
    "prefill": "prefill latency",
    "decode": "decode latency (one token)",
    "train_step": "training-step time",
}


@dataclass(frozen=True)
class LatencySet:
    """The workloads measured on one device at one phase, precision and batch: their points
    (POINT_COLUMNS, by latency) and ρ of latency against each quantity (None: undefined, or
    fewer than three points have that quantity)."""

    device_label: str
    device: str  # the device kind (cpu, cuda): what a seed's number is compared with
    phase: str
    precision: str
    batch: int
    points: pl.DataFrame
    rho: dict[str, Interval | None]

    @property
    def models(self) -> int:
        return self.points["model"].n_unique()


def _labelled(points: pl.DataFrame) -> pl.DataFrame:
    """Each point named by its model; by model and dataset where a model appears twice in a
    set (ResNet-18 on CIFAR-10 and on ImageNet)."""
    twice = pl.col("model").count().over("model") > 1
    return points.with_columns(
        label=pl.when(twice)
        .then(pl.format("{} ({})", pl.col("model"), pl.col("dataset")))
        .otherwise(pl.col("model"))
    )


def latency_sets(
    runs: pl.DataFrame,
    results: Mapping[str, Result],
    seed: int = SEED,
    resamples: int = RESAMPLES,
) -> list[LatencySet]:
    """Every (device, phase, precision, batch) set with at least three distinct models, in
    device, phase, precision and batch order; each point's latency its workload's result's
    (`results`: workload -> result), as the downloads state it."""
    points = _with_steps(one_per_workload(runs, results), results)
    found = []
    for key, part in points.group_by(list(SET_KEYS)):
        if part["model"].n_unique() < MIN_POINTS:
            continue
        part = _labelled(part).sort("median_s", "label")
        rho = {}
        for quantity in QUANTITIES:
            have = part.filter(pl.col(quantity).is_not_null())
            rho[quantity] = spearman(
                have[quantity].to_list(), have["median_s"].to_list(), seed, resamples
            )
        device_label, phase, precision, batch = key
        found.append(
            LatencySet(
                device_label=str(device_label),
                device=str(part["device"][0]),
                phase=str(phase),
                precision=str(precision),
                batch=int(batch),
                points=part.select(POINT_COLUMNS),
                rho=rho,
            )
        )
    return sorted(found, key=lambda s: (s.device_label, s.phase, s.precision, s.batch))


def _with_steps(points: pl.DataFrame, results: Mapping[str, Result]) -> pl.DataFrame:
    """Each point with its result's step time (result_columns.step_columns)."""
    steps = [step_columns(results[w].step) for w in points["workload"]]
    return points.with_columns(
        pl.Series(column, [s[column] for s in steps], dtype=pl.Float64)
        for column in ("median_s", "ci_low_s", "ci_high_s")
    )


def set_title(found: LatencySet) -> str:
    """'AMD EPYC (2 threads): inference, fp32, batch 1'."""
    return f"{found.device_label}: {found.phase}, {found.precision}, batch {found.batch}"


def _interval(value: Interval) -> str:
    return f"{value.value:.2f} [{value.low:.2f}, {value.high:.2f}]"


def sentence(found: LatencySet, quantity: str) -> str:
    """What the set's ρ supports, in words: a direction only where its interval excludes 0."""
    name = QUANTITIES[quantity]
    what = PHASE_TIME.get(found.phase, f"{found.phase} time")
    where = f"On {found.device_label}, {what} at batch {found.batch} ({found.precision})"
    value = found.rho[quantity]
    if value is None:
        return (
            f"{where}: no Spearman ρ against {name} (fewer than {MIN_POINTS} models have it, "
            "or it does not vary)."
        )
    have = found.points.filter(pl.col(quantity).is_not_null())
    models, points = have["model"].n_unique(), have.height
    counted = f"{models} models" if models == points else f"{points} workloads of {models} models"
    over = f"over {counted} (bootstrap: {value.used} of {value.resamples} resamples usable)"
    if value.resamples == 0:
        return (
            f"{where}: Spearman ρ = {value.value:.2f} against {name} over {counted}, too few for "
            f"a bootstrap interval (it needs {MIN_INTERVAL_POINTS}), so no ranking by {name} is "
            "established."
        )
    if value.used == 0:
        return f"{where}: Spearman ρ = {value.value:.2f} against {name} {over}, no interval."
    if not value.excludes(0.0):
        return (
            f"{where}: Spearman ρ = {_interval(value)} against {name} {over}; the interval "
            f"includes 0, so no ranking by {name} is established."
        )
    verb = "follows" if value.value > 0 else "runs opposite to"
    return f"{where} {verb} {name} with Spearman ρ = {_interval(value)} {over}."


def points_frame(sets: list[LatencySet]) -> pl.DataFrame:
    """Every set's points, for the page's download."""
    if not sets:
        return pl.DataFrame(schema={c: pl.String for c in POINT_COLUMNS})
    return pl.concat([s.points for s in sets])


def rho_frame(sets: list[LatencySet]) -> pl.DataFrame:
    """One row per set and quantity: ρ, its interval and the resamples behind it."""
    rows = []
    for found in sets:
        for quantity, value in found.rho.items():
            rows.append(
                {"device_label": found.device_label, "phase": found.phase,
                 "precision": found.precision, "batch": found.batch, "against": quantity,
                 "models": found.models,
                 "rho": value.value if value else None,
                 "ci_low": value.low if value else None,
                 "ci_high": value.high if value else None,
                 "resamples_used": value.used if value else 0,
                 "resamples": value.resamples if value else 0}
            )  # fmt: skip
    schema = {
        "device_label": pl.String, "phase": pl.String, "precision": pl.String,
        "batch": pl.Int64, "against": pl.String, "models": pl.Int64, "rho": pl.Float64,
        "ci_low": pl.Float64, "ci_high": pl.Float64, "resamples_used": pl.Int64,
        "resamples": pl.Int64,
    }  # fmt: skip
    return pl.DataFrame(rows, schema=schema)
