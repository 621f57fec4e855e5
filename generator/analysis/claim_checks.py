"""One check of a seed's claim (records/seed_claims.py), judged by arithmetic: holds, does not
hold, or not checkable, with the numbers that decide it in one sentence.

Every floor comes from the one floor rule (analysis/device_choice.floor_seconds) on the one
roof of a device (analysis/roofs.roof_for, measured ceilings where we have them, else the
datasheet), over the analytic counts the seed-time prediction reads; no launch floor: a claim
about a roofline is about its two roofs. A seed's own numbers are its seeds.csv rows, within
their printed digits (analysis/seed_checks.printed_rounding)."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from generator.analysis.device_choice import floor_seconds
from generator.analysis.roofs import PREFERRED, Roof, peak_key, roof_for
from generator.analysis.seed_checks import printed_rounding
from generator.analysis.seed_prediction import Counts, WorkloadKey
from generator.catalog import Device
from generator.formatting import number, percent, si
from generator.records.ceilings import MeasuredCeilings
from generator.records.literature import UNITS, LiteratureRow
from generator.records.seed_claims import Check, workload_key

HOLDS, FAILS, OPEN = "holds", "does not hold", "not checkable"
QUANTITY_UNIT = {"flops": "FLOP", "bytes": "B"}


@dataclass(frozen=True)
class Sources:
    """What the checks read: the seeds' rows, the catalog and ceilings, the analytic counts."""

    rows: Mapping[str, LiteratureRow]
    catalog: tuple[Device, ...]
    ceilings: Sequence[MeasuredCeilings]
    counts: Mapping[WorkloadKey, Counts]

    def device(self, device_id: str) -> Device:
        return next(d for d in self.catalog if d.id == device_id)


@dataclass(frozen=True)
class Judged:
    outcome: str  # HOLDS, FAILS or OPEN
    sentence: str  # the arithmetic, in one sentence


def label(key: WorkloadKey) -> str:
    model, dataset, batch, phase, _ = key
    return f"{model} ({dataset}) {phase.replace('_', ' ')} at batch {batch}"


def _range(check: Check) -> str:
    low, high = check.low, check.high
    text = (
        f"between {number(low)} and {number(high)}"
        if low is not None and high is not None
        else f"above {number(low)}"
        if low is not None
        else f"below {number(high)}"
    )
    return text + (f" ({check.reading})" if check.reading else "")


def _inside(check: Check, low: float, high: float) -> bool:
    """The interval [low, high] meets the claim's range."""
    return (check.high is None or low <= check.high) and (check.low is None or high >= check.low)


def _verdict(ok: bool) -> str:
    return HOLDS if ok else FAILS


def _shown(row: LiteratureRow) -> str:
    return f"{row.published_text} {row.unit}"


def _mean(rows: Sequence[LiteratureRow]) -> tuple[float, float, float, str]:
    """The mean of the rows in base units, its lowest and highest within the printed
    digits, and the rows as printed."""
    values = [r.published_base for r in rows]
    low = statistics.fmean(v * (1 - printed_rounding(r)) for v, r in zip(values, rows, strict=True))
    high = statistics.fmean(
        v * (1 + printed_rounding(r)) for v, r in zip(values, rows, strict=True)
    )
    if len(rows) == 1:
        return values[0], low, high, f"{_shown(rows[0])} ({rows[0].id})"
    printed = ", ".join(r.published_text for r in rows[:-1]) + f" and {_shown(rows[-1])}"
    mean = statistics.fmean(values) / UNITS[rows[0].unit][0]  # in the rows' printed unit
    return (
        statistics.fmean(values),
        low,
        high,
        (f"the mean of {printed} ({number(mean)} {rows[0].unit})"),
    )


def figure_of(src: Sources, figure: str) -> tuple[float, str]:
    """A catalog figure (<device>:bandwidth|<peak key>) and its words; 0 where absent."""
    device_id, key = figure.split(":")
    device = src.device(device_id)
    if key == "bandwidth":
        value = device.bandwidth_bytes_per_s
        return value, f"the {device.name}'s {si(value, 'B/s')} bandwidth"
    value = device.peak(key) or 0.0
    return value, f"the {device.name}'s {key} peak of {si(value, 'FLOP/s')}"


def _side(src: Sources, rows: Sequence[str], per: str) -> tuple[float, float, float, str]:
    mean, low, high, text = _mean([src.rows[r] for r in rows])
    if not per:
        return mean, low, high, text
    figure, words = figure_of(src, per)
    return mean / figure, low / figure, high / figure, f"{text} over {words}"


def ratio(check: Check, src: Sources) -> Judged:
    top, top_low, top_high, top_text = _side(src, check.numerator, check.numerator_per)
    bottom, bottom_low, bottom_high, bottom_text = _side(
        src, check.denominator, check.denominator_per
    )
    if bottom == 0 or bottom_low <= 0:
        return Judged(OPEN, f"{check.what}: not checkable, the denominator is zero.")
    value, low, high = top / bottom, top_low / bottom_high, top_high / bottom_low
    ok = _inside(check, low, high)
    digits = (
        f" ({number(low)} to {number(high)} within the printed digits)"
        if ok and not _inside(check, value, value)
        else ""
    )
    return Judged(
        _verdict(ok),
        f"{check.what}: {top_text} ÷ {bottom_text} = {number(value)}{digits}; the claim needs "
        f"{_range(check)}.",
    )


def _ordered(expect: str, values: Sequence[float]) -> int | None:
    """The index that breaks the expected order, or None when it holds."""
    for i in range(1, len(values)):
        if expect == "rising" and values[i] <= values[i - 1]:
            return i
        if expect == "falling" and values[i] >= values[i - 1]:
            return i
        if expect == "first_highest" and values[i] >= values[0]:
            return i
        if expect == "first_lowest" and values[i] <= values[0]:
            return i
    return None


def _order_words(
    expect: str, names: Sequence[str], shown: Sequence[str], broken: int | None
) -> str:
    if expect in ("rising", "falling"):
        path = " → ".join(shown)
        order = " → ".join(names)
        if broken is None:
            return f"{path} ({order}), {expect} at every step"
        step = f"{names[broken - 1]} → {names[broken]}"
        return f"{path} ({order}), not {expect} from {step}"
    word = "highest" if expect == "first_highest" else "lowest"
    others = ", ".join(f"{n} {s}" for n, s in zip(names[1:], shown[1:], strict=True))
    head = f"{names[0]}'s {shown[0]}"
    if broken is None:
        return f"{head} is the {word} (the others: {others})"
    return f"{head} is not the {word}: {names[broken]}'s {shown[broken]} (the others: {others})"


def order(check: Check, src: Sources) -> Judged:
    rows = [src.rows[r] for r in check.rows]
    names = list(check.labels) or [r.id for r in rows]
    broken = _ordered(check.expect, [r.published_base for r in rows])
    words = _order_words(check.expect, names, [_shown(r) for r in rows], broken)
    return Judged(_verdict(broken is None), f"{check.what}: {words}.")


def catalog(check: Check, src: Sources) -> Judged:
    (top, top_words), (bottom, bottom_words) = (figure_of(src, f) for f in check.figures)
    if not top or not bottom:
        return Judged(OPEN, f"{check.what}: not checkable, the catalog lacks a figure.")
    value = top / bottom
    ok = _inside(check, value, value)
    return Judged(
        _verdict(ok),
        f"{check.what}: {top_words} ÷ {bottom_words} = {number(value)}; the claim needs "
        f"{_range(check)}.",
    )


def _quantity(counts: Counts, quantity: str) -> float:
    if quantity == "flops":
        return counts.flops
    if quantity == "bytes":
        return counts.bytes
    return counts.flops / counts.bytes


def _shown_quantity(value: float, quantity: str) -> str:
    if quantity in QUANTITY_UNIT:
        return si(value, QUANTITY_UNIT[quantity])
    return f"{number(value)} FLOP/byte"


def _missing_counts(keys: Sequence[WorkloadKey]) -> str:
    return (
        "not checkable, no analytic count of " + "; ".join(label(k) for k in keys) + " (neither "
        "measurements/complexity/seed_workloads.csv, literature.csv nor a run here counts it)"
    )


def counts(check: Check, src: Sources) -> Judged:
    keys = [workload_key(w, check.precision) for w in check.workloads]
    missing = [k for k in keys if k not in src.counts]
    if missing:
        return Judged(OPEN, f"{check.what}: {_missing_counts(missing)}.")
    found = [src.counts[k] for k in keys]
    values = [_quantity(c, check.quantity) for c in found]
    if check.expect:
        broken = _ordered(check.expect, values)
        shown = [_shown_quantity(v, check.quantity) for v in values]
        names = list(check.labels) or [label(k) for k in keys]
        words = _order_words(check.expect, names, shown, broken)
        return Judged(_verdict(broken is None), f"{check.what} (our analytic count): {words}.")
    value = values[0] / values[1]
    ok = _inside(check, value, value)
    parts = (
        f" (FLOPs ×{number(found[0].flops / found[1].flops)}, minimal bytes "
        f"×{number(found[0].bytes / found[1].bytes)})"
        if check.quantity == "intensity"
        else ""
    )
    return Judged(
        _verdict(ok),
        f"{check.what}: our analytic count gives {_shown_quantity(values[0], check.quantity)} "
        f"against {_shown_quantity(values[1], check.quantity)}, ×{number(value)}{parts}; the "
        f"claim needs {_range(check)}.",
    )


def roof_of(src: Sources, device_id: str, check: Check) -> Roof | None:
    """The device's roof for the check: its precision's peak, or the seed's own `peak`."""
    device = src.device(device_id)
    key = check.peak or peak_key(check.precision)
    return roof_for(device.name, key, PREFERRED, src.ceilings, src.catalog)


def floor_on(counts: Counts, roof: Roof) -> tuple[float, str]:
    """The roofline floor of a step on a roof, and what sets it (compute or memory)."""
    return floor_seconds(
        counts.flops, counts.bytes, roof.peak_flops_per_s, roof.bandwidth_bytes_per_s, None
    )


def _no_roof(src: Sources, device_id: str, check: Check) -> Judged:
    name = src.device(device_id).name
    key = check.peak or peak_key(check.precision)
    return Judged(OPEN, f"Not checkable: the catalog has no {key} peak of the {name}.")


def bound(check: Check, src: Sources) -> Judged:
    roof = roof_of(src, check.device, check)
    if roof is None:
        return _no_roof(src, check.device, check)
    # (what, intensity, bound, at minimal traffic): an analytic count's intensity is its
    # highest (real kernels move more than the minimal bytes), so it can show a step
    # memory-bound, or refute a compute-bound claim, but never refute a memory-bound one
    items: list[tuple[str, float, str, bool]] = []
    keys = [workload_key(w, check.precision) for w in check.workloads]
    missing = [k for k in keys if k not in src.counts]
    for key in keys:
        if key in src.counts:
            _, bound_by = floor_on(src.counts[key], roof)
            items.append((label(key), _quantity(src.counts[key], "intensity"), bound_by, True))
    for row_id in check.rows:
        ai = src.rows[row_id].published_base  # the seed's intensity: a step of ai FLOP a byte
        _, bound_by = floor_seconds(ai, 1.0, roof.peak_flops_per_s, roof.bandwidth_bytes_per_s,
                                    None)  # fmt: skip
        items.append((f"the seed's own intensity ({row_id})", ai, bound_by, False))
    head = f"On the {roof.label} roof (ridge {number(roof.ridge_ai)} FLOP/byte)"
    undecided = [i for i in items if i[2] != check.expect and i[3] and check.expect == "memory"]
    wrong = [i for i in items if i[2] != check.expect and i not in undecided]
    if len(items) == 1 and not missing:
        what, ai, bound_by, minimal = items[0]
        apart = ai / roof.ridge_ai if bound_by == "compute" else roof.ridge_ai / ai
        side = "above" if bound_by == "compute" else "below"
        at = " at its minimal traffic" if minimal else ""
        sentence = (
            f"{head}, {what}{at} does {number(ai)} FLOP/byte, ×{number(apart, 3)} {side} the "
            f"ridge: {bound_by}-bound"
        )
        if undecided:
            return Judged(OPEN, sentence + f" if it moved only those bytes; {_needs_bytes(apart)}.")
        return Judged(_verdict(not wrong), sentence + ".")
    listed = "; ".join(f"{what} {number(ai)} FLOP/byte" for what, ai, _, _ in wrong)
    other = "compute" if check.expect == "memory" else "memory"
    if not items:
        return Judged(OPEN, f"{head}: {_missing_counts(missing)}.")
    if wrong or undecided:
        sentence = (
            f"{head}: {len(items) - len(wrong) - len(undecided)} of {len(items)} are "
            f"{check.expect}-bound" + (f"; {other}-bound: {listed}" if wrong else "") + "."
        )
        for what, ai, _, _ in undecided:
            sentence += (
                f" {what} does {number(ai)} FLOP/byte at its minimal traffic, above the "
                f"ridge: {_needs_bytes(ai / roof.ridge_ai)}."
            )
    else:
        low = min(items, key=lambda item: item[1] if check.expect == "compute" else -item[1])
        edge = "lowest" if check.expect == "compute" else "highest"
        every = "both" if len(items) == 2 else f"all {len(items)}"
        sentence = (
            f"{head}: {every} are {check.expect}-bound ({edge} intensity: {low[0]}, "
            f"{number(low[1])} FLOP/byte)."
        )
    if missing:
        sentence += " " + _missing_counts(missing).capitalize() + "."
    return Judged(FAILS if wrong else OPEN if (missing or undecided) else HOLDS, sentence)


def _needs_bytes(apart: float) -> str:
    """Why a count at its minimal traffic cannot refute a memory-bound claim."""
    return (
        f"memory-bound if its kernels move more than ×{number(apart, 3)} those bytes, which only "
        "the step's DRAM bytes (an ncu profile) can tell"
    )


Floor = tuple[Device, Roof, float, str]  # the device, its roof, the floor, what sets it


def _floors(check: Check, src: Sources) -> tuple[Counts, list[Floor]] | Judged:
    key = workload_key(check.workloads[0], check.precision)
    if key not in src.counts:
        return Judged(OPEN, _missing_counts([key]).capitalize() + ".")
    found = src.counts[key]
    out = []
    for device_id in check.devices:
        roof = roof_of(src, device_id, check)
        if roof is None:
            return _no_roof(src, device_id, check)
        seconds, bound_by = floor_on(found, roof)
        out.append((src.device(device_id), roof, seconds, bound_by))
    return found, out


def faster(check: Check, src: Sources) -> Judged:
    found = _floors(check, src)
    if isinstance(found, Judged):
        return found
    _, floors = found
    key = workload_key(check.workloads[0], check.precision)
    best = min(floors, key=lambda item: item[2])
    listed = ", ".join(f"{d.name} {si(s, 's')} ({b})" for d, _, s, b in floors)
    expected = next(item for item in floors if item[0].id == check.expect)
    tail = (
        "as claimed"
        if best is expected
        else f"not the {expected[0].name}'s (×{number(expected[2] / best[2], 3)} longer)"
    )
    return Judged(
        _verdict(best is expected),
        f"Roofline floors of {label(key)}: {listed}; the lowest is the {best[0].name}'s, {tail}.",
    )


def gain(check: Check, src: Sources) -> Judged:
    """What the second device's peak buys on the floor: the floor's gain over the first
    device ÷ the ratio of their peaks (1: all of it; near 0: the bandwidth decides)."""
    found = _floors(check, src)
    if isinstance(found, Judged):
        return found
    counts_of, ((d1, r1, t1, b1), (d2, r2, t2, b2)) = found
    peaks, floor_gain = r2.peak_flops_per_s / r1.peak_flops_per_s, t1 / t2
    share = floor_gain / peaks
    used = counts_of.flops / t2 / r2.peak_flops_per_s
    ok = _inside(check, share, share)
    return Judged(
        _verdict(ok),
        f"At {number(counts_of.flops / counts_of.bytes, 3)} FLOP/byte the step is {b1}-bound "
        f"on the {d1.name} and {b2}-bound on the {d2.name} (ridge {number(r2.ridge_ai, 3)}): "
        f"its {number(peaks, 3)}× {r2.precision} peak buys {number(floor_gain, 3)}× on the "
        f"floor, where it uses {percent(100 * used)} of that peak; the gain is "
        f"{number(share, 3)} of the peaks' ratio, and the claim needs {_range(check)}.",
    )


def untranscribed(check: Check, src: Sources) -> Judged:
    return Judged(OPEN, f"Not checkable: it needs {check.needs}.")


JUDGES: Mapping[str, Callable[[Check, Sources], Judged]] = {
    "ratio": ratio, "order": order, "catalog": catalog, "counts": counts, "bound": bound,
    "faster": faster, "gain": gain, "untranscribed": untranscribed,
}  # fmt: skip
