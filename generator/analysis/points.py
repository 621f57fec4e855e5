"""The three kinds of roofline point of one configuration, side by side, and the one rule that
picks its headline bound.

- modelled: the analytic FLOPs and minimal bytes of the step over its result's timed median
  (the only one with an interval, of the result's kind);
- counted: the FLOPs and DRAM bytes Nsight Compute counted over the summed kernel time of one
  profiled step (clocks locked to base, caches flushed; no host time);
- trace: the analytic FLOPs and minimal bytes of the ops torch.profiler recorded over their
  kernel (or CPU self) time in one profiled step.

All three sit under the same roof (`roofs.roof_for` of the device and the run's precision), so
they differ only by their FLOPs, bytes and time, and `WHY` says how. The headline bound
follows `HEADLINE_RULE` on every page: counted where Nsight Compute profiled the step, else
the trace, else the modelled point."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from generator.analysis.interval import Interval
from generator.analysis.launch import LaunchTime
from generator.analysis.results import Result
from generator.analysis.roofs import PREFERRED, Roof, roof_for
from generator.analysis.step_verdict import KERNEL, PROFILED, TIMED, StepVerdict, step_verdict
from generator.analysis.views import MeasurementView, TraceView
from generator.catalog import Device
from generator.formatting import number, si
from generator.records.ceilings import MeasuredCeilings

MODELLED, COUNTED, TRACE = "modelled", "counted", "trace"
HEADLINE_ORDER = (COUNTED, TRACE, MODELLED)
HEADLINE_RULE = (
    "The headline bound of a step is its counted point where Nsight Compute profiled it, "
    "else its trace point, else its modelled point; every page that names the step's bound "
    "names this one, with the kind of point it rests on."
)
WHY = {  # what each kind of point divides
    MODELLED: "the modelled point, the analytic FLOPs and minimal bytes over the timed step "
    "(host time and gaps included)",
    COUNTED: "the counted point, the FLOPs and the DRAM bytes the hardware counted (what "
    "reached memory: cache hits absent, re-reads present) over the kernel time under Nsight "
    "Compute (clocks locked, no host time)",
    TRACE: "the trace point, the analytic FLOPs and minimal bytes of the ops the profiler "
    "recorded over their own kernel (or CPU) time in one profiled step",
}


@dataclass(frozen=True)
class Points:
    """One configuration's points (None where it was not measured that way)."""

    modelled: StepVerdict | None = None
    counted: StepVerdict | None = None
    trace: StepVerdict | None = None

    def by_kind(self) -> dict[str, StepVerdict | None]:
        return {MODELLED: self.modelled, COUNTED: self.counted, TRACE: self.trace}

    @property
    def headline_kind(self) -> str | None:
        found = self.by_kind()
        return next((kind for kind in HEADLINE_ORDER if found[kind] is not None), None)

    @property
    def headline(self) -> StepVerdict | None:
        kind = self.headline_kind
        return None if kind is None else self.by_kind()[kind]

    def why(self) -> str:
        """One sentence on why its points differ."""
        kinds = [kind for kind, found in self.by_kind().items() if found is not None]
        if len(kinds) < 2:
            return ""
        return (
            "The points share one roof and differ only in what they divide: "
            + "; ".join(WHY[kind] for kind in kinds)
            + "."
        )

    def rows(self) -> list[list[str]]:
        """The points side by side: one row per kind of point that exists."""
        table = []
        for kind, found in self.by_kind().items():
            if found is None:
                continue
            mark = " (headline)" if kind == self.headline_kind else ""
            table.append(
                [f"{kind}{mark}", f"{si(found.attained.value * found.time.value, 'FLOP')}",
                 f"{number(found.ai)} FLOP/byte", f"{found.time_basis}: "
                 f"{found.time.text(lambda v: si(v, 's'))}",
                 found.attained.text(lambda v: si(v, "FLOP/s")), found.words()]
            )  # fmt: skip
        return table


def _counted(
    view: MeasurementView | None, under: Roof, launch: LaunchTime | None
) -> StepVerdict | None:
    time = view.step.time_s if view is not None else None
    if view is None or time is None:
        return None
    step = view.step
    return step_verdict(step.flops, step.dram_bytes, Interval(time), under, KERNEL, COUNTED, launch)


def _trace(view: TraceView | None, under: Roof, launch: LaunchTime | None) -> StepVerdict | None:
    if view is None:
        return None
    total = view.analysis.total
    time = total.get("counted_time_s") or total.get("time_s")
    flops, nbytes = total.get("flops"), total.get("bytes")
    if not isinstance(time, float) or not isinstance(flops, float) or not isinstance(nbytes, float):
        return None
    return step_verdict(flops, nbytes, Interval(time), under, PROFILED, "analytic", launch)


def result_points(
    result: Result,
    views: Mapping[str, MeasurementView],
    traces: Mapping[str, TraceView],
    ceilings: Sequence[MeasuredCeilings],
    catalog: tuple[Device, ...] | None = None,
) -> Points:
    """A result's points: its modelled point, and the counted and trace points of the first
    of its runs (by id) that was profiled that way; `views` and `traces` by slug."""
    under = roof_for(result.device_label, result.precision, PREFERRED, ceilings, catalog)
    if under is None:
        return Points()
    view = next((views[s] for r in result.run_ids if (s := f"run-{r}") in views), None)
    trace = next((traces[s] for r in result.run_ids if (s := f"run-{r}") in traces), None)
    launch = result.launch  # the step's diagnosis, whichever point heads it
    modelled = step_verdict(
        result.modelled_flops, result.modelled_bytes, result.step, under, TIMED, MODELLED, launch
    )
    return Points(modelled, _counted(view, under, launch), _trace(trace, under, launch))


def all_points(
    results: Mapping[str, Result],
    views: Sequence[MeasurementView],
    traces: Sequence[TraceView],
    ceilings: Sequence[MeasuredCeilings],
    catalog: tuple[Device, ...] | None = None,
) -> dict[str, Points]:
    """Workload -> its points, for every result."""
    by_slug = {view.slug: view for view in views}
    trace_by_slug = {trace.slug: trace for trace in traces if trace.kind == "run"}
    return {
        workload: result_points(result, by_slug, trace_by_slug, ceilings, catalog)
        for workload, result in results.items()
    }


def headline_verdicts(
    results: Mapping[str, Result], points: Mapping[str, Points]
) -> dict[str, StepVerdict]:
    """Run id -> its configuration's headline verdict, for every run of every result."""
    found = {}
    for workload, result in results.items():
        headline = points[workload].headline if workload in points else None
        if headline is not None:
            found.update(dict.fromkeys(result.run_ids, headline))
    return found
