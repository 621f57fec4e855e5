"""Eager against compiled, per configuration: each side's one result (`analysis/results.py`,
the same median and interval every page states), the speedup by the report's one ratio
method (`Interval.ratio`: the ratio of the interval ends, of the weaker kind), the compile
time, and how many steps pay it back.

The two sides may come from `measure` calls days apart: a calibrated interval holds the
variation between calls (the calibration records measure it), so their ratio does too.

Steps to pay back: the cold compile time (the first block, nothing cached) over the time
each compiled step saves; none when compiling saves nothing."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

from generator.analysis.interval import Interval
from generator.analysis.results import Result
from generator.analysis.speedups import sides
from generator.ingest.runs import RunRow, run_rows
from generator.records.run_modes import EAGER

CONFIG = ("device_label", "model", "dataset", "batch", "phase", "precision")


@dataclass(frozen=True)
class CompileComparison:
    """One configuration measured eager and in one compile mode: each side's result, and
    the runs-table row of the run each result's first run is (its compile time, memory and
    phases)."""

    eager: Result
    compiled: Result
    eager_row: RunRow
    compiled_row: RunRow

    @property
    def mode(self) -> str:
        return self.compiled.compile

    @property
    def speedup(self) -> Interval:
        """eager / compiled: how many times faster the compiled step is."""
        return self.eager.step.ratio(self.compiled.step)

    @property
    def saved_s(self) -> float:
        return self.eager.step.value - self.compiled.step.value

    @property
    def compile_s(self) -> float | None:
        value = self.compiled_row.get("compile_s")
        return float(value) if value is not None else None

    @property
    def payback_steps(self) -> float | None:
        """Steps until the cold compile time is paid back; None when nothing is saved (or
        the compile time is unknown)."""
        if self.compile_s is None or self.saved_s <= 0:
            return None
        return math.ceil(self.compile_s / self.saved_s)

    @property
    def verdict(self) -> str:
        """faster or slower where a calibrated interval excludes 1; otherwise why not."""
        speedup = self.speedup
        if not speedup.calibrated:
            return "not testable until re-measured (an interval is not calibrated)"
        if speedup.excludes(1.0):
            return "faster" if speedup.value > 1 else "slower"
        return "not shown either way"


def compile_comparisons(
    results: Mapping[str, Result], runs: pl.DataFrame
) -> list[CompileComparison]:
    """Every configuration with a result both eager and compiled, by device, model, batch
    and phase."""
    if runs.is_empty():
        return []
    rows = {row["run_id"]: row for row in run_rows(runs)}
    found = [
        CompileComparison(base[0], result, rows[base[0].run_ids[0]], rows[result.run_ids[0]])
        for by_mode in sides(results.values(), "compile", CONFIG).values()
        if len(base := by_mode.get(EAGER, [])) == 1 and base[0].run_ids[0] in rows
        for mode, compiled in by_mode.items()
        if mode != EAGER
        for result in compiled
        if result.run_ids[0] in rows
    ]
    return sorted(found, key=lambda c: (c.compiled.device_label, c.compiled.model,
                                        c.compiled.batch, c.compiled.phase, c.mode))  # fmt: skip
