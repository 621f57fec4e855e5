"""Seed 003's correlation matrix (its Fig. 5): over every model and batch size whose inference
was measured both on a CPU and on a GPU, Spearman's ρ between CPU latency, GPU latency,
analytic FLOPs and parameters, pooled over the batch sizes as the seed pooled 1, 64 and 256,
over the largest set of models measured at the same batch sizes on both devices.

Its points are the latency sets' points (analysis/latency_correlation.py), matched by model,
input and batch, so each latency is the one its result states. The bootstrap resamples the
matched configurations; the same model at three batch sizes gives three points that are not
independent, as in the seed's matrix, so the interval is wider than it looks, not narrower."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations

import polars as pl

from generator.analysis.bootstrap import MIN_POINTS, RESAMPLES, SEED, Interval, spearman
from generator.analysis.latency_correlation import LatencySet

PHASE, PRECISION = "inference", "fp32"  # the seed's matrix: fp32 inference
MIN_BATCHES = 2  # one batch size is a latency set of its own, on the page above the matrix
VARIABLES = {
    "cpu_s": "CPU latency",
    "gpu_s": "GPU latency",
    "modelled_flops": "analytic FLOPs",
    "params": "parameters",
}
MATCH = ("model", "dataset", "batch")


@dataclass(frozen=True)
class LatencyMatrix:
    """The configurations measured on both devices (`points`: MATCH, the two latencies,
    FLOPs and parameters) and ρ for every pair of VARIABLES (None: undefined)."""

    cpu_label: str
    gpu_label: str
    points: pl.DataFrame
    rho: dict[tuple[str, str], Interval | None]

    @property
    def batches(self) -> list[int]:
        return sorted(self.points["batch"].unique().to_list())

    @property
    def models(self) -> int:
        return self.points["model"].n_unique()


def _pooled(sets: list[LatencySet], label: str) -> pl.DataFrame:
    return pl.concat(
        [
            s.points.select(*MATCH, "median_s", "modelled_flops", "params")
            for s in sets
            if s.device_label == label
        ]
    )


def latency_matrices(
    sets: list[LatencySet], seed: int = SEED, resamples: int = RESAMPLES
) -> list[LatencyMatrix]:
    """One matrix per CPU and GPU pair whose fp32 inference sets share at least MIN_POINTS
    configurations over at least MIN_BATCHES batch sizes; CPU, then GPU label order."""
    chosen = [s for s in sets if s.phase == PHASE and s.precision == PRECISION]
    labels = {
        kind: sorted({s.device_label for s in chosen if s.device == kind})
        for kind in ("cpu", "cuda")
    }
    found = []
    for cpu in labels["cpu"]:
        for gpu in labels["cuda"]:
            points = (
                _pooled(chosen, cpu)
                .rename({"median_s": "cpu_s"})
                .join(_pooled(chosen, gpu).select(*MATCH, gpu_s="median_s"), on=list(MATCH))
                .sort("model", "batch")
            )
            points = _balanced(points)
            if points.height < MIN_POINTS or points["batch"].n_unique() < MIN_BATCHES:
                continue
            rho = {
                (a, b): _rho(points, a, b, seed, resamples) for a, b in combinations(VARIABLES, 2)
            }
            found.append(LatencyMatrix(cpu, gpu, points, rho))
    return found


def _balanced(points: pl.DataFrame) -> pl.DataFrame:
    """The largest set of models (each on one input) measured at the same batch sizes on both
    devices (the seed's ten at 1, 64 and 256), so that models from other groups, timed at
    other batches, do not enter the matrix unevenly; ties go to more batch sizes."""
    if points.is_empty():
        return points
    inputs = ["model", "dataset"]  # ResNet-18 on CIFAR-10 is another series than on ImageNet
    sets = points.group_by(inputs).agg(pl.col("batch").sort().alias("batches"))
    counted = Counter(tuple(b) for b in sets["batches"].to_list())
    chosen = max(counted, key=lambda b: (counted[b], len(b), b))
    kept = [(m, d) for m, d, b in sets.select(*inputs, "batches").rows() if tuple(b) == chosen]
    chosen_inputs = pl.DataFrame(kept, schema=inputs, orient="row")
    return points.join(chosen_inputs, on=inputs).sort("model", "dataset", "batch")


def _rho(points: pl.DataFrame, a: str, b: str, seed: int, resamples: int) -> Interval | None:
    have = points.drop_nulls([a, b])  # a model without a parameter count drops out of its pairs
    return spearman(have[a].to_list(), have[b].to_list(), seed, resamples)
