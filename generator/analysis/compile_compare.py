"""Eager against compiled, per configuration: each side's median and stated interval (the
runs table's, the same the other pages show), the speedup with an interval, the compile
time, and how many steps pay it back.

The speedup is eager's median over the compiled one's. Its interval takes each side's
stated 95 % interval (the re-measurement interval of a result timed in blocks, which holds
the variation between invocations: the two sides may come from different `measure` calls)
at its least and most favourable ends, eager low / compiled high to eager high / compiled
low: wider than a bootstrap of the two medians, and honest about two separate invocations.

Steps to pay back: the cold compile time (the first block, nothing cached) over the time
each compiled step saves; none when compiling saves nothing."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import polars as pl

from generator.analysis.per_workload import one_per_workload
from generator.hierarchical import t_quantile
from generator.records.run_modes import EAGER

CONFIG = ("device_label", "model", "dataset", "batch", "phase", "precision")


@dataclass(frozen=True)
class CompileComparison:
    """One configuration measured eager and in one compile mode (`eager`, `compiled`: their
    rows of the runs table)."""

    mode: str
    eager: dict[str, Any]
    compiled: dict[str, Any]

    @property
    def speedup(self) -> float:
        return float(self.eager["median_s"]) / float(self.compiled["median_s"])

    @property
    def speedup_interval(self) -> tuple[float, float] | None:
        e_low, e_high = self.eager.get("ci_low_s"), self.eager.get("ci_high_s")
        c_low, c_high = self.compiled.get("ci_low_s"), self.compiled.get("ci_high_s")
        if not (e_low and e_high and c_low and c_high):
            return None
        return float(e_low) / float(c_high), float(e_high) / float(c_low)

    @property
    def saved_s(self) -> float:
        return float(self.eager["median_s"]) - float(self.compiled["median_s"])

    @property
    def payback_steps(self) -> float | None:
        """Steps until the cold compile time is paid back; None when nothing is saved (or
        the compile time is unknown)."""
        compile_s = self.compiled.get("compile_s")
        if compile_s is None or self.saved_s <= 0:
            return None
        return math.ceil(float(compile_s) / self.saved_s)

    @property
    def verdict(self) -> str:
        """faster, slower, or not shown (the interval includes 1)."""
        interval = self.speedup_interval
        if interval is None:
            return "no interval"
        if interval[0] > 1:
            return "faster"
        return "slower" if interval[1] < 1 else "not shown either way"


def compile_comparisons(runs: pl.DataFrame) -> list[CompileComparison]:
    """Every configuration measured both eager and compiled (one row per workload), by
    device, model, batch and phase."""
    if "compile" not in runs.columns or runs.is_empty():
        return []
    points = one_per_workload(runs).to_dicts()
    eager: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in points:
        if row["compile"] == EAGER:
            eager.setdefault(tuple(row[k] for k in CONFIG), row)
    found = [
        CompileComparison(str(row["compile"]), base, row)
        for row in points
        if row["compile"] != EAGER and (base := eager.get(tuple(row[k] for k in CONFIG)))
    ]
    return sorted(found, key=lambda c: (*tuple(str(c.compiled[k]) for k in CONFIG[:2]), int(c.compiled["batch"]), str(c.compiled["phase"]), c.mode))  # fmt: skip


def same_call_speedup(eager: Any, compiled: Any) -> tuple[float, float, float] | None:
    """eager / compiled when both were re-measured in one call (`calibration.Result`s): the
    ratio of their estimates with a Welch interval over their block medians' spread
    (`block_median_cv`, per side, on the log scale). The variation between calls is left
    out: one call's conditions are shared by both sides, so it does not move their ratio."""
    cv_e, cv_c = eager.block_median_cv, compiled.block_median_cv
    if cv_e is None or cv_c is None or eager.blocks < 2 or compiled.blocks < 2:
        return None
    var_e, var_c = cv_e**2 / eager.blocks, cv_c**2 / compiled.blocks
    total = var_e + var_c
    parts = var_e**2 / (eager.blocks - 1) + var_c**2 / (compiled.blocks - 1)
    df = int(min(1000.0, total**2 / parts)) if parts > 0 else 1000
    half = t_quantile(max(df, 1)) * math.sqrt(total)
    ratio = float(eager.median_s) / float(compiled.median_s)
    return ratio, ratio * math.exp(-half), ratio * math.exp(half)
