"""What an experiment group's runs say: the swept variable, observations written from the
numbers, and a verdict on the group's stated expectation.

A verdict needs a checkable claim (`expect` in experiments.toml): a trend of a metric over
the swept variable, or a ratio between two of its values. It rests on each configuration's one
result (analysis/results.py) and only on calibrated intervals (re-measurement intervals
across processes, `interval.CALIBRATED`): where a result it needs has none, the verdict is
"not testable until re-measured", with the command that re-measures it. It is
"inconclusive" whenever the calibrated intervals that decide it overlap. It is judged on each
concrete device apart (an H100 and an A100 are both `cuda` in the config), and "mixed" when
the devices disagree."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import polars as pl

from generator.analysis.host_decided import host_note
from generator.analysis.interval import Interval
from generator.analysis.provisional import ratio_key, reading
from generator.analysis.results import Result
from generator.analysis.roofs import CeilingOf
from generator.analysis.saturation import MIN_BATCHES, series_outcomes
from generator.analysis.verdict_needs import (
    DEVICE,
    MATRIX_KEYS,
    NO_UPPER_BOUND,
    NOT_TESTABLE,
    MatrixKey,
    RatioKey,
    ResultRow,
    Verdict,
    metric_interval,
    order,
    untestable,
    with_result,
)
from generator.config import ExperimentsFile, Group
from generator.formatting import number, percent, si
from generator.ingest.runs import in_group, run_rows

_KEY_NAMES = {DEVICE: "device"}

# metric -> (label, unit)
_LABELS = {
    "throughput": ("throughput", "samples/s"),
    "step_time": ("step time", "s"),
    "modelled_flops_per_s": ("modelled FLOP/s", "FLOP/s"),
    "modelled_ai": ("modelled AI", "FLOP/byte"),
}


def key_name(key: str) -> str:
    """A matrix key as the report names it."""
    return _KEY_NAMES.get(key, key)


def swept(rows: Sequence[ResultRow]) -> list[MatrixKey]:
    return [key for key in MATRIX_KEYS if len({row[key] for row in rows}) > 1]


def sweep_key(keys: list[MatrixKey]) -> MatrixKey | None:
    """The one variable swept, the device aside (each device is a series of its own); the
    device itself when nothing else varies; None when several others vary."""
    others = [k for k in keys if k != DEVICE]
    if len(others) == 1:
        return others[0]
    return DEVICE if keys == [DEVICE] else None


def by_device(rows: Sequence[ResultRow]) -> dict[str, list[ResultRow]]:
    """Rows per concrete device, in their order."""
    parts: dict[str, list[ResultRow]] = {}
    for row in rows:
        parts.setdefault(row[DEVICE], []).append(row)
    return parts


def ordered_along(rows: Sequence[ResultRow], key: RatioKey) -> list[ResultRow]:
    return sorted(rows, key=lambda row: order(row, key))


def fmt_metric(metric: str, value: float) -> str:
    unit = _LABELS[metric][1]
    if metric == "throughput":
        return f"{number(value)} samples/s"
    if metric == "modelled_ai":
        return f"{number(value)} FLOP/byte"
    return si(value, unit)


def trend_verdict(rows: Sequence[ResultRow], key: MatrixKey, metric: str, trend: str) -> Verdict:
    ordered = ordered_along(rows, key)
    first, last = ordered[0], ordered[-1]
    a, b = metric_interval(first, metric), metric_interval(last, metric)
    label = _LABELS[metric][0]
    if a is None or b is None:
        return Verdict("inconclusive", f"{label} is not known for every run")
    exact = metric == "modelled_ai"  # analytic: no interval needed
    if not exact and (missing := untestable([first, last])) is not None:
        return missing
    overlap = not exact and not a.ratio(b).excludes(1.0)
    name = key_name(key)
    span = f"{name} {first[key]} ({fmt_metric(metric, a.value)}) to {name} {last[key]} ({fmt_metric(metric, b.value)})"
    if overlap:
        return Verdict(
            "inconclusive", f"the calibrated 95 % intervals of {label} overlap from {span}"
        )
    rises = b.value > a.value
    observed = "increases" if rises else "decreases"
    outcome = "supported" if observed == trend else "not supported"
    return Verdict(outcome, f"{label} {observed} from {span}, intervals apart")


def within(low: float, high: float, bounds: tuple[float, float]) -> str:
    """An interval against expected bounds: inside, outside, or straddling one (open)."""
    if bounds[0] <= low and high <= bounds[1]:
        return "supported"
    return "not supported" if high < bounds[0] or low > bounds[1] else "inconclusive"


def ratio_verdict(
    rows: Sequence[ResultRow],
    key: RatioKey,
    metric: str,
    numerator: str,
    denominator: str,
    between: tuple[float, float],
) -> Verdict:
    """The ratio metric(numerator) / metric(denominator) for each setting of the other
    keys, with its interval; every setting must agree."""
    others = [k for k in MATRIX_KEYS if k != key]
    pairs: dict[tuple[str | int, ...], dict[str, ResultRow]] = {}
    for row in rows:
        pairs.setdefault(tuple(row[k] for k in others), {})[str(row[key])] = row
    label = _LABELS[metric][0]
    outcomes, parts = [], []
    for setting, by_value in sorted(pairs.items(), key=lambda item: str(item[0])):
        if numerator not in by_value or denominator not in by_value:
            continue
        top = metric_interval(by_value[numerator], metric)
        bottom = metric_interval(by_value[denominator], metric)
        if top is None or bottom is None:
            continue
        ratio = top.ratio(bottom)
        where = ", ".join(
            f"{key_name(k)} {v}"
            for k, v in zip(others, setting, strict=True)
            if len({r[k] for r in rows}) > 1
        )
        parts.append(ratio.times_text() + (f" at {where}" if where else ""))
        if ratio.low is None or ratio.high is None or not ratio.calibrated:
            outcomes.append(NOT_TESTABLE)  # only a calibrated interval decides
            continue
        outcomes.append(within(ratio.low, ratio.high, between))
    if not outcomes:
        return Verdict(
            "inconclusive", f"no pair of runs with {key_name(key)} {numerator} and {denominator}"
        )
    outcome = outcomes[0] if len(set(outcomes)) == 1 else "inconclusive"
    outcome = NOT_TESTABLE if NOT_TESTABLE in outcomes else outcome
    expected = (
        f"at least {number(between[0], 3)}"
        if between[1] >= NO_UPPER_BOUND
        else f"between {number(between[0], 3)} and {number(between[1], 3)}"
    )
    return Verdict(
        outcome,
        f"{label} of {numerator} over {denominator} is "
        + "; ".join(parts)
        + f" (expected {expected})",
    )


def with_metric(rows: Sequence[ResultRow], metric: str) -> list[tuple[ResultRow, Interval]]:
    pairs = []
    for row in rows:
        interval = metric_interval(row, metric)
        if interval is not None:
            pairs.append((row, interval))
    return pairs


def combine(parts: list[tuple[str, Verdict]], prefix: bool = True) -> Verdict:
    """One verdict from one per device (or device pair): theirs when they agree, else mixed,
    saying which device supports what. `prefix`: put the device before reasons that do not
    name it."""
    reasons = "; ".join(f"on {where}, {v.reason}" if prefix else v.reason for where, v in parts)
    outcomes = [v.outcome for _, v in parts]
    if len(set(outcomes)) == 1:
        return Verdict(outcomes[0], reasons)
    if NOT_TESTABLE in outcomes:
        return Verdict(NOT_TESTABLE, reasons)
    split = ", ".join(f"{v.outcome} on {where}" for where, v in parts)
    return Verdict("mixed", f"the devices disagree ({split}): {reasons}")


def _per_device(rows: Sequence[ResultRow], judge: Callable[[list[ResultRow]], Verdict]) -> Verdict:
    return combine([(device, judge(part)) for device, part in by_device(rows).items()])


def _trend(rows: Sequence[ResultRow], metric: str, trend: str) -> Verdict:
    """A trend along one device's series."""
    keys = swept(rows)
    if len(keys) != 1:
        return Verdict("inconclusive", "no single variable is swept in the measured runs")
    return trend_verdict(rows, keys[0], metric, trend)


def _device_ratio(
    rows: Sequence[ResultRow], metric: str, kinds: tuple[str, str], between: tuple[float, float]
) -> Verdict:
    """A ratio between device kinds (`["cuda", "cpu"]`) for every pair of concrete devices of
    those kinds: an H100 and an A100 are judged each against the CPU, never one for both."""
    devices = {kind: sorted({r[DEVICE] for r in rows if r["device"] == kind}) for kind in kinds}
    parts = [
        (f"{top} vs {bottom}", ratio_verdict(
            [r for r in rows if r[DEVICE] in (top, bottom)], DEVICE, metric, top, bottom, between
        ))
        for top in devices[kinds[0]]
        for bottom in devices[kinds[1]]
    ]  # fmt: skip
    return combine(parts, prefix=False)


def saturation_verdict(rows: Sequence[ResultRow]) -> Verdict:
    """`trend = "saturates"`, on each series of the group (model, dataset, phase and
    precision on one device) with at least MIN_BATCHES batch sizes: supported where a
    saturation point is found, not supported where throughput still rises by 10 % per
    doubling at the largest batch, inconclusive where the intervals cannot decide."""
    if (missing := untestable(rows)) is not None:
        return missing
    found = series_outcomes(rows)
    if not found:
        return Verdict("inconclusive", f"no series of the group has {MIN_BATCHES}+ batch sizes")
    return combine([(where, Verdict(o, reason)) for where, o, reason in found], prefix=False)


def ceiling_verdict(
    rows: Sequence[ResultRow], ceiling: CeilingOf | None, bounds: tuple[float, float]
) -> Verdict:
    """`of_ceiling`: every run's modelled FLOP/s (with its interval) over its device's
    measured GEMM ceiling of the run's own precision (`roofs.gemm_ceiling`) lies within the
    bounds. A claim about every run: one run outside refutes it, and any run whose interval
    straddles a bound leaves it open."""
    outcomes, parts = [], []
    for row in rows:
        interval = metric_interval(row, "modelled_flops_per_s")
        found = ceiling(row[DEVICE], row["precision"]) if ceiling else None
        if interval is None or found is None:
            continue
        key, rate = found
        share = interval.scaled(1 / rate)
        where = f"{row['model']} {row['phase']} b{row['batch']} {row['precision']} on {row[DEVICE]}"
        against = f"of the measured {key} GEMM ceiling"
        if (missing := untestable([row])) is not None:
            parts.append(f"{where}: {percent(100 * share.value)} {against}, {missing.reason}")
            outcomes.append(NOT_TESTABLE)
            continue
        parts.append(f"{where}: {share.percent_text()} {against}")
        assert share.low is not None and share.high is not None  # calibrated
        outcomes.append(within(share.low, share.high, bounds))
    if not outcomes:
        return Verdict(
            "inconclusive", "no run with modelled FLOP/s on a device with a measured ceiling"
        )
    outcome = (
        "not supported" if "not supported" in outcomes
        else NOT_TESTABLE if NOT_TESTABLE in outcomes
        else "inconclusive" if "inconclusive" in outcomes else "supported"
    )  # fmt: skip
    expected = f"between {percent(100 * bounds[0])} and {percent(100 * bounds[1])}"
    return Verdict(
        outcome,
        "modelled FLOP/s as a share of the measured GEMM ceiling of each run's own precision: "
        + "; ".join(parts)
        + f" (expected {expected} for every run)",
    )


def _group_verdict(
    group: Group, rows: Sequence[ResultRow], ceiling: CeilingOf | None = None
) -> Verdict:
    expect = group.expect
    if expect is None:
        return Verdict("not evaluated", "the group states no checkable expectation (`expect`)")
    if not rows:
        return Verdict("inconclusive", "no run of this group has been measured on this machine")
    if expect.of_ceiling is None and (missing := untestable(rows)) is not None:
        return missing  # a trend or a ratio needs every result it compares calibrated
    if expect.trend == "saturates":
        return saturation_verdict(rows)
    if expect.of_ceiling is not None:
        low, high = expect.of_ceiling
        return ceiling_verdict(rows, ceiling, (low, high))
    if expect.trend is not None:
        trend = expect.trend
        if swept(rows) == [DEVICE]:  # only the device varies: the trend is across devices
            return trend_verdict(rows, DEVICE, expect.metric, trend)
        return _per_device(rows, lambda part: _trend(part, expect.metric, trend))
    assert expect.ratio is not None and expect.between is not None
    numerator, denominator = expect.ratio
    key = ratio_key(numerator, denominator, rows)
    if key is None:
        return Verdict(
            "inconclusive",
            f"no measured pair of runs with {numerator} and {denominator} (runs on a device "
            "this machine lacks are measured elsewhere)",
        )
    between = (expect.between[0], expect.between[1])
    if key == "device":
        return _device_ratio(rows, expect.metric, (numerator, denominator), between)
    if key == DEVICE:
        return ratio_verdict(rows, DEVICE, expect.metric, numerator, denominator, between)
    metric = expect.metric
    return _per_device(
        rows, lambda part: ratio_verdict(part, key, metric, numerator, denominator, between)
    )


def group_rows(
    group: Group, runs: pl.DataFrame, results: Mapping[str, Result]
) -> tuple[list[ResultRow], list[MatrixKey], MatrixKey | None]:
    """The group's ok runs ordered by device, then along the swept variable, each with its
    workload's result under RESULT; the swept keys; and the one swept key (`sweep_key`)."""
    rows = [
        with_result(row, results.get(row["workload"]))
        for row in run_rows(runs.filter(in_group(group.id) & (pl.col("status") == "ok")))
    ]
    keys = swept(rows) if rows else []
    key = sweep_key(keys)
    order_key = key or "run_id"
    ordered = sorted(rows, key=lambda r: (r[DEVICE], order(r, order_key)))
    return ordered, keys, key


def group_verdict(
    group: Group,
    runs: pl.DataFrame,
    results: Mapping[str, Result],
    ceiling: CeilingOf | None = None,
) -> Verdict:
    """`ceiling`: a device's measured GEMM ceiling of a run's precision (for `of_ceiling`;
    `roofs.ceiling_of`). The reason says where host-bound steps decided the comparison
    (`host_note`)."""
    ordered, _, swept_key = group_rows(group, runs, results)
    verdict = _group_verdict(group, ordered, ceiling)
    extra = host_note(ordered)
    if verdict.outcome == NOT_TESTABLE and group.expect is not None:
        provisional = reading(group.expect, ordered, swept_key)  # beside the rule: decides nothing
        extra += f" {provisional}" if provisional else ""
    if not extra:
        return verdict
    reason = verdict.reason if verdict.reason.endswith(".") else f"{verdict.reason}."
    return Verdict(verdict.outcome, reason + extra)


def group_verdicts(
    experiments: ExperimentsFile | None,
    runs: pl.DataFrame,
    results: Mapping[str, Result],
    ceiling: CeilingOf | None = None,
) -> dict[str, Verdict]:
    """Every group's verdict, computed once for the group pages and the overview."""
    groups = experiments.groups if experiments is not None else []
    return {group.id: group_verdict(group, runs, results, ceiling) for group in groups}
