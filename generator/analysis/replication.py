"""Published numbers beside this project's derivation of the same quantity, with the stated
cause of any difference checked against the ratio (published ÷ derived) it implies, and every
published time or rate checked against what the hardware can do at all."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from generator.analysis.other_figures import OTHER_FIGURES, OtherFigure
from generator.analysis.roofline import Totals
from generator.analysis.seed_checks import beyond_the_clock, catalog_or_export_check, check
from generator.analysis.seed_rates import samples_per_second
from generator.analysis.thresholds import ROOF_TOLERANCE
from generator.catalog import Device
from generator.formatting import number, si
from generator.records.literature import CAUSES, UNITS, Derive, LiteratureRow

DATASHEET_TOLERANCE = 0.02  # observed ratio within 2 % of the two figures' ratio
IMPOSSIBLE = "physically impossible"
__all__ = ["OTHER_FIGURES", "OtherFigure"]
# Which catalog device kind a measured row's device kind ("cpu" or "cuda") names.
DEVICE_KIND = {"cpu": "cpu", "cuda": "gpu"}


@dataclass(frozen=True)
class Replication:
    row: LiteratureRow
    derived: float | None  # in the row's printed unit
    source: str  # where the derived number comes from, in words
    ratio: float | None  # published ÷ derived
    status: str  # consistent, not consistent, unexplained, not derivable, physically impossible
    explanation: str  # this row's check: the numbers it rests on (the cause's text is CAUSES')


def _catalog_value(device: Device, peak: str) -> float | None:
    return device.bandwidth_bytes_per_s if peak == "bandwidth" else device.peak(peak)


def derive_value(
    derive: Derive,
    devices: dict[str, Device],
    analytic: dict[tuple[str, str, int], dict[str, Any]],
    imported: dict[str, Totals],
    measured: dict[tuple[str, str, int, str, str], list[tuple[str, float]]] | None = None,
    published: Mapping[str, float] | None = None,
    published_time: Mapping[str, float] | None = None,
) -> tuple[float | None, str]:
    """The derived quantity in base units, and where it comes from (None when unavailable).
    published: the report's own rows in base units, for derivations that rest on them."""
    if derive.kind == "recorded":
        return None, "not derivable here: recorded for the record"
    if derive.kind in ("quotient", "gain", "mean"):
        values = [(published or {}).get(i) for i in derive.rows]
        if any(v is None or v == 0 for v in values):
            return None, "a row it rests on has no value"
        shown = ", ".join(derive.rows)
        if derive.kind == "mean":
            return sum(v for v in values if v) / len(values), f"the report's own rows {shown}, mean"
        top, bottom = values
        quotient = (top or 0.0) / (bottom or 1.0)
        if derive.kind == "gain":  # +5.7 % is a quotient of 1.057
            return quotient - 1, f"the report's own rows {shown}, gain"
        return quotient, f"the report's own rows {shown}, quotient"
    if derive.kind in ("clock", "cycles"):
        device = devices[derive.device]
        clock = device.boost_clock_hz
        if derive.kind == "clock":
            return clock, f"catalog {device.name} boost clock ({device.source})"
        time = derive.cycles / clock
        where = f"{derive.cycles:,.0f} cycles at the {device.name}'s {si(clock, 'Hz')} boost clock"
        return (derive.flops / time if derive.flops else time), where
    if derive.kind in ("floor", "rate_from"):
        counts = analytic.get((derive.model, derive.dataset, derive.batch))
        if counts is None:
            return None, "not in measurements/complexity/literature.csv: run complexity-tables"
        if derive.kind == "rate_from":
            seconds = (published_time or {}).get(derive.rows[0])
            if not seconds:
                return None, f"row {derive.rows[0]} has no time"
            return float(counts["step_flops"]) / seconds, (
                f"exact step FLOPs of {derive.model} ({derive.dataset}, batch {derive.batch}) "
                f"over the report's own time (row {derive.rows[0]})"
            )
        device = devices[derive.device]
        peak = device.peak(derive.peak)
        if peak is None:
            return None, f"catalog {device.name} has no {derive.peak} peak"
        flops = float(counts[derive.quantity]) * derive.steps
        steps = f"{derive.steps:,} steps of " if derive.steps > 1 else ""
        return flops / peak, (
            steps
            + f"{si(flops, 'FLOP')} ({derive.quantity.replace('_', ' ')} of {derive.model}, batch "
            f"{derive.batch}) at the {device.name}'s {derive.peak} peak, {si(peak, 'FLOP/s')}"
        )
    if derive.kind == "measured":
        key = (derive.model, derive.dataset, derive.batch, derive.quantity, derive.device)
        found = sorted((measured or {}).get(key, []), key=lambda item: item[1])
        if not found:
            return None, "no ok run of this configuration in measurements/runs/"
        run_id, median = found[len(found) // 2]
        return median, f"median step time of run {run_id} ({len(found)} run(s) of it here)"
    if derive.kind in ("catalog", "ridge", "at_peak"):
        device = devices[derive.device]
        value = _catalog_value(device, derive.peak)
        where = f"catalog {device.name} ({device.source})"
        if value is None:
            return None, f"catalog {device.name} has no {derive.peak} peak"
        if derive.kind == "ridge":
            return value / device.bandwidth_bytes_per_s, where
        if derive.kind == "at_peak":
            return derive.flops / value, f"{si(derive.flops, 'FLOP')} at the {where} peak"
        return value, where
    if derive.kind == "analytic":
        counts = analytic.get((derive.model, derive.dataset, derive.batch))
        if counts is None:
            return None, "not in measurements/complexity/literature.csv: run complexity-tables"
        return float(counts[derive.quantity]), (
            f"analytic count, {derive.model} on {derive.dataset}, batch {derive.batch}"
        )
    totals = imported.get(derive.folder)
    if totals is None:
        return None, f"no imported export {derive.folder!r}"
    if derive.quantity.endswith("_seed_matching"):
        joined = totals.seed_joined.get(derive.quantity.removesuffix("_seed_matching"))
        return joined, (
            f"measurements/imported/{derive.folder}/ncu.csv aggregated as the report's script "
            "does: each kernel's value joined to the kernel times on name, block, grid and "
            "the other launch columns, not the launch (analysis/seed_join.py)"
        )
    value = {
        "flops": totals.flops,
        "dram_bytes": totals.dram_bytes,
        "time": totals.time_s,
        "sm_pct": totals.sm_pct,
        "dram_pct": totals.dram_pct,
        "attained": totals.attained_flops_per_s,
        "ai": totals.arithmetic_intensity,
    }[derive.quantity]
    return value, f"recomputed from measurements/imported/{derive.folder}/ncu.csv"


def expected_ratio(
    row: LiteratureRow, derived_base: float | None, counts: dict[str, Any] | None
) -> float | None:
    """published ÷ derived the row's cause predicts; MAC-based causes use the model's own
    MAC share (norms and activations add FLOPs that are not MACs)."""
    spec = CAUSES[row.cause]
    if row.cause not in ("macs_as_flops", "macs_x3") or counts is None:
        return spec.expected
    sample_macs = counts["forward_macs"] / counts["batch"]
    per_sample = row.derive.quantity.startswith("sample_")
    macs = sample_macs if per_sample else counts["forward_macs"]
    if row.cause == "macs_x3":
        return 3 * macs / derived_base if derived_base else None
    forward = counts["sample_forward_flops"] if per_sample else counts["forward_flops"]
    return float(macs / forward) if "forward" in row.derive.quantity else spec.expected


def _figure_unit(key: str) -> str:
    return "B/s" if key == "bandwidth" else "FLOP/s"


def _candidates(
    row: LiteratureRow, key: str, device: Device, rows: Sequence[LiteratureRow]
) -> list[tuple[float, str]]:
    """The figures a report may have used for one of a device's peaks: the catalog's, one of
    OTHER_FIGURES, and the report's own (another of its rows transcribes it)."""
    ours = _catalog_value(device, key)
    found = [] if ours is None else [(ours, f"{si(ours, _figure_unit(key))} (catalog)")]
    other = OTHER_FIGURES.get((device.id, key))
    if other:
        found.append((other.value, f"{si(other.value, _figure_unit(key))} ({other.label})"))
    for own in rows:
        same = own.derive.kind == "catalog" and own.derive.device == device.id
        if same and own.derive.peak == key and own.seed == row.seed and own.id != row.id:
            found.append((own.published_base, f"{si(own.published_base, _figure_unit(key))} "
                                              f"(this report, row {own.id})"))  # fmt: skip
    return found


def datasheet_expectation(
    row: LiteratureRow,
    devices: Mapping[str, Device],
    rows: Sequence[LiteratureRow],
    observed: float | None,
) -> tuple[float | None, str]:
    """published ÷ ours that "different datasheet figure" predicts: the ratio of the figure
    the report used to the catalog's, for each figure the row rests on (a ridge on a peak
    and a bandwidth). Among the combinations of recorded figures, the one closest to the
    observed ratio is returned with its figures in words; None, with the reason, when no
    figure other than the catalog's is recorded."""
    derive = row.derive
    if derive.kind not in ("catalog", "ridge", "at_peak"):
        return None, "a datasheet figure explains only a number derived from the catalog"
    device = devices[derive.device]
    keys = [derive.peak] + (["bandwidth"] if derive.kind == "ridge" else [])
    options = [_candidates(row, key, device, rows) for key in keys]
    if any(not found for found in options) or all(len(found) < 2 for found in options):
        return None, (
            f"no other published figure for the {device.name}'s {' or '.join(keys)} is "
            "recorded (OTHER_FIGURES in generator/analysis/replication.py), so the cause "
            "cannot be checked"
        )
    ours = [found[0][0] for found in options]
    choices = []
    for combo in itertools.product(*options):
        values = [value for value, _ in combo]
        if values == ours:
            continue  # the catalog's own figures predict no difference
        if derive.kind == "ridge":
            ratio = (values[0] / values[1]) / (ours[0] / ours[1])
        elif derive.kind == "at_peak":
            ratio = ours[0] / values[0]  # a time at the peak: the inverse
        else:
            ratio = values[0] / ours[0]
        choices.append((ratio, " ÷ ".join(text for _, text in combo)))
    target = observed if observed else 1.0
    ratio, words = min(choices, key=lambda item: abs(item[0] / target - 1))
    catalog = " ÷ ".join(
        si(value, _figure_unit(key)) for value, key in zip(ours, keys, strict=True)
    )
    return ratio, f"the report's {words} against the catalog's {catalog}"


def judge(
    cause: str, ratio: float | None, expected: float | None, basis: str = ""
) -> tuple[str, str]:
    """Whether the stated cause explains published ÷ derived, and the numbers that decide it
    (the cause's own explanation is CAUSES[cause].explanation, shown once per page).
    basis: for "other_datasheet", the figures the expected ratio comes from, or why none."""
    spec = CAUSES[cause]
    if ratio is None:
        return "not derivable", "This project cannot derive the quantity (see source)."
    if cause == "unexplained":
        scale = (
            " More than two orders of magnitude apart: a unit slip or a broken measurement."
            if not 1e-2 <= ratio <= 1e2
            else ""
        )
        return "unexplained", f"Published is {number(ratio)}× ours; no explanation yet.{scale}"
    if cause == "other_datasheet":
        if expected is None:
            why = basis or "no other figure is recorded"
            return "not consistent", f"Published is {number(ratio)}× ours; {why}."
        holds = abs(ratio / expected - 1) <= DATASHEET_TOLERANCE
        return ("consistent" if holds else "not consistent"), (
            f"Expected ×{number(expected)} from {basis}; observed ×{number(ratio)}."
        )
    if expected is None:
        return "not derivable", "Needs an analytic count."
    holds = abs(ratio / expected - 1) <= spec.tolerance
    return ("consistent" if holds else "not consistent"), (
        f"Expected ×{number(expected)}, observed ×{number(ratio)}."
    )


def configuration_flops(runs: pl.DataFrame) -> dict[tuple[str, str, int, str], float]:
    """Analytic FLOPs of one step of each configuration measured here (model, dataset, batch,
    phase), from its ok runs: what a published time of that configuration must have done."""
    found: dict[tuple[str, str, int, str], float] = {}
    ok = runs.filter((pl.col("status") == "ok") & pl.col("modelled_flops").is_not_null())
    for row in ok.sort("run_id").to_dicts():
        key = (row["model"], row["dataset"], row["batch"], row["phase"])
        found.setdefault(key, float(row["modelled_flops"]))
    return found


def implied_rate(
    row: LiteratureRow,
    devices: Mapping[str, Device],
    flops: Mapping[tuple[str, str, int, str], float],
    floor_flops: Mapping[str, float] | None = None,
) -> tuple[float, float, str] | None:
    """(FLOP/s a published time implies, the highest peak it could have run at, that peak in
    words) for a published step time; None when the row is not a time with known FLOPs."""
    derive = row.derive
    floor_flops = floor_flops or {}
    if row.published_base <= 0:
        return None
    if derive.kind == "at_peak":
        peak = devices[derive.device].peak(derive.peak)
        if peak is None:
            return None
        where = f"the {devices[derive.device].name}'s {derive.peak} peak, {si(peak, 'FLOP/s')}"
        return derive.flops / row.published_base, peak, where
    if derive.kind == "floor" and UNITS[row.unit][1] == "time":
        device = devices[derive.device]
        if not device.peaks_flops_per_s:
            return None
        key, peak = max(device.peaks_flops_per_s.items(), key=lambda item: item[1])
        where = f"the {device.name}'s highest peak ({key}, {si(peak, 'FLOP/s')})"
        return floor_flops.get(row.id, 0.0) / row.published_base, peak, where
    if derive.kind != "measured":
        return None
    work = flops.get((derive.model, derive.dataset, derive.batch, derive.quantity))
    kind = DEVICE_KIND[derive.device]
    peaks = [
        (value, key, device)
        for device in devices.values()
        if device.kind == kind
        for key, value in device.peaks_flops_per_s.items()
    ]
    if work is None or not peaks:
        return None
    peak, key, device = max(peaks, key=lambda item: (item[0], item[1]))
    where = (
        f"the highest peak of any {kind.upper()} in the catalog ({device.name}, {key}, "
        f"{si(peak, 'FLOP/s')})"
    )
    return work / row.published_base, peak, where


def _published_times(rows: list[LiteratureRow]) -> dict[str, float]:
    """Seconds per step of every time or img/s row (img/s: the batch of its workload)."""
    found = {}
    for row in rows:
        dimension = UNITS[row.unit][1]
        if dimension == "time":
            found[row.id] = row.published_base
        elif dimension == "sample_rate" and row.derive.batch and row.published:
            found[row.id] = row.derive.batch / row.published_base
    return found


def replicate(
    rows: list[LiteratureRow],
    devices: dict[str, Device],
    analytic: dict[tuple[str, str, int], dict[str, Any]],
    imported: dict[str, Totals],
    measured: dict[tuple[str, str, int, str, str], list[tuple[str, float]]] | None = None,
    flops: Mapping[tuple[str, str, int, str], float] | None = None,
) -> list[Replication]:
    """measured: (model, dataset, batch, phase, device kind) -> [(run id, median step s)] of
    ok runs; flops: (model, dataset, batch, phase) -> analytic FLOPs of one step
    (configuration_flops(runs)), to test a published time against the hardware's peak."""
    published = {r.id: r.published_base for r in rows}
    times = _published_times(rows)
    rows_by_id = {r.id: r for r in rows}
    ratios: dict[str, float | None] = {}
    out = []
    # rows a cause compares with (tensor_core_uncounted) are derived first
    ordered = sorted(rows, key=lambda r: any(u.name == "tensor_core_uncounted" for u in r.causes))
    for row in ordered:
        base, source = derive_value(
            row.derive, devices, analytic, imported, measured, published, times
        )
        if row.derive.kind in ("catalog", "ridge", "at_peak"):
            note = devices[row.derive.device].notes
            if note:
                source += f". Catalog note: {note}"
        if base is not None and row.derive.kind == "floor" and UNITS[row.unit][1] == "sample_rate":
            base = samples_per_second(row.derive.batch, base)  # the most the peak allows
            source = f"batch {row.derive.batch} ÷ " + source
        if base is not None and row.derive.kind in ("quotient", "gain") and row.unit == "%":
            base *= 100
        derived = None if base is None else base / UNITS[row.unit][0]
        ratio = row.published / derived if derived else None
        ratios[row.id] = ratio
        counts = (
            analytic.get((row.derive.model, row.derive.dataset, row.derive.batch))
            if row.derive.kind in ("analytic", "floor", "rate_from")
            else None
        )
        decided = check(row, ratio, base, counts, ratios, rows_by_id) or (
            catalog_or_export_check(row, ratio, devices, imported)
        )
        if decided is not None:
            status, explanation = decided
        else:
            basis = ""
            if row.cause == "other_datasheet":
                expected, basis = datasheet_expectation(row, devices, rows, ratio)
            else:
                expected = expected_ratio(row, base, counts)
            status, explanation = judge(row.cause, ratio, expected, basis)
        work = (
            {row.id: float(counts[row.derive.quantity]) * row.derive.steps}
            if counts and row.derive.kind == "floor"
            else {}
        )
        rate = implied_rate(row, devices, flops or {}, work)
        if rate and rate[0] > rate[1] * ROOF_TOLERANCE:
            implied, _, where = rate
            status = IMPOSSIBLE
            explanation = (
                f"{si(row.published_base, 's')} implies {si(implied, 'FLOP/s')}, above "
                f"{where}: no such device does this step in that time. {explanation}"
            )
        beyond = beyond_the_clock(row, ratio)
        if beyond:
            status, explanation = IMPOSSIBLE, f"{beyond} {explanation}"
        out.append(Replication(row, derived, source, ratio, status, explanation))
    order = {r.id: i for i, r in enumerate(rows)}
    return sorted(out, key=lambda r: order[r.row.id])
