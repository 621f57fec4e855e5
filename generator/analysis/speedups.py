"""How many times faster: one device than another on the same configuration, and one precision
than fp32 on the same device (seed 004 tabulated CPU against GPU by hand).

A speedup is a ratio of median step times, slower side over faster side, so "the H100 is
9.1× faster than the EPYC" reads as the EPYC's median divided by the H100's. Each side's
samples are the pooled iterations of its workload, resampled independently for a bootstrap
interval of the ratio. The orientation is fixed per table, never per row: CPU over GPU when
the kinds differ, else whichever side is slower on most configurations, so a ratio below 1
means the expected winner lost there."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

from generator.analysis.bootstrap import RESAMPLES, SEED, Interval, ratio_of_medians
from generator.analysis.per_workload import one_per_workload, workload_samples
from generator.formatting import number

CONFIG = ("model", "dataset", "batch", "phase", "precision", "compile")
BASELINE_PRECISION = "fp32"
_KIND_ORDER = {"cpu": 0}  # the slower class: numerator first; every other kind after it


@dataclass(frozen=True)
class Speedup:
    """One configuration measured on both sides: each side's median and the ratio
    slower / faster with its interval."""

    model: str
    dataset: str
    batch: int
    phase: str
    precision: str  # shared (device tables) or the faster side's (precision tables)
    slow_s: float
    fast_s: float
    ratio: Interval


@dataclass(frozen=True)
class SpeedupTable:
    """The configurations two sides share, by ratio. kind "device": `faster` and `slower` are
    device labels; kind "precision": precisions on `device`."""

    kind: str
    faster: str
    slower: str
    device: str | None
    rows: list[Speedup]


def _sides(
    points: pl.DataFrame, side: str, within: tuple[str, ...]
) -> dict[tuple[object, ...], dict[str, list[dict[str, object]]]]:
    """(key) -> side value -> its workloads' rows, for every key the points share."""
    found: dict[tuple[object, ...], dict[str, list[dict[str, object]]]] = {}
    for row in points.to_dicts():
        key = tuple(row.get(k) for k in within)
        found.setdefault(key, {}).setdefault(str(row[side]), []).append(row)
    return found


def _speedup(
    slow: dict[str, object],
    fast: dict[str, object],
    samples: Mapping[str, list[float]],
    seed: int,
    resamples: int,
) -> Speedup | None:
    slow_t, fast_t = samples.get(str(slow["workload"])), samples.get(str(fast["workload"]))
    if not slow_t or not fast_t:
        return None
    ratio = ratio_of_medians(slow_t, fast_t, seed, resamples)
    return Speedup(
        model=str(fast["model"]), dataset=str(fast["dataset"]), batch=int(fast["batch"]),  # type: ignore[call-overload]
        phase=str(fast["phase"]), precision=str(fast["precision"]),
        slow_s=statistics.median(slow_t), fast_s=statistics.median(fast_t), ratio=ratio,
    )  # fmt: skip


def _oriented(a: str, b: str, kinds: Mapping[str, str], ratios: list[float]) -> bool:
    """True when `a` is the slower side (the numerator): the CPU against any accelerator,
    else the side slower on most configurations (median log ratio a/b above 0), else by name."""
    rank_a, rank_b = _KIND_ORDER.get(kinds[a], 1), _KIND_ORDER.get(kinds[b], 1)
    if rank_a != rank_b:
        return rank_a < rank_b
    middle = statistics.median(math.log(r) for r in ratios) if ratios else 0.0
    return middle > 0 or (middle == 0 and a < b)


def device_speedups(
    runs: pl.DataFrame,
    steps: Mapping[str, pl.DataFrame],
    seed: int = SEED,
    resamples: int = RESAMPLES,
) -> list[SpeedupTable]:
    """One table per pair of devices that measured the same configuration (model, dataset,
    batch, phase, precision). A configuration measured as two workloads on one device (e.g.
    two sequence lengths) is ambiguous and left out."""
    points = one_per_workload(runs)
    samples = workload_samples(runs, steps)
    kinds = {str(r["device_label"]): str(r["device"]) for r in points.to_dicts()}
    pairs: dict[tuple[str, str], list[tuple[dict[str, object], dict[str, object]]]] = {}
    for by_device in _sides(points, "device_label", CONFIG).values():
        single = sorted((d, rows[0]) for d, rows in by_device.items() if len(rows) == 1)
        for i, (a, row_a) in enumerate(single):
            for b, row_b in single[i + 1 :]:
                pairs.setdefault((a, b), []).append((row_a, row_b))
    tables = []
    for (a, b), matched in sorted(pairs.items()):
        matched = [
            (ra, rb)
            for ra, rb in matched
            if samples.get(str(ra["workload"])) and samples.get(str(rb["workload"]))
        ]
        ratios = [
            statistics.median(samples[str(ra["workload"])])
            / statistics.median(samples[str(rb["workload"])])
            for ra, rb in matched
        ]
        a_slower = _oriented(a, b, kinds, ratios)
        slower, faster = (a, b) if a_slower else (b, a)
        rows = [
            found
            for ra, rb in matched
            if (found := _speedup(*((ra, rb) if a_slower else (rb, ra)), samples, seed, resamples))
        ]
        if rows:
            tables.append(SpeedupTable("device", faster, slower, None, _by_ratio(rows)))
    return tables


def precision_speedups(
    runs: pl.DataFrame,
    steps: Mapping[str, pl.DataFrame],
    seed: int = SEED,
    resamples: int = RESAMPLES,
) -> list[SpeedupTable]:
    """On each device, every other precision against fp32 on the same model, dataset, batch
    and phase: fp32 time over the other precision's (how many times faster it is)."""
    points = one_per_workload(runs)
    samples = workload_samples(runs, steps)
    within = ("device_label", "model", "dataset", "batch", "phase", "compile")
    found: dict[tuple[str, str], list[Speedup]] = {}
    for key, by_precision in _sides(points, "precision", within).items():
        base = by_precision.get(BASELINE_PRECISION, [])
        if len(base) != 1:
            continue
        for precision, rows in sorted(by_precision.items()):
            if precision == BASELINE_PRECISION or len(rows) != 1:
                continue
            speedup = _speedup(base[0], rows[0], samples, seed, resamples)
            if speedup is not None:
                found.setdefault((str(key[0]), precision), []).append(speedup)
    return [
        SpeedupTable("precision", precision, BASELINE_PRECISION, device, _by_ratio(rows))
        for (device, precision), rows in sorted(found.items())
    ]


def _by_ratio(rows: list[Speedup]) -> list[Speedup]:
    return sorted(rows, key=lambda r: (r.ratio.value, r.model, r.dataset, r.batch, r.phase))


def configuration(row: Speedup, with_precision: bool = True) -> str:
    """'simple_mlp (mnist) at batch 64, inference, fp32'."""
    text = f"{row.model} ({row.dataset}) at batch {row.batch}, {row.phase}"
    return f"{text}, {row.precision}" if with_precision else text


def times(value: Interval) -> str:
    """'9.12× [8.71, 9.6]'."""
    return f"{number(value.value, 3)}× [{number(value.low, 3)}, {number(value.high, 3)}]"


def summary(table: SpeedupTable) -> str:
    """The table's range in words, each end with its interval; configurations whose interval
    includes 1 are counted apart (there neither side is shown faster)."""
    rows = table.rows
    faster, slower = (
        (table.faster, table.slower)
        if table.kind == "device"
        else (f"{table.faster}", f"{table.slower} on {table.device}")
    )
    n = len(rows)
    low, high = rows[0], rows[-1]
    with_precision = table.kind == "device"
    if n == 1 and low.ratio.value < 1:
        text = (
            f"{faster} is slower than {slower} on the one configuration both measured "
            f"({configuration(low, with_precision)}): a speedup of {times(low.ratio)}, so it "
            f"takes {number(1 / low.ratio.value, 3)}× as long"
        )
    elif n == 1:
        text = (
            f"{faster} is {times(low.ratio)} faster than {slower} on the one configuration "
            f"both measured ({configuration(low, with_precision)})"
        )
    else:
        span = (
            f"{faster}'s speedup over {slower} ranges from {times(low.ratio)} to "
            f"{times(high.ratio)}"
            if low.ratio.value < 1
            else f"{faster} is {times(low.ratio)} to {times(high.ratio)} faster than {slower}"
        )
        text = (
            f"{span} over {n} configurations; smallest for {configuration(low, with_precision)},"
            f" largest for {configuration(high, with_precision)}"
        )
    slower_rows = [r for r in rows if r.ratio.high < 1]
    unsure = [r for r in rows if not r.ratio.excludes(1.0)]
    if slower_rows and n > 1:
        named = ", ".join(configuration(r, with_precision) for r in slower_rows[:3])
        more = f" and {len(slower_rows) - 3} more" if len(slower_rows) > 3 else ""
        text += f". {faster} is the slower one (interval below 1) for {named}{more}"
    if unsure:
        text += (
            f". In {len(unsure)} of {n} configurations the 95 % interval includes 1: there "
            "neither side is shown faster"
        )
    return text + "."


def speedups_frame(tables: list[SpeedupTable]) -> pl.DataFrame:
    """Every table's rows, for the page's download."""
    rows = [
        {"kind": t.kind, "faster": t.faster, "slower": t.slower, "device": t.device,
         "model": r.model, "dataset": r.dataset, "batch": r.batch, "phase": r.phase,
         "precision": r.precision, "slower_median_s": r.slow_s, "faster_median_s": r.fast_s,
         "speedup": r.ratio.value, "ci_low": r.ratio.low, "ci_high": r.ratio.high,
         "resamples": r.ratio.resamples}
        for t in tables
        for r in t.rows
    ]  # fmt: skip
    schema = {
        "kind": pl.String, "faster": pl.String, "slower": pl.String, "device": pl.String,
        "model": pl.String, "dataset": pl.String, "batch": pl.Int64, "phase": pl.String,
        "precision": pl.String, "slower_median_s": pl.Float64, "faster_median_s": pl.Float64,
        "speedup": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
        "resamples": pl.Int64,
    }  # fmt: skip
    return pl.DataFrame(rows, schema=schema)
