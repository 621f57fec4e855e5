"""How many times faster: one device than another on the same configuration, and one precision
than fp32 on the same device (seed 004 tabulated CPU against GPU by hand).

A speedup is a ratio of two results' step times (analysis/results.py), slower side over
faster side, so "the H100 is 9.1× faster than the EPYC" reads as the EPYC's median divided by
the H100's, with the report's one ratio interval (`Interval.ratio`: the ratio of the
interval ends, of the weaker kind of the two; none where either side has none). The
orientation is fixed per table, never per row: CPU over GPU when the kinds differ, else
whichever side is slower on most configurations, so a ratio below 1 means the expected
winner lost there."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from generator.analysis.host_decided import host_clause
from generator.analysis.interval import Interval
from generator.analysis.odd_ratios import Odd, odd_between
from generator.analysis.results import Result
from generator.formatting import number

CONFIG = ("model", "dataset", "batch", "phase", "precision", "compile")
BASELINE_PRECISION = "fp32"
_KIND_ORDER = {"cpu": 0}  # the slower class: numerator first; every other kind after it


@dataclass(frozen=True)
class Speedup:
    """One configuration measured on both sides: each side's result and the ratio
    slower / faster with its interval."""

    slow: Result
    fast: Result

    @property
    def ratio(self) -> Interval:
        return self.slow.step.ratio(self.fast.step)

    @property
    def model(self) -> str:
        return self.fast.model

    @property
    def dataset(self) -> str:
        return self.fast.dataset

    @property
    def batch(self) -> int:
        return self.fast.batch

    @property
    def phase(self) -> str:
        return self.fast.phase

    @property
    def precision(self) -> str:
        """Shared (device tables) or the faster side's (precision tables)."""
        return self.fast.precision

    @property
    def compile(self) -> str:
        """Shared by both sides: eager, or the torch.compile mode."""
        return self.fast.compile


@dataclass(frozen=True)
class SpeedupTable:
    """The configurations two sides share, by ratio. kind "device": `faster` and `slower` are
    device labels; kind "precision": precisions on `device`."""

    kind: str
    faster: str
    slower: str
    device: str | None
    rows: list[Speedup]


def sides(
    found: Iterable[Result], side: str, within: tuple[str, ...]
) -> dict[tuple[object, ...], dict[str, list[Result]]]:
    """(key) -> side value -> its results, for every key the results share."""
    parts: dict[tuple[object, ...], dict[str, list[Result]]] = {}
    for result in sorted(found, key=lambda r: r.run_ids):
        key = tuple(getattr(result, k) for k in within)
        parts.setdefault(key, {}).setdefault(str(getattr(result, side)), []).append(result)
    return parts


def _oriented(a: str, b: str, kinds: Mapping[str, str], ratios: list[float]) -> bool:
    """True when `a` is the slower side (the numerator): the CPU against any accelerator,
    else the side slower on most configurations (median log ratio a/b above 0), else by name."""
    rank_a, rank_b = _KIND_ORDER.get(kinds[a], 1), _KIND_ORDER.get(kinds[b], 1)
    if rank_a != rank_b:
        return rank_a < rank_b
    middle = statistics.median(math.log(r) for r in ratios) if ratios else 0.0
    return middle > 0 or (middle == 0 and a < b)


def device_speedups(results: Mapping[str, Result]) -> list[SpeedupTable]:
    """One table per pair of devices that measured the same configuration (model, dataset,
    batch, phase, precision). A configuration measured as two workloads on one device (e.g.
    two sequence lengths) is ambiguous and left out."""
    kinds = {r.device_label: r.device for r in results.values()}
    pairs: dict[tuple[str, str], list[tuple[Result, Result]]] = {}
    for by_device in sides(results.values(), "device_label", CONFIG).values():
        single = sorted((d, rows[0]) for d, rows in by_device.items() if len(rows) == 1)
        for i, (a, result_a) in enumerate(single):
            for b, result_b in single[i + 1 :]:
                pairs.setdefault((a, b), []).append((result_a, result_b))
    tables = []
    for (a, b), matched in sorted(pairs.items()):
        ratios = [ra.step.value / rb.step.value for ra, rb in matched]
        a_slower = _oriented(a, b, kinds, ratios)
        slower, faster = (a, b) if a_slower else (b, a)
        rows = [Speedup(ra, rb) if a_slower else Speedup(rb, ra) for ra, rb in matched]
        tables.append(SpeedupTable("device", faster, slower, None, _by_ratio(rows)))
    return tables


def precision_speedups(results: Mapping[str, Result]) -> list[SpeedupTable]:
    """On each device, every other precision against fp32 on the same model, dataset, batch
    and phase: fp32 time over the other precision's (how many times faster it is)."""
    within = ("device_label", "model", "dataset", "batch", "phase", "compile")
    found: dict[tuple[str, str], list[Speedup]] = {}
    for key, by_precision in sides(results.values(), "precision", within).items():
        base = by_precision.get(BASELINE_PRECISION, [])
        if len(base) != 1:
            continue
        for precision, rows in sorted(by_precision.items()):
            if precision == BASELINE_PRECISION or len(rows) != 1:
                continue
            found.setdefault((str(key[0]), precision), []).append(Speedup(base[0], rows[0]))
    return [
        SpeedupTable("precision", precision, BASELINE_PRECISION, device, _by_ratio(rows))
        for (device, precision), rows in sorted(found.items())
    ]


def _by_ratio(rows: list[Speedup]) -> list[Speedup]:
    return sorted(rows, key=lambda r: (r.ratio.value, r.model, r.dataset, r.batch, r.phase))


def configuration(row: Speedup, with_precision: bool = True) -> str:
    """'simple_mlp (mnist) at batch 64, inference, fp32'."""
    text = f"{row.model} ({row.dataset}) at batch {row.batch}, {row.phase}"
    text = f"{text}, {row.precision}" if with_precision else text
    return text if row.compile == "eager" else f"{text}, torch.compile {row.compile}"


def times(value: Interval) -> str:
    """'9.12× [8.71, 9.6] (calibrated, 10 processes)'."""
    return value.times_text()


def summary(table: SpeedupTable, odd: Sequence[Odd] = (), brief: bool = False) -> str:
    """The table's range in words, each end with its interval; configurations whose interval
    includes 1 are counted apart (there neither side is shown faster); each ratio against
    the expected direction (a reduced precision, or a GPU against a CPU, slower) with its
    cause (`odd`: analysis/odd_ratios.py); `brief`: only how many and what decided them,
    with a link to the Speedups page (the landing's headline)."""
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
    below = [r for r in rows if r.ratio.high is not None and r.ratio.high < 1]
    slower_rows = [r for r in below if r.ratio.calibrated]
    unsure = [r for r in rows if r.ratio.bounded and not r.ratio.excludes(1.0)]
    within = [r for r in rows if r.ratio.bounded and not r.ratio.calibrated]
    bare = [r for r in rows if not r.ratio.bounded]
    if slower_rows and n > 1:
        named = ", ".join(configuration(r, with_precision) for r in slower_rows[:3])
        more = f" and {len(slower_rows) - 3} more" if len(slower_rows) > 3 else ""
        text += f". {faster} is the slower one (calibrated interval below 1) for {named}{more}"
    if unsure:
        text += (
            f". In {len(unsure)} of {n} configurations the 95 % interval includes 1: there "
            "neither side is shown faster"
        )
    if within:
        text += (
            f". {len(within)} of {n} intervals are within one process (a side was timed in "
            "one process): not calibrated, they decide nothing until re-measured"
        )
    if bare:
        text += (
            f". {len(bare)} of {n} ratios have no interval: a side was measured in several "
            "runs, each in one process, that disagree (their run pages give the command that "
            "re-measures them)"
        )
    text += "."
    if table.kind == "precision":  # autocast adds casts to a launch-bound step
        text += host_clause([side for row in rows for side in (row.slow, row.fast)])
    against = [o for r in rows if r.ratio.value < 1 and (o := odd_between(odd, r.slow, r.fast))]
    if against and brief:  # a headline: how many, and what decided them
        causes = Counter(o.cause.kind for o in against)
        said = ", ".join(f"{n} {kind}" for kind, n in sorted(causes.items()))
        text += (
            f" {len(against)} of {n} go against the expected direction ({said}: each cause "
            "on [Speedups](measurements/speedups.md))."
        )
    elif against:
        text += " Against the expected direction: " + " ".join(o.sentence() for o in against)
    return text


def speedups_frame(tables: list[SpeedupTable]) -> pl.DataFrame:
    """Every table's rows, for the page's download, each interval with its kind."""
    rows = [
        {"kind": t.kind, "faster": t.faster, "slower": t.slower, "device": t.device,
         "model": r.model, "dataset": r.dataset, "batch": r.batch, "phase": r.phase,
         "precision": r.precision, "compile": r.compile, "slower_median_s": r.slow.step.value,
         "slower_interval": r.slow.step.kind, "faster_median_s": r.fast.step.value,
         "faster_interval": r.fast.step.kind, "speedup": r.ratio.value,
         "ci_low": r.ratio.low, "ci_high": r.ratio.high, "interval": r.ratio.kind}
        for t in tables
        for r in t.rows
    ]  # fmt: skip
    schema = {
        "kind": pl.String, "faster": pl.String, "slower": pl.String, "device": pl.String,
        "model": pl.String, "dataset": pl.String, "batch": pl.Int64, "phase": pl.String,
        "precision": pl.String, "compile": pl.String, "slower_median_s": pl.Float64,
        "slower_interval": pl.String,
        "faster_median_s": pl.Float64, "faster_interval": pl.String, "speedup": pl.Float64,
        "ci_low": pl.Float64, "ci_high": pl.Float64, "interval": pl.String,
    }  # fmt: skip
    return pl.DataFrame(rows, schema=schema)
