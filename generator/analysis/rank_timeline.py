"""One rank's profiled steps split in time: compute, communication, the time both ran at
once (overlap) and the time neither ran (idle).

On a GPU the busy time is its kernels' (a kernel belongs to the step whose CPU range
launched it): NCCL/RCCL kernels are communication, every other kernel compute. Without
kernels (a CPU run, e.g. DDP over gloo) compute is the time the step's thread spends inside
ops, and communication the collective ops and ranges of any thread of the process
(`c10d::allreduce_`, gloo's `gloo:all_reduce` on its worker threads), clipped to the step.
Each is a union of intervals, so nested or concurrent events are counted once:
idle = step − |compute ∪ communication|, exposed communication = communication − overlap.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass

import polars as pl

from generator.analysis.kernels import COMMUNICATION
from generator.ingest.trace.labels import STEP_PREFIX
from generator.ingest.trace.read import Events, RawTrace

IS_COMMUNICATION = re.compile(COMMUNICATION.removeprefix("(?i)"), re.IGNORECASE)
US = 1e-6  # the trace's microseconds, in seconds

TIMELINE_SCHEMA = {
    "step": pl.String,
    "start_s": pl.Float64,  # from the rank's first profiled step
    "step_s": pl.Float64,
    "compute_s": pl.Float64,
    "communication_s": pl.Float64,
    "overlap_s": pl.Float64,
    "idle_s": pl.Float64,
}

Interval = tuple[float, float]


@dataclass(frozen=True)
class StepWindow:
    name: str
    start: float  # microseconds, as the trace writes them
    end: float
    thread: tuple[str, str]  # (pid, tid) of the step's range


def merged(intervals: Iterable[Interval]) -> list[Interval]:
    """The union of the intervals, as disjoint intervals in time order."""
    out: list[Interval] = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def length(intervals: list[Interval]) -> float:
    return sum(end - start for start, end in intervals)


def overlap(a: list[Interval], b: list[Interval]) -> float:
    """Time covered by both unions (each disjoint and in time order)."""
    total, i, j = 0.0, 0, 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if end > start:
            total += end - start
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


class Covered:
    """A union of intervals (disjoint, in time order, as `merged` gives them) that answers
    how much of any window it covers in O(log n): a capture asks it once per NVTX range or
    timeline slice, and walking every interval each time would be quadratic."""

    def __init__(self, intervals: list[Interval]) -> None:
        self.starts = [s for s, _ in intervals]
        self.ends = [e for _, e in intervals]
        self.before = list(itertools.accumulate((e - s for s, e in intervals), initial=0.0))

    def within(self, lo: float, hi: float) -> float:
        first = bisect.bisect_right(self.ends, lo)  # the first interval ending after lo
        stop = bisect.bisect_left(self.starts, hi)  # and those starting before hi
        if hi <= lo or first >= stop:
            return 0.0
        total = self.before[stop] - self.before[first]
        return total - max(0.0, lo - self.starts[first]) - max(0.0, self.ends[stop - 1] - hi)


def _clipped(intervals: Iterable[Interval], window: StepWindow) -> list[Interval]:
    return merged(
        (max(s, window.start), min(e, window.end))
        for s, e in intervals
        if e > window.start and s < window.end
    )


def step_windows(trace: RawTrace) -> list[StepWindow]:
    """The `ProfilerStep#N` ranges, in time order."""
    ranges = trace.ranges
    found = [
        StepWindow(name, ts, ts + dur, (pid, tid))
        for name, ts, dur, pid, tid in zip(
            ranges.name, ranges.ts, ranges.dur, ranges.pid, ranges.tid, strict=True
        )
        if name.startswith(STEP_PREFIX)
    ]
    return sorted(found, key=lambda w: w.start)


def _spans(events: Events, keep: Iterable[int]) -> list[Interval]:
    return [(events.ts[i], events.ts[i] + events.dur[i]) for i in keep]


Busy = tuple[list[Interval], list[Interval]]  # (compute, communication)


def _gpu_busy(trace: RawTrace, windows: list[StepWindow]) -> list[Busy]:
    """Per step: (compute, communication) kernel intervals, each kernel in the step whose
    range holds its launch (or, with no launch recorded, its start)."""
    launched = dict(zip(trace.launches.correlation, trace.launches.ts, strict=True))
    starts = [w.start for w in windows]
    per_step: list[Busy] = [([], []) for _ in windows]
    kernels = trace.kernels
    for i, name in enumerate(kernels.name):
        correlation = kernels.correlation[i]
        at = launched.get(correlation, kernels.ts[i]) if correlation is not None else kernels.ts[i]
        step = _window_at(starts, windows, at)
        if step is None:
            continue
        span = (kernels.ts[i], kernels.ts[i] + kernels.dur[i])
        per_step[step][1 if IS_COMMUNICATION.search(name) else 0].append(span)
    return [(merged(c), merged(m)) for c, m in per_step]


def _window_at(starts: list[float], windows: list[StepWindow], at: float) -> int | None:
    index = bisect.bisect_right(starts, at) - 1
    if index >= 0 and at <= windows[index].end:
        return index
    return None


def _cpu_busy(trace: RawTrace, windows: list[StepWindow]) -> list[Busy]:
    """Per step: (compute, communication) on the CPU: the step thread's ops, and the
    process's collective ops and ranges on any thread."""
    ops, ranges = trace.ops, trace.ranges
    collective = _spans(ops, (i for i, n in enumerate(ops.name) if IS_COMMUNICATION.search(n)))
    collective += _spans(
        ranges, (i for i, n in enumerate(ranges.name) if IS_COMMUNICATION.search(n))
    )
    by_thread: dict[tuple[str, str], list[Interval]] = {}
    for i, name in enumerate(ops.name):
        if not IS_COMMUNICATION.search(name):
            by_thread.setdefault((ops.pid[i], ops.tid[i]), []).append(
                (ops.ts[i], ops.ts[i] + ops.dur[i])
            )
    return [(_clipped(by_thread.get(w.thread, []), w), _clipped(collective, w)) for w in windows]


def rank_timeline(trace: RawTrace) -> pl.DataFrame:
    """One row per profiled step: its time and how it splits (TIMELINE_SCHEMA)."""
    windows = step_windows(trace)
    if not windows:
        return pl.DataFrame(schema=TIMELINE_SCHEMA)
    busy = _gpu_busy(trace, windows) if len(trace.kernels) else _cpu_busy(trace, windows)
    first = windows[0].start
    rows = []
    for window, (compute, communication) in zip(windows, busy, strict=True):
        step = window.end - window.start
        both = overlap(compute, communication)
        either = length(compute) + length(communication) - both
        rows.append(
            {
                "step": window.name,
                "start_s": (window.start - first) * US,
                "step_s": step * US,
                "compute_s": length(compute) * US,
                "communication_s": length(communication) * US,
                "overlap_s": both * US,
                # kernels can outlast their step's CPU range: never a negative idle
                "idle_s": max(step - either, 0.0) * US,
            }
        )
    return pl.DataFrame(rows, schema=TIMELINE_SCHEMA)
