"""Eager against compiled: the comparison's arithmetic on made-up rows, and what the
committed results hold (at least five CPU configurations in both modes, each compiled run
with its compile time and a measured peak beside its analytic footprint)."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from generator.analysis.compile_compare import CompileComparison, compile_comparisons
from generator.ingest.runs import load_runs
from tests.helpers import REPO


def _row(run_id: str, mode: str, median: float, low: float, high: float, **extra: Any) -> dict[str, Any]:  # fmt: skip
    return {"run_id": run_id, "workload": run_id, "status": "ok", "compile": mode,
            "device_label": "EPYC", "model": "m", "dataset": "d", "batch": 8,
            "phase": "inference", "precision": "fp32", "median_s": median, "ci_low_s": low,
            "ci_high_s": high, "compile_s": extra.get("compile_s")}  # fmt: skip


def test_speedup_interval_payback_and_verdict() -> None:
    eager = _row("e", "eager", 0.010, 0.009, 0.011)
    compiled = _row("c", "compile", 0.005, 0.004, 0.006, compile_s=20.0)
    item = CompileComparison("compile", eager, compiled)
    assert item.speedup == pytest.approx(2.0)
    low, high = item.speedup_interval or (0, 0)
    assert low == pytest.approx(0.009 / 0.006) and high == pytest.approx(0.011 / 0.004)
    assert item.payback_steps == 4000  # 20 s over 5 ms saved per step
    assert item.verdict == "faster"
    slower = CompileComparison("compile", eager, _row("s", "compile", 0.02, 0.015, 0.03))
    assert slower.payback_steps is None and slower.verdict == "slower"
    unsure = CompileComparison("compile", eager, _row("u", "compile", 0.0095, 0.008, 0.012))
    assert unsure.verdict == "not shown either way"


def test_pairs_are_found_by_configuration_and_device() -> None:
    runs = pl.DataFrame([
        _row("e", "eager", 0.01, 0.009, 0.011),
        _row("c", "compile", 0.005, 0.004, 0.006, compile_s=3.0),
        {**_row("x", "compile", 0.005, 0.004, 0.006), "batch": 16},  # no eager partner
    ])  # fmt: skip
    found = compile_comparisons(runs)
    assert [(i.eager["run_id"], i.compiled["run_id"]) for i in found] == [("e", "c")]
    assert compile_comparisons(runs.drop("compile")) == []


def test_the_committed_report_compares_at_least_five_cpu_configurations() -> None:
    runs = load_runs(REPO / "measurements")
    found = [i for i in compile_comparisons(runs) if i.compiled["device_label"] == i.eager["device_label"]]  # fmt: skip
    cpu = [i for i in found if str(i.compiled["run_id"]).split("-")[-3:-1] == ["cpu", "compile"]]
    assert len(cpu) >= 5
    for item in cpu:
        assert item.compiled["compile_s"] is not None and item.compiled["compile_s"] > 0
        assert item.compiled["memory_bytes"] is not None and item.compiled["memory_bytes"] > 0
        assert item.compiled["memory_analytic_bytes"] > 0


def test_the_speedup_in_one_call_needs_both_sides_from_that_call() -> None:
    from types import SimpleNamespace

    from generator.pages.compiled import _same_call

    eager = SimpleNamespace(median_s=0.010, blocks=5, block_median_cv=0.1)
    compiled = SimpleNamespace(median_s=0.020, blocks=5, block_median_cv=0.1)
    again = {"e": ("2026-11-27 03:43", eager), "c": ("2026-11-27 03:43", compiled)}
    # Welch: se = sqrt(2 * 0.01 / 5) = 0.0632, df = 8, t = 2.306: x exp(+-0.1458) = [0.4322, 0.5785]
    assert _same_call("e", "c", again) == "0.5× [0.432, 0.579]"
    assert _same_call("e", "c", {**again, "c": ("2026-11-28 10:00", compiled)}) == "not in one call"
    assert _same_call("e", "x", again) == "n/a"
