"""The verdict of a kernel page (an ncu export's counted step over its kernel time) and of a
trace page (a profiled step's analytic FLOPs over its time), by the same rule as a run's."""

from __future__ import annotations

from generator.analysis.interval import Interval
from generator.analysis.roofs import Roof
from generator.analysis.step_verdict import KERNEL, PROFILED, StepVerdict, step_verdict
from generator.analysis.trace_analysis import TraceAnalysis
from generator.analysis.views import MeasurementView


def export_verdict(view: MeasurementView) -> StepVerdict | None:
    step, bound, device = view.step, view.bound, view.match.device
    if bound is None or device is None or step.time_s is None:
        return None
    # a measured run's counted point sits under its run's roof, as on its run page
    roof = view.roof or Roof(
        f"{device.name} {bound.precision} datasheet",
        bound.peak_flops_per_s,
        bound.bandwidth_bytes_per_s,
    )
    return step_verdict(step.flops, step.dram_bytes, Interval(step.time_s), roof, KERNEL, "counted")


def trace_verdict(analysis: TraceAnalysis, run_roof: Roof | None = None) -> StepVerdict | None:
    """`run_roof`: a measured run's roof, under which its trace point sits on its run page."""
    total, roof = analysis.total, analysis.roof
    path = str(total.get("path") or "")
    peak = roof.peak(path) if roof is not None and path else None
    if run_roof is None and (roof is None or not peak):
        return None
    under = run_roof
    if under is None:
        assert roof is not None and peak
        under = Roof(f"{roof.name} {path} ({roof.source})", peak, roof.bandwidth_bytes_per_s)
    return step_verdict(
        _number(total.get("flops")),
        _number(total.get("bytes")),
        # the counted ops' time: the totals' attained rate and fraction of the roof use it
        Interval(float(total.get("counted_time_s") or total["time_s"])),  # type: ignore[arg-type]
        under,
        PROFILED,
        "analytic",
    )


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None
