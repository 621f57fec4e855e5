"""The check of a measured run's per-layer times. They come from the profiled step, which
runs under torch.profiler and carries its overhead; the timed phases come from unprofiled
steps. Where the layers of a phase add up to more than the timed phase, the page must say
that they are profiled time, not a share of the timed step."""

from __future__ import annotations

from collections.abc import Mapping

from generator.analysis.thresholds import PROFILER_OVERHEAD_RATIO
from generator.findings.run_checks import RunEvidence
from generator.findings.specs import PROFILER_OVERHEAD
from generator.formatting import number, seconds
from generator.records.finding import Finding


def profiler_overhead(
    layer_s: Mapping[str, float], phase_median_s: Mapping[str, float | None]
) -> list[Finding]:
    """One finding naming every phase whose layers sum above PROFILER_OVERHEAD_RATIO x its
    timed median."""
    over = [
        (phase, total, timed)
        for phase, total in layer_s.items()
        if (timed := phase_median_s.get(phase)) and total > PROFILER_OVERHEAD_RATIO * timed
    ]
    if not over:
        return []
    parts = "; ".join(
        f"{phase}: layers {seconds(total)} against {seconds(timed)} timed "
        f"({number(total / timed, 3)}×)"
        for phase, total, timed in over
    )
    return [
        PROFILER_OVERHEAD.found(
            "Per-layer times are profiled time, above the timed phase",
            f"the per-layer times come from the profiled step and add up to more than "
            f"{number(PROFILER_OVERHEAD_RATIO, 3)}× the timed median of their phase ({parts}): "
            "the profiler's own overhead is in them",
        )
    ]


def profiler_overhead_of(run: RunEvidence) -> list[Finding]:
    """The RUN check (run_checks): the run's layers.csv against its timed phases."""
    return profiler_overhead(run.layer_s, run.phase_median_s)
