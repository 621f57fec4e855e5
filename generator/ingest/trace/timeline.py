"""Who contains whom in a trace: op nesting per thread, launches inside ops, and the named
ranges (steps, phases, layers) an event falls in.

Ops on one thread nest properly (Kineto records them as a call stack), so a stack sweep in
start order gives each op its parent. Ranges are looked up by start time across all threads
of the process: autograd may run backward ops on its own thread, outside the range's thread.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass

from generator.ingest.trace.read import Events

NO_PARENT = -1


def op_parents(ops: Events) -> list[int]:
    """The enclosing op of each op on the same thread, or NO_PARENT."""
    parents = [NO_PARENT] * len(ops)
    for indices in _by_thread(ops).values():
        indices.sort(key=lambda i: (ops.ts[i], -ops.dur[i]))
        stack: list[int] = []
        for i in indices:
            while stack and ops.ts[i] >= ops.ts[stack[-1]] + ops.dur[stack[-1]]:
                stack.pop()
            if stack:
                parents[i] = stack[-1]
            stack.append(i)
    return parents


def enclosing_ops(ops: Events, events: Events) -> list[int]:
    """The innermost op on the same thread that contains each event's start (launches)."""
    found = [NO_PARENT] * len(events)
    threads = _by_thread(ops)
    for thread, indices in _by_thread(events).items():
        op_indices = sorted(threads.get(thread, []), key=lambda i: (ops.ts[i], -ops.dur[i]))
        starts = [ops.ts[i] for i in op_indices]
        indices.sort(key=lambda i: events.ts[i])
        stack: list[int] = []
        cursor = 0
        for e in indices:
            t = events.ts[e]
            while cursor < len(op_indices) and starts[cursor] <= t:
                i = op_indices[cursor]
                while stack and ops.ts[i] >= ops.ts[stack[-1]] + ops.dur[stack[-1]]:
                    stack.pop()
                stack.append(i)
                cursor += 1
            while stack and t >= ops.ts[stack[-1]] + ops.dur[stack[-1]]:
                stack.pop()
            if stack:
                found[e] = stack[-1]
    return found


def self_times(ops: Events, parents: list[int]) -> list[float]:
    """Each op's duration less its children's (never below zero)."""
    remaining = list(ops.dur)
    for child, parent in enumerate(parents):
        if parent != NO_PARENT:
            remaining[parent] -= ops.dur[child]
    return [max(0.0, r) for r in remaining]


@dataclass(frozen=True)
class Windows:
    """The innermost (shortest) named range active at each moment of one process."""

    boundaries: list[float]
    names: list[str | None]  # names[k]: the range active from boundaries[k] to the next

    def at(self, t: float) -> str | None:
        k = bisect.bisect_right(self.boundaries, t) - 1
        return self.names[k] if 0 <= k < len(self.names) else None


def windows(ranges: Events, keep: set[int]) -> Windows:
    """Windows over the ranges whose indices are in `keep`."""
    chosen = sorted(keep, key=lambda i: ranges.ts[i])
    points = sorted({ranges.ts[i] for i in chosen} | {ranges.ts[i] + ranges.dur[i] for i in chosen})
    names: list[str | None] = []
    by_start = chosen
    active: list[int] = []
    cursor = 0
    for lo in points:
        while cursor < len(by_start) and ranges.ts[by_start[cursor]] <= lo:
            active.append(by_start[cursor])
            cursor += 1
        active = [i for i in active if ranges.ts[i] + ranges.dur[i] > lo]
        innermost = min(active, key=lambda i: ranges.dur[i]) if active else None
        names.append(ranges.name[innermost] if innermost is not None else None)
    return Windows(points, names)


def _by_thread(events: Events) -> dict[tuple[str, str], list[int]]:
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, key in enumerate(zip(events.pid, events.tid, strict=True)):
        groups[key].append(i)
    return groups
