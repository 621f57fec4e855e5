"""Measured latency by layer family (seed 003's Figures 8 and 9, for AlexNet and ResNet-18):
each profiled run's per-layer times (its layers.csv, the per-layer join of its trace) summed
per family, with each family's share of the layers' total."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from generator.formatting import percent, si

FAMILY_MODELS = ("alexnet", "resnet18")  # the two models seed 003 splits by layer family


@dataclass(frozen=True)
class FamilyLatency:
    """One profiled run's layer times by family."""

    label: str  # the run in a few words: device, batch, phase
    times: dict[str, float]  # family -> seconds, summed over its layers and phases

    @property
    def total(self) -> float:
        return sum(self.times.values())

    def cell(self, family: str) -> str:
        """ "42.1 % (1.2 ms)", or "–" where the run has no layer of the family."""
        seconds = self.times.get(family)
        if seconds is None or not self.total:
            return "–"
        return f"{percent(100 * seconds / self.total)} ({si(seconds, 's')})"


def family_latency(label: str, layers: pl.DataFrame) -> FamilyLatency | None:
    """A run's layers.csv summed per family; None when it has no timed layer."""
    if layers.is_empty() or not {"family", "time_s"} <= set(layers.columns):
        return None
    timed = layers.filter(pl.col("time_s").is_not_null())
    if timed.is_empty():
        return None
    sums = timed.group_by("family").agg(pl.col("time_s").sum())
    return FamilyLatency(label, {r["family"]: float(r["time_s"]) for r in sums.to_dicts()})


def family_table(runs: Sequence[FamilyLatency]) -> list[list[str]]:
    """Rows: a family and its cell per run, families by their largest share first."""
    families = {family for run in runs for family in run.times}

    def largest(family: str) -> float:
        return max(run.times.get(family, 0.0) / run.total for run in runs if run.total)

    order = sorted(families, key=lambda family: (-largest(family), family))
    return [[family, *(run.cell(family) for run in runs)] for family in order]
