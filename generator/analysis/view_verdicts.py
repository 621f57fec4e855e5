"""The verdict of a kernel page (an ncu export's counted step over its kernel time) and of a
trace page (a profiled step's analytic FLOPs over its time), by the same rule as a run's,
each under the roof its page's chart draws."""

from __future__ import annotations

from generator.analysis.interval import Interval
from generator.analysis.roofs import Roof
from generator.analysis.step_verdict import KERNEL, PROFILED, StepVerdict, step_verdict
from generator.analysis.trace_analysis import TraceAnalysis
from generator.analysis.views import MeasurementView


def export_verdict(view: MeasurementView) -> StepVerdict | None:
    """The counted step under the page's roof (a measured run's: its run's, as on its run
    page; an import's: its device's for the precision that dominates the FLOPs)."""
    step = view.step
    if view.bound is None or step.time_s is None:
        return None
    roof = view.bound.roof
    return step_verdict(step.flops, step.dram_bytes, Interval(step.time_s), roof, KERNEL, "counted")


def trace_roof(analysis: TraceAnalysis, run_roof: Roof | None = None) -> Roof | None:
    """The roof a trace page's verdict uses: a measured run's roof (its trace point sits under
    it on its run page), else the roof of the path that carries most of the trace's FLOPs."""
    if run_roof is not None:
        return run_roof
    return analysis.roofs.get(str(analysis.total.get("path") or ""))


def trace_verdict(analysis: TraceAnalysis, run_roof: Roof | None = None) -> StepVerdict | None:
    """`run_roof`: a measured run's roof, under which its trace point sits on its run page."""
    total = analysis.total
    return step_verdict(
        _number(total.get("flops")),
        _number(total.get("bytes")),
        # the counted ops' time: the totals' attained rate and fraction of the roof use it
        Interval(float(total.get("counted_time_s") or total["time_s"])),  # type: ignore[arg-type]
        trace_roof(analysis, run_roof),
        PROFILED,
        "analytic",
    )


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None
