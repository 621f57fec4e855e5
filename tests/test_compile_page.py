"""Eager against compiled: the comparison's arithmetic on made-up results, and what the
committed results hold (at least five CPU configurations in both modes, each compiled run
with its compile time and a measured peak beside its analytic footprint)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from generator.analysis.compile_compare import CompileComparison, compile_comparisons
from generator.analysis.interval import CALIBRATED, ONE_PROCESS, Interval
from generator.analysis.results import Result, RunTime
from generator.analysis.results import results as make_results
from generator.records.calibration import session_cvs
from generator.site.context import build_context
from generator.site.load import load_measurements
from tests.helpers import REPO


def _result(run_id: str, mode: str, median: float, low: float, high: float, batch: int = 8,
            kind: str = CALIBRATED) -> Result:  # fmt: skip
    step = Interval(median, low, high, kind, 5)
    return Result(
        workload=run_id, model="m", dataset="d", batch=batch, phase="inference",
        precision="fp32", device="cpu", device_name="EPYC", device_label="EPYC",
        runs=(RunTime(run_id, "T", step, True),), groups=("T",), step=step, iterations=100,
        compile=mode,
    )  # fmt: skip


def _row(run_id: str, **extra: Any) -> dict[str, Any]:
    return {"run_id": run_id, "compile_s": extra.get("compile_s")}


def _pair(eager: Result, compiled: Result, compile_s: float | None = None) -> CompileComparison:
    row = _row(compiled.run_ids[0], compile_s=compile_s)
    return CompileComparison(eager, compiled, _row(eager.run_ids[0]), row)


def test_speedup_interval_payback_and_verdict() -> None:
    eager = _result("e", "eager", 0.010, 0.009, 0.011)
    item = _pair(eager, _result("c", "compile", 0.005, 0.004, 0.006), compile_s=20.0)
    assert item.speedup.value == pytest.approx(2.0)
    # the report's one ratio interval: the ratio of the ends
    assert item.speedup.low == pytest.approx(0.009 / 0.006)
    assert item.speedup.high == pytest.approx(0.011 / 0.004)
    assert item.payback_steps == 4000  # 20 s over 5 ms saved per step
    assert item.verdict == "faster"
    slower = _pair(eager, _result("s", "compile", 0.02, 0.015, 0.03))
    assert slower.payback_steps is None and slower.verdict == "slower"
    unsure = _pair(eager, _result("u", "compile", 0.0095, 0.008, 0.012))
    assert unsure.verdict == "not shown either way"
    # an interval within one process decides nothing
    one = _pair(eager, _result("o", "compile", 0.005, 0.004, 0.006, kind=ONE_PROCESS))
    assert one.verdict.startswith("not testable until re-measured")


def test_pairs_are_found_by_configuration_and_device() -> None:
    found = {
        "e": _result("e", "eager", 0.01, 0.009, 0.011),
        "c": _result("c", "compile", 0.005, 0.004, 0.006),
        "x": _result("x", "compile", 0.005, 0.004, 0.006, batch=16),  # no eager partner
    }
    runs = pl.DataFrame([_row("e"), _row("c", compile_s=3.0), _row("x")])
    pairs = compile_comparisons(found, runs)
    assert [(i.eager.run_ids, i.compiled.run_ids) for i in pairs] == [(("e",), ("c",))]
    assert pairs[0].compile_s == 3.0


def test_the_committed_report_compares_at_least_five_cpu_configurations(tmp_path: Path) -> None:
    loaded = load_measurements(build_context(REPO / "measurements", tmp_path))
    committed = make_results(loaded.runs, loaded.steps, session_cvs(loaded.calibrations))
    pairs = compile_comparisons(committed, loaded.runs)
    cpu = [i for i in pairs if i.compiled.device == "cpu" and i.mode == "compile"]
    assert len(cpu) >= 5
    for item in cpu:
        assert item.compile_s is not None and item.compile_s > 0
        assert item.compiled_row["memory_bytes"] is not None
        assert item.compiled_row["memory_bytes"] > 0
        assert item.compiled_row["memory_analytic_bytes"] > 0
        assert item.compiled.step.calibrated and item.eager.step.calibrated
