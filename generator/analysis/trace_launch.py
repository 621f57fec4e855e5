"""A torch.profiler trace's host launch time beside its GPU busy time: the PROFILED pair
that `launch.py`'s one rule judges.

Per profiled step (each `ProfilerStep#N` range; without one, the whole trace from the first
op still running when the first GPU work is launched, so that set-up on the CPU alone is
left out):
- the host's enqueue time: the span from the step's first CPU op (or first launch call,
  where one comes before any op) to the end of its last launch call (a runtime call that
  launched a kernel or a memset), less the host's waits
  for the GPU inside that span (synchronize calls, and device-to-host copies, which block
  until the stream drains): waiting is no enqueueing. A copy call never ends the span, as
  it may block. An event belongs to the step its start falls in;
- the GPU's busy time for the step's work: the union of the kernels, copies and sets that
  the step's calls launched (joined by correlation id), wherever they ran; a union, not a
  sum, because streams overlap.
Several steps give the medians of each, as the timed source does.
"""

from __future__ import annotations

import bisect
import statistics
from dataclasses import asdict, dataclass
from typing import Any

from generator.analysis.launch import PROFILED, LaunchTime
from generator.ingest.trace.labels import STEP_PREFIX
from generator.ingest.trace.read import RawTrace

STEPS = "ProfilerStep ranges"
WHOLE_TRACE = "the whole trace (no ProfilerStep ranges)"
WAIT_CALL = "Synchronize"  # cuda/hip Stream-, Device-, EventSynchronize: the host waits
WAIT_COPY = "DtoH"  # a device-to-host copy: its call returns when the stream has drained
Intervals = list[tuple[float, float]]
INF = float("inf")


@dataclass(frozen=True)
class StepLaunch:
    """One step's pair, in seconds."""

    step: str  # the range's name, or "trace"
    host_s: float  # the enqueue span less the waits in it
    gpu_s: float  # the busy union of the step's GPU work
    waits_s: float  # the host's waits inside the enqueue span (taken out of host_s)
    launches: int  # calls that launched GPU work


@dataclass(frozen=True)
class TraceLaunch:
    """The trace's steps' pairs and what they rest on; `why` says why there are none."""

    scope: str  # STEPS or WHOLE_TRACE
    steps: tuple[StepLaunch, ...] = ()
    why: str = ""  # why `steps` is empty

    @property
    def time(self) -> LaunchTime | None:
        """The pair the rule judges: the one step's, or the medians over the steps."""
        if not self.steps:
            return None
        host = statistics.median(s.host_s for s in self.steps)
        gpu = statistics.median(s.gpu_s for s in self.steps)
        return LaunchTime(host, gpu, PROFILED, len(self.steps))

    @property
    def waits_s(self) -> float:
        """The host's waits taken out of its enqueue time (median over the steps)."""
        return statistics.median(s.waits_s for s in self.steps) if self.steps else 0.0

    def where(self) -> str:
        """What the pair rests on: "ProfilerStep#3", "4 profiled steps, medians", or the
        whole trace."""
        if self.scope == WHOLE_TRACE:
            return WHOLE_TRACE
        if len(self.steps) == 1:
            return self.steps[0].step
        return f"{len(self.steps)} profiled steps, medians"

    def as_json(self) -> dict[str, Any]:
        """The stored form (trace_work.py keeps it in the stored analysis's metadata)."""
        return {"scope": self.scope, "why": self.why, "steps": [asdict(s) for s in self.steps]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TraceLaunch:
        steps = tuple(
            StepLaunch(str(s["step"]), float(s["host_s"]), float(s["gpu_s"]),
                       float(s["waits_s"]), int(s["launches"]))
            for s in data["steps"]
        )  # fmt: skip
        return cls(str(data["scope"]), steps, str(data["why"]))


def union_us(intervals: Intervals) -> float:
    """The length of the intervals' union."""
    total, end = 0.0, float("-inf")
    for lo, hi in sorted(intervals):
        if hi > end:
            total += hi - max(lo, end)
            end = hi
    return total


@dataclass(frozen=True)
class _Trace:
    """What every step reads of the trace, indexed once: the launch calls and the ops'
    starts in time order, the GPU work by correlation id (µs)."""

    calls: list[int]  # launch-call indices by start
    call_starts: list[float]
    op_starts: list[float]  # sorted
    work: dict[int, Intervals]  # each id's kernels, copies and sets
    ending: set[int]  # the ids of kernels and sets: their calls end an enqueue span
    to_host: set[int]  # the ids of device-to-host copies: their calls are waits


def _indexed(trace: RawTrace) -> _Trace:
    work: dict[int, Intervals] = {}
    for table in (trace.kernels, trace.memcpy, trace.memset):
        for ts, dur, correlation in zip(table.ts, table.dur, table.correlation, strict=True):
            if correlation is not None:
                work.setdefault(correlation, []).append((ts, ts + dur))
    ending = {c for t in (trace.kernels, trace.memset) for c in t.correlation if c is not None}
    copies = zip(trace.memcpy.name, trace.memcpy.correlation, strict=True)
    to_host = {c for name, c in copies if c is not None and WAIT_COPY in name}
    calls = sorted(range(len(trace.launches)), key=lambda i: trace.launches.ts[i])
    starts = [trace.launches.ts[i] for i in calls]
    return _Trace(calls, starts, sorted(trace.ops.ts), work, ending, to_host)


def _first_op(
    trace: RawTrace, index: _Trace, lo: float, hi: float, first_launch: float
) -> float | None:
    """The enqueue span's start: the first op that starts in the step; in the whole trace,
    the first op still running at the first launch (set-up before it is no enqueueing)."""
    if lo == -INF:
        ops = zip(trace.ops.ts, trace.ops.dur, strict=True)
        return min((ts for ts, dur in ops if ts + dur > first_launch), default=None)
    k = bisect.bisect_left(index.op_starts, lo)
    return index.op_starts[k] if k < len(index.op_starts) and index.op_starts[k] < hi else None


def _step(trace: RawTrace, index: _Trace, name: str, lo: float, hi: float) -> StepLaunch | None:
    """The pair of the step whose events start in [lo, hi), or None when nothing in it
    launched a kernel or no op ran in it."""
    calls = trace.launches
    span = slice(
        bisect.bisect_left(index.call_starts, lo), bisect.bisect_left(index.call_starts, hi)
    )
    inside = index.calls[span]
    launched = [
        (i, c) for i in inside if (c := calls.correlation[i]) is not None and c in index.work
    ]
    ends = [calls.ts[i] + calls.dur[i] for i, c in launched if c in index.ending]
    first = _first_op(trace, index, lo, hi, calls.ts[launched[0][0]]) if launched else None
    if not ends or first is None:
        return None
    # a launch outside any recorded op (rare) may come first: the span holds it too
    first, last = min(first, calls.ts[launched[0][0]]), max(ends)
    waits = [
        (max(calls.ts[i], first), min(calls.ts[i] + calls.dur[i], last))
        for i in inside
        if WAIT_CALL in calls.name[i] or calls.correlation[i] in index.to_host
    ]
    waited = union_us([(a, b) for a, b in waits if a < b])
    busy = union_us([interval for _, c in launched for interval in index.work[c]])
    host = (last - first - waited) * 1e-6
    return StepLaunch(name, host, busy * 1e-6, waited * 1e-6, len(launched))


def _why_none(trace: RawTrace) -> str:
    if not len(trace.ops):
        return "the trace records no CPU ops (profile with ProfilerActivity.CPU too)"
    if not len(trace.launches):
        return "the trace records no CPU-side launch calls"
    return "no step both runs CPU ops and launches a kernel (launch calls joined to kernels)"


def trace_launch(trace: RawTrace) -> TraceLaunch:
    """The trace's launch time: each step's pair (the rule judges their medians)."""
    if not (len(trace.kernels) or len(trace.memcpy) or len(trace.memset)):
        return TraceLaunch(WHOLE_TRACE, why="no GPU activity in the trace (a CPU trace)")
    ranges = trace.ranges
    windows = sorted(
        (ranges.ts[i], ranges.ts[i] + ranges.dur[i], name)
        for i, name in enumerate(ranges.name)
        if name.startswith(STEP_PREFIX)
    )
    scope = STEPS if windows else WHOLE_TRACE
    index = _indexed(trace)
    found = [_step(trace, index, n, lo, hi) for lo, hi, n in windows or [(-INF, INF, "trace")]]
    steps = tuple(s for s in found if s is not None)
    if not steps:
        return TraceLaunch(scope, why=_why_none(trace))
    return TraceLaunch(scope, steps)
