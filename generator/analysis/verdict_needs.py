"""What a verdict rests on: each row's result (`verdicts.group_rows` puts it under RESULT), a
metric of it with its interval, and whether those intervals are calibrated; a verdict that
needs a calibrated interval it lacks is NOT_TESTABLE, with the command that re-measures it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.analysis.interval import Interval
from generator.analysis.results import Result

NOT_TESTABLE = "not testable until re-measured"
RESULT = "result"  # the key under which group_rows puts each row's Result
# The concrete device (ingest.runs' device_label), not its kind: two GPUs are both `cuda`.
DEVICE = "device_label"
MATRIX_KEYS = ("model", "dataset", "batch", "phase", "precision", "compile", DEVICE)
NO_UPPER_BOUND = 1e9  # `between = [10, 1.0e9]` in experiments.toml: a floor and no ceiling


@dataclass(frozen=True)
class Verdict:
    outcome: str  # supported, not supported, inconclusive, mixed (devices disagree),
    # NOT_TESTABLE (a result it needs has no calibrated interval), not evaluated
    reason: str


def metric_interval(row: dict[str, Any], metric: str) -> Interval | None:
    """A metric of the row's result (`group_rows` puts it under RESULT) with its interval:
    throughput and FLOP/s are the step time's inverted; the modelled AI is analytic (exact,
    no interval)."""
    result: Result | None = row.get(RESULT)
    if result is None:
        return None
    if metric == "step_time":
        return result.step
    if metric == "throughput":
        return result.throughput
    if metric == "modelled_flops_per_s":
        return result.attained
    if metric == "modelled_ai" and row.get("modelled_ai"):
        return Interval(float(row["modelled_ai"]))
    return None


def untestable(rows: list[dict[str, Any]]) -> Verdict | None:
    """NOT_TESTABLE, in one line with the commands, when a row's result lacks a calibrated
    interval; None when all have one."""
    missing = {
        id(r[RESULT]): r[RESULT]
        for r in rows
        if r.get(RESULT) is not None and not r[RESULT].step.calibrated
    }
    if not missing:
        return None
    by_device: dict[str, list[str]] = {}
    for result in missing.values():
        name = f"{result.model} b{result.batch} {result.phase} {result.precision}"
        by_device.setdefault(result.device_label, []).append(name)
    names = "; ".join(f"{', '.join(sorted(n))} on {d}" for d, n in sorted(by_device.items()))
    commands = " and ".join(sorted({f"`{result.remeasure}`" for result in missing.values()}))
    return Verdict(
        NOT_TESTABLE,
        f"it needs calibrated intervals (across processes), and {len(missing)} of the results "
        f"it rests on were timed in one process ({names}): re-measure with {commands}",
    )
