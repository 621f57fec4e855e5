"""What the uncalibrated runs say where a verdict is "not testable until re-measured": a
provisional reading beside the rule, which decides nothing.

A verdict rests only on calibrated intervals (analysis/verdicts.py). Where a result it needs
has none, the runs still say something: each pooled run's own value (`Result.runs`, its own
median) gives the claim's ratio (or a trend's change) once per pair of runs, and the least
favourable pair is the one nearest to failing the claim. The reading states the range over
the pairs, that pair, and by how much it clears or misses the expected bound (a factor: its
ratio over the lower bound, or the upper bound over its ratio, whichever is smaller).
Labelled provisional: one process per run says nothing of the next process."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

from generator.analysis.results import Result
from generator.analysis.verdict_needs import (
    DEVICE,
    MATRIX_KEYS,
    NO_UPPER_BOUND,
    RESULT,
    MatrixKey,
    RatioKey,
    ResultRow,
    order,
)
from generator.config import Expectation
from generator.formatting import number

PROVISIONAL = "Provisional reading"
RATIO_KEYS: tuple[RatioKey, ...] = (
    "device", DEVICE, "phase", "precision", "compile", "model", "dataset", "batch"
)  # fmt: skip


def ratio_key(numerator: str, denominator: str, rows: Sequence[ResultRow]) -> RatioKey | None:
    """The matrix key whose values name both sides of a `ratio` claim (the device kind
    first: `["cuda", "cpu"]`)."""
    return next(
        (k for k in RATIO_KEYS if {numerator, denominator} <= {str(row[k]) for row in rows}),
        None,
    )


def run_values(result: Result, metric: str) -> list[tuple[str, float]]:
    """(run id, the metric from that run's own median) for every run the result pools."""
    found = []
    for run in result.runs:
        step = run.step.value
        if metric == "step_time":
            found.append((run.run_id, step))
        elif metric == "throughput":
            found.append((run.run_id, result.batch / step))
        elif metric == "modelled_flops_per_s" and result.modelled_flops:
            found.append((run.run_id, result.modelled_flops / step))
    return found


@dataclass(frozen=True)
class Pair:
    ratio: float
    top: str  # run id
    bottom: str  # run id
    where: str


def margin(value: float, low: float, high: float) -> float:
    """How far `value` is inside [low, high] as a factor (>= 1: it clears, < 1: it misses
    by 1 / margin): its ratio to the nearer bound."""
    below = value / low if low > 0 else float("inf")
    above = high / value if high < NO_UPPER_BOUND and value > 0 else float("inf")
    return min(below, above)


def _pairs(
    rows: Sequence[ResultRow], key: RatioKey, top: str, bottom: str, metric: str
) -> list[Pair]:
    """Every pair of runs (one per side) of each setting of the other keys."""
    others = [k for k in MATRIX_KEYS if k != key and not (key == "device" and k == DEVICE)]
    settings: dict[tuple[str | int, ...], list[ResultRow]] = {}
    for row in rows:
        settings.setdefault(tuple(row[k] for k in others), []).append(row)
    found = []
    for setting in settings.values():
        results = {id(result): (r, result) for r in setting if (result := r[RESULT]) is not None}
        tops = [(r, result) for r, result in results.values() if str(r[key]) == top]
        bottoms = [(r, result) for r, result in results.values() if str(r[key]) == bottom]
        for (a, ra_result), (b, rb_result) in product(tops, bottoms):
            where = _where(a, b, others, rows)
            for (ra, va), (rb, vb) in product(
                run_values(ra_result, metric), run_values(rb_result, metric)
            ):
                found.append(Pair(va / vb, ra, rb, where))
    return found


def _where(a: ResultRow, b: ResultRow, others: list[MatrixKey], rows: Sequence[ResultRow]) -> str:
    varied = [k for k in others if len({str(r[k]) for r in rows}) > 1]
    parts = [f"{k} {a[k]}" for k in varied if k != DEVICE]
    if a[DEVICE] != b[DEVICE]:
        parts.append(f"{a[DEVICE]} against {b[DEVICE]}")
    elif DEVICE in varied:
        parts.append(f"on {a[DEVICE]}")
    return ", ".join(parts)


def _times(value: float) -> str:
    return f"{number(value, 3)}×"


def reading(expect: Expectation, rows: Sequence[ResultRow], swept: MatrixKey | None) -> str:
    """The provisional reading of a not-testable verdict, or "" where the claim has no
    ratio or trend to read (saturation, a share of a ceiling)."""
    if expect.ratio is not None and expect.between is not None:
        top, bottom = expect.ratio
        key = ratio_key(top, bottom, rows)
        if key is None:
            return ""
        low, high = expect.between
        pairs = _pairs(rows, key, top, bottom, expect.metric)
        claim = f"{expect.metric.replace('_', ' ')} of {top} over {bottom}"
        expected = (
            f"at least {number(low, 3)}" if high >= NO_UPPER_BOUND
            else f"between {number(low, 3)} and {number(high, 3)}"
        )  # fmt: skip
        return _said(pairs, claim, expected, low, high)
    if expect.trend in ("increases", "decreases") and swept is not None:
        pairs = _trend_pairs(rows, swept, expect.metric)
        claim = f"{expect.metric.replace('_', ' ')} at the largest {swept} over the smallest"
        if expect.trend == "increases":
            return _said(pairs, claim, "above 1: it increases", 1.0, NO_UPPER_BOUND)
        return _said(pairs, claim, "below 1: it decreases", 0.0, 1.0)
    return ""


def _trend_pairs(rows: Sequence[ResultRow], swept: MatrixKey, metric: str) -> list[Pair]:
    """Each device's first and last setting along the swept key, every pair of their runs."""
    found = []
    for device in dict.fromkeys(r[DEVICE] for r in rows):
        mine = [
            (r, result) for r in rows if r[DEVICE] == device and (result := r[RESULT]) is not None
        ]
        if len({str(r[swept]) for r, _ in mine}) < 2:
            continue
        ordered = sorted(mine, key=lambda pair: order(pair[0], swept))
        (first, first_result), (last, last_result) = ordered[0], ordered[-1]
        where = f"{swept} {last[swept]} over {first[swept]} on {device}"
        for (ra, va), (rb, vb) in product(
            run_values(last_result, metric), run_values(first_result, metric)
        ):
            found.append(Pair(va / vb, ra, rb, where))
    return found


def _said(pairs: Sequence[Pair], claim: str, expected: str, low: float, high: float) -> str:
    if not pairs:
        return ""
    worst = min(pairs, key=lambda p: margin(p.ratio, low, high))
    factor = margin(worst.ratio, low, high)
    verdict = (
        f"clears it by {_times(factor)}" if factor >= 1 else f"misses it by {_times(1 / factor)}"
    )
    ratios = sorted(p.ratio for p in pairs)
    span = _times(ratios[0]) if len(ratios) == 1 else f"{_times(ratios[0])} to {_times(ratios[-1])}"
    return (
        f"{PROVISIONAL} (each run's own median, with no calibrated interval: it decides "
        f"nothing until re-measured): the runs give {claim} of {span} over {len(pairs)} "
        f"pair{'s' if len(pairs) != 1 else ''} of runs (expected {expected}); the least "
        f"favourable pair, {worst.top} against {worst.bottom}"
        + (f" ({worst.where})" if worst.where else "")
        + f", gives {_times(worst.ratio)}, which {verdict}."
    )
