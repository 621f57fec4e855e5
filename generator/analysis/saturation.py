"""Throughput against batch size, and where it stops paying to grow the batch.

A series is one model, dataset, phase and precision on one concrete device, measured at
three or more batch sizes (one point per workload: its one result, analysis/results.py).
Each point's throughput interval is its step-time interval inverted, of the same kind
(calibrated, within one process, or none); a step whose points lack an interval is
undecided.

**The rule.** Each step from a batch `a` to the next larger batch `b` is judged on the
intervals, per doubling (sweeps are not always doublings): with `d = log2(b / a)` doublings
and the threshold `f = 1.10 ** d`,

- the step *rises* (gains at least 10 % per doubling) only when the lower end of `b`'s
  interval is at least `f` times the upper end of `a`'s;
- the step is *flat* (gains under 10 % per doubling; a loss is flat too) only when the upper
  end of `b`'s interval is below `f` times the lower end of `a`'s;
- otherwise the intervals straddle the threshold and the step is *undecided*.

The saturation point is the smallest batch after which every further step is flat, and it
must have at least one step after it. Conservatively:

- the last step that is not flat decides. None: the series is flat from its smallest batch
  (it saturates there, or below). A rising one before the last step: it saturates at the
  batch that step reaches. An undecided one before the last step: it has saturated by the
  batch that step reaches, and the point lies between the batch after the last rising step
  and that batch (`earliest` .. `point`).
- the last step rises: throughput keeps rising to the largest batch ("rising").
- the last step is undecided: "undetermined". Overlapping intervals never decide anything.

A gain's interval is the report's one ratio interval (`Interval.ratio`: the ratio of interval
ends, `low_b / high_a .. high_b / low_a`, then per doubling), of the weaker kind of the two:
it holds whenever both points' intervals hold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

import polars as pl

from generator.analysis.interval import Interval
from generator.analysis.results import Result
from generator.analysis.verdict_needs import DEVICE, RESULT, MatrixKey, ResultRow, with_result
from generator.formatting import number
from generator.ingest.runs import run_rows

SERIES_KEYS: tuple[MatrixKey, ...] = ("model", "dataset", "phase", "precision", DEVICE)
MIN_BATCHES = 3
GAIN_PER_DOUBLING = 0.10  # "saturated": each doubling of the batch gains less than this
PHASE_NAMES = {"train_step": "training", "inference": "inference"}


@dataclass(frozen=True)
class Point:
    """One batch size of a series: its result's throughput (samples/s) with its interval."""

    batch: int
    rate: Interval
    workload: str

    @property
    def throughput(self) -> float:
        return self.rate.value

    @property
    def low(self) -> float | None:
        return self.rate.low

    @property
    def high(self) -> float | None:
        return self.rate.high


@dataclass(frozen=True)
class Step:
    """From one batch to the next: the gain per doubling of the batch, its interval, and
    what the intervals allow to say (rises, flat, undecided)."""

    smaller: int
    larger: int
    doublings: float
    gain: float  # per doubling: 0.05 is +5 %
    gain_low: float | None  # None: a point has no interval
    gain_high: float | None
    call: str
    ratio: Interval  # throughput b ÷ a, the whole step, with its kind


@dataclass(frozen=True)
class Series:
    model: str
    dataset: str
    phase: str
    precision: str
    device: str
    points: tuple[Point, ...]
    steps: tuple[Step, ...]
    status: str  # saturates, rising, undetermined
    point: int | None  # the saturation batch (the latest it can be)
    earliest: int | None  # the earliest it can be (== point when the steps decide it)

    @property
    def name(self) -> str:
        """'resnet18 training (cifar10, fp32)': what the series measured."""
        phase = PHASE_NAMES.get(self.phase, self.phase)
        return f"{self.model} {phase} ({self.dataset}, {self.precision})"


def point_of(row: ResultRow) -> Point | None:
    """A run row's point: its result's throughput (`verdicts.group_rows` and
    `throughput_series` put the result under RESULT); None without one."""
    result = row[RESULT]
    if result is None:
        return None
    return Point(row["batch"], result.throughput, row["workload"])


def judge_step(a: Point, b: Point) -> Step:
    """The step from a to b (b the larger batch), judged on the intervals per doubling."""
    doublings = math.log2(b.batch / a.batch)
    threshold = (1 + GAIN_PER_DOUBLING) ** doublings
    ratio = b.rate.ratio(a.rate)
    if ratio.low is None or ratio.high is None or not ratio.calibrated:
        call = "undecided"  # only calibrated intervals decide
    elif ratio.low >= threshold:
        call = "rises"
    elif ratio.high < threshold:
        call = "flat"
    else:
        call = "undecided"

    def per_doubling(value: float | None) -> float | None:
        return None if value is None else float(value ** (1 / doublings) - 1)

    gain = per_doubling(ratio.value)
    assert gain is not None
    return Step(
        a.batch, b.batch, doublings, gain, per_doubling(ratio.low), per_doubling(ratio.high),
        call, ratio,
    )  # fmt: skip


def saturation(points: list[Point], steps: list[Step]) -> tuple[str, int | None, int | None]:
    """(status, point, earliest) by the module's rule."""
    last = next((i for i in range(len(steps) - 1, -1, -1) if steps[i].call != "flat"), None)
    if last is None:
        return "saturates", points[0].batch, points[0].batch
    if last == len(steps) - 1:
        return ("rising" if steps[last].call == "rises" else "undetermined"), None, None
    point = points[last + 1].batch
    if steps[last].call == "rises":
        return "saturates", point, point
    rose = next((i for i in range(last - 1, -1, -1) if steps[i].call == "rises"), None)
    return "saturates", point, points[0 if rose is None else rose + 1].batch


def series_of(rows: Sequence[ResultRow]) -> Series | None:
    """One series from its rows (any order, one or more rows per workload)."""
    by_batch: dict[int, Point] = {}
    for row in rows:
        found = point_of(row)
        if found is not None:
            by_batch.setdefault(found.batch, found)
    points = [by_batch[b] for b in sorted(by_batch)]
    if len(points) < MIN_BATCHES:
        return None
    steps = [judge_step(a, b) for a, b in pairwise(points)]
    status, point, earliest = saturation(points, steps)
    first = rows[0]
    return Series(
        first["model"], first["dataset"], first["phase"],
        first["precision"], first[DEVICE], tuple(points), tuple(steps),
        status, point, earliest,
    )  # fmt: skip


def throughput_series(runs: pl.DataFrame, results: Mapping[str, Result]) -> list[Series]:
    """Every series of the ok runs with at least MIN_BATCHES batch sizes, by device, then
    model and the rest of the series key; `results`: workload -> its Result."""
    ok = runs.filter(pl.col("status") == "ok").unique("workload", keep="first", maintain_order=True)
    parts: dict[tuple[str, ...], list[ResultRow]] = {}
    for row in (with_result(r, results.get(r["workload"])) for r in run_rows(ok)):
        parts.setdefault(tuple(str(row[k]) for k in SERIES_KEYS), []).append(row)
    found = [series_of(parts[key]) for key in sorted(parts, key=lambda k: (k[-1], *k[:-1]))]
    return [s for s in found if s is not None]


def series_outcomes(rows: Sequence[ResultRow]) -> list[tuple[str, str, str]]:
    """(device, outcome, sentence) of each series in a group's rows, for the `saturates`
    verdict: supported where it saturates, not supported where it keeps rising,
    inconclusive where the intervals cannot decide."""
    parts: dict[tuple[str, ...], list[ResultRow]] = {}
    for row in rows:
        parts.setdefault(tuple(str(row[k]) for k in SERIES_KEYS), []).append(row)
    found = [s for key in sorted(parts) if (s := series_of(parts[key])) is not None]
    outcome = {"saturates": "supported", "rising": "not supported"}
    return [(s.device, outcome.get(s.status, "inconclusive"), describe(s)) for s in found]


def rate(value: float) -> str:
    """Samples/s to four significant digits, thousands separated (never 6.5e+04)."""
    return f"{value:,.0f}" if value >= 1000 else number(value)


def signed_percent(value: float) -> str:
    """+3 %, −5 % (a true minus sign): gains read with their sign."""
    text = number(100 * value, 2 if abs(value) < 0.1 else 3)
    return f"−{text.lstrip('-')} %" if value < 0 else f"+{text} %"


def gain_words(step: Step) -> str:
    """'−1 % [−5 %, +3 %] (calibrated, 10 processes)' per doubling: a step's gain."""
    if step.gain_low is None or step.gain_high is None:
        return f"{signed_percent(step.gain)} (no interval: not calibrated)"
    return (
        f"{signed_percent(step.gain)} [{signed_percent(step.gain_low)}, "
        f"{signed_percent(step.gain_high)}] ({step.ratio.short_kind()})"
    )


def gain_text(step: Step) -> str:
    """'doubling to 256 gains −1 % [−5 %, +3 %]', per doubling when the step is not one."""
    where = (
        f"doubling to {step.larger} gains"
        if math.isclose(step.doublings, 1.0)
        else f"going to {step.larger} gains"
    )
    per = "" if math.isclose(step.doublings, 1.0) else " per doubling"
    return f"{where} {gain_words(step)}{per}"


def describe(series: Series) -> str:
    """The series' sentence, with its numbers."""
    subject = f"{series.name} on {series.device}"
    if series.status == "saturates":
        assert series.point is not None
        index = next(i for i, p in enumerate(series.points) if p.batch == series.point)
        p = series.points[index]
        at = p.rate.text(lambda v: f"{rate(v)} samples/s", rate)
        where = f"at batch {series.point}"
        if series.earliest != series.point:
            where = (
                f"by batch {series.point} (from batch {series.earliest} on at the earliest: "
                "the steps between cannot be decided)"
            )
        elif index == 0:
            where = f"at batch {series.point}, the smallest measured, or below"
        return f"{subject} saturates {where}: {at}; {gain_text(series.steps[index])}."
    last = series.steps[-1]
    if series.status == "rising":
        return (
            f"{subject} keeps rising to batch {last.larger}: {gain_text(last)}, "
            f"at least {signed_percent(GAIN_PER_DOUBLING)} per doubling."
        )
    if not last.ratio.calibrated:
        return (
            f"{subject}: the saturation point is undetermined: {gain_text(last)}; only "
            "calibrated intervals (across processes) decide a step."
        )
    return (
        f"{subject}: the saturation point is undetermined: {gain_text(last)}, an interval "
        f"that straddles {signed_percent(GAIN_PER_DOUBLING)} per doubling."
    )
