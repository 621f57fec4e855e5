"""One verdict per step, computed once and printed the same way by every page that names a
bound: the bound class by one rule (`bound_words.bound_regime`: the side of the ridge, and
latency/overhead-bound under 10 % of the roof), the fraction of the roof and the attained
FLOP/s each with the interval of the time they rest on, and which time that is.

Three times measure different things, and the verdict always says which one it rests on:
- the timed median: unprofiled steps, timed one after another; its interval comes from them.
  This is the number to quote for a step.
- kernel time: the summed kernels of one step under Nsight Compute (clocks locked to base,
  caches flushed between replays): longer kernels, no host time, and no interval.
- the profiled step: one step under torch.profiler, which adds its own overhead; no interval.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.analysis.bound_words import LATENCY, bound_regime
from generator.analysis.interval import Interval
from generator.analysis.launch import HOST_BOUND, LaunchTime
from generator.analysis.roofs import Roof
from generator.formatting import number, seconds, si

TIMED = "timed median"
KERNEL = "kernel time"
PROFILED = "costed ops of the profiled step"  # costed: a formula gave their FLOPs
TIME_BASES = {
    TIMED: "The timed median is the configuration's one result (the results stage): across "
    "its blocks (independent processes) with the 95 % re-measurement interval where it was "
    "timed in blocks (calibrated); within its one process where it was timed in one, an "
    "interval that says nothing of the next process; and no interval where several runs "
    "were each timed in one process.",
    KERNEL: "Kernel time is the summed kernel time of one step profiled under Nsight Compute "
    "(clocks locked to base, caches flushed): no host time, and no interval.",
    PROFILED: "The profiled step is one step under torch.profiler, with the profiler's "
    "overhead: no interval.",
}


@dataclass(frozen=True)
class StepVerdict:
    side: str  # "compute" or "memory": the side of the ridge the point's AI is on
    bound: str  # side, or latency/overhead under 10 % of the roof
    ai: float  # FLOP/byte
    attained: Interval  # FLOP/s
    of_roof: Interval  # attained / roof at this AI
    time: Interval  # seconds
    roof: Roof
    time_basis: str  # TIMED, KERNEL or PROFILED
    flops_kind: str  # "modelled", "counted" or "analytic"
    # the step's host launch time beside its GPU time (CUDA); host-bound (launch) overrides
    # the roofline's words: the host, not the arithmetic or memory, sets the step's time
    launch: LaunchTime | None = None

    @property
    def host_bound(self) -> bool:
        return self.launch is not None and self.launch.host_bound

    @property
    def bound_class(self) -> str:
        """The class a table or a count uses: host-bound (launch) first, else the bound."""
        return HOST_BOUND if self.host_bound else f"{self.bound}-bound"

    @property
    def point(self) -> str:
        """The kind of point it rests on: modelled, counted or trace (analytics.points)."""
        return {"analytic": "trace"}.get(self.flops_kind, self.flops_kind)

    @property
    def above_roof(self) -> bool:
        """Faster than its roof allows: the roof (a measured ceiling) is no ceiling."""
        return self.of_roof.value > 1

    def words(self) -> str:
        """The bound and the fraction of the roof with its interval, e.g.
        "compute-bound at 41.2 % [40.1, 42] of the roof"."""
        roofline = self._roofline_words()
        if self.launch is not None and self.launch.host_bound:
            return f"{self.launch.words()}; on the roofline, {roofline}"
        return roofline

    def _roofline_words(self) -> str:
        share = self.of_roof.percent_text()
        if self.above_roof:
            return (
                f"{self.bound} side at {share} of the roof: above it, so this roof is no "
                "ceiling for this step"
            )
        if self.bound == LATENCY:
            return f"{LATENCY}-bound at {share} of the roof (under 10 %; {self.side} side of the ridge)"
        return f"{self.bound}-bound at {share} of the roof"

    def basis(self) -> str:
        """What the verdict rests on, in one clause."""
        return (
            f"{self.flops_kind} FLOPs over the {self.time_basis} {self.time.text(seconds)}, "
            f"against the {self.roof.label} roof"
        )

    def facts(self) -> list[tuple[str, str]]:
        """The verdict as the rows of a page's table."""
        return [
            ("bound", self.words()),
            ("attained", self.attained.text(lambda v: si(v, "FLOP/s"))),
            ("arithmetic intensity", f"{number(self.ai)} FLOP/byte ({self.flops_kind})"),
            ("roof at this AI", f"{si(self.roof.at(self.ai), 'FLOP/s')} ({self.roof.label})"),
            ("ridge point", f"{number(self.roof.ridge_ai)} FLOP/byte"),
            (f"time it rests on: {self.time_basis}", self.time.text(seconds)),
            # host-bound: the bound row above says it; else the launch times in their own row
            *(
                [("host launch", self.launch.words())]
                if self.launch and not self.host_bound
                else []
            ),
        ]


def step_verdict(
    flops: float | None,
    nbytes: float | None,
    time: Interval | None,
    roof: Roof | None,
    time_basis: str,
    flops_kind: str,
    launch: LaunchTime | None = None,
) -> StepVerdict | None:
    """None when a part is missing: then no bound is claimed."""
    if not flops or not nbytes or time is None or not time.value or roof is None:
        return None
    ai = flops / nbytes
    at = roof.at(ai)
    attained = time.inverse(flops)  # a longer time is a lower rate: the ends swap
    of_roof = attained.scaled(1 / at)
    side = "compute" if ai >= roof.ridge_ai else "memory"
    regime = bound_regime(side, of_roof.value)
    assert regime is not None  # of_roof is known
    return StepVerdict(
        side, regime, ai, attained, of_roof, time, roof, time_basis, flops_kind, launch
    )
