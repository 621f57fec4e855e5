"""What a verdict rests on: each row's result (`verdicts.group_rows` puts it under RESULT), a
metric of it with its interval, and whether those intervals are calibrated; a verdict that
needs a calibrated interval it lacks is NOT_TESTABLE, with the command that re-measures it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from generator.analysis.interval import Interval
from generator.analysis.results import Result
from generator.ingest.runs import RunRow

NOT_TESTABLE = "not testable until re-measured"
RESULT: Final = "result"  # the key under which group_rows puts each row's Result
# The concrete device (ingest.runs' device_label), not its kind: two GPUs are both `cuda`.
DEVICE: Final = "device_label"
MatrixKey = Literal["model", "dataset", "batch", "phase", "precision", "compile", "device_label"]
# A key a claim compares along: a matrix key, or the device kind (`ratio = ["cuda", "cpu"]`).
RatioKey = Literal[MatrixKey, "device"]
MATRIX_KEYS: tuple[MatrixKey, ...] = (
    "model", "dataset", "batch", "phase", "precision", "compile", DEVICE
)  # fmt: skip


class ResultRow(RunRow):
    """A run's row with its workload's one result (None: the workload has no timed steps)."""

    result: Result | None


def with_result(row: RunRow, result: Result | None) -> ResultRow:
    return ResultRow(**row, result=result)


def order(row: RunRow, key: RatioKey | Literal["run_id"]) -> tuple[int, str]:
    """A row's place along `key`: batches by number, the rest by name."""
    return (row["batch"], "") if key == "batch" else (0, str(row[key]))


NO_UPPER_BOUND = 1e9  # `between = [10, 1.0e9]` in experiments.toml: a floor and no ceiling


@dataclass(frozen=True)
class Verdict:
    outcome: str  # supported, not supported, inconclusive, mixed (devices disagree),
    # NOT_TESTABLE (a result it needs has no calibrated interval), not evaluated
    reason: str


def metric_interval(row: ResultRow, metric: str) -> Interval | None:
    """A metric of the row's result (`group_rows` puts it under RESULT) with its interval:
    throughput and FLOP/s are the step time's inverted; the modelled AI is analytic (exact,
    no interval)."""
    result = row[RESULT]
    if result is None:
        return None
    if metric == "step_time":
        return result.step
    if metric == "throughput":
        return result.throughput
    if metric == "modelled_flops_per_s":
        return result.attained
    if metric == "modelled_ai" and (ai := row["modelled_ai"]):
        return Interval(ai)
    return None


def untestable(rows: Sequence[ResultRow]) -> Verdict | None:
    """NOT_TESTABLE, in one line with the commands, when a row's result lacks a calibrated
    interval; None when all have one."""
    missing = {
        id(result): result
        for r in rows
        if (result := r[RESULT]) is not None and not result.step.calibrated
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
