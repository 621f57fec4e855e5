"""The checks of the causes added for the seeds' own measurements: a profile missing a named
part, forward MACs called a step, uncounted tensor-core work, a clock summed over kernels, a
time or rate against the peak, data loading inside a timed epoch, the seed's own arithmetic
within its printed digits (or a summary that contradicts it), a peak of another precision
taken as the roof, and the report's own join of kernels to times. Each returns the status
and the numbers deciding it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.analysis.roofline import Totals
from generator.analysis.thresholds import ROOF_TOLERANCE
from generator.catalog import Device
from generator.formatting import number, percent, si
from generator.records.literature import CAUSES, UNITS, LiteratureRow
from generator.records.peaks import PEAK_LABELS


def printed_rounding(row: LiteratureRow) -> float:
    """Relative half-unit of the last printed digit: 0.3 may be anything from 0.25 to 0.35."""
    text = row.published_text.lstrip("~≈")
    if not text or row.published == 0:
        return 0.0
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10.0**-decimals / abs(row.published)


def _profile_expectation(use: str, counts: dict[str, Any]) -> tuple[float, str]:
    """published ÷ ours that a profile missing `use` predicts, and the missing part in words."""
    step, backward = float(counts["step_flops"]), float(counts["backward_flops"])
    if use == "backward":
        share = backward / step
        return 1 - share, (
            f"the backward pass ({si(backward, 'FLOP')}, {percent(100 * share)} of the step)"
        )
    linear = float(counts["linear_backward_flops"])
    missing = backward - linear
    return linear / backward, (
        f"the convolutions' backward ({si(missing, 'FLOP')}, {percent(100 * missing / backward)} "
        "of the backward pass; the profiler counts only the linear layers' "
        f"{si(linear, 'FLOP')})"
    )


def check(
    row: LiteratureRow,
    ratio: float | None,
    base: float | None,
    counts: dict[str, Any] | None,
    ratios: Mapping[str, float | None],
    rows_by_id: Mapping[str, LiteratureRow],
) -> tuple[str, str] | None:
    """The check of the causes added for the seeds' own measurements (None: `judge` decides).
    Each returns the status and the numbers that decide it."""
    uses = row.causes
    names = {u.name for u in uses}
    note = f" {row.note}" if row.note else ""
    if "recorded" in names:
        return "recorded", row.note
    if ratio is None:
        return "not derivable", "This project cannot derive the quantity (see source)." + note
    shown = f"Published is {number(ratio)}× ours."
    if "open_question" in names:
        return "open", shown + note
    if "unexplained" in names:
        scale = (
            " More than two orders of magnitude apart: a unit slip or a broken measurement."
            if not 1e-2 <= ratio <= 1e2
            else ""
        )
        return "unexplained", shown + scale + note
    if "intensity_definition" in names:
        return "stated", shown + note
    dimension = UNITS[row.unit][1]
    use = uses[0]
    tolerance = CAUSES[use.name].tolerance
    if use.name == "below_peak":
        if dimension == "time":
            holds = ratio >= 1 - tolerance
            words = f"efficiency {percent(100 / ratio)}" if ratio else ""
        else:
            holds = ratio <= 1 + tolerance
            words = f"efficiency {percent(100 * ratio)}"
        return ("consistent" if holds else "not consistent"), f"{shown} That is an {words}.{note}"
    if use.name == "data_loading_in_epoch":
        holds = ratio >= 10
        return ("consistent" if holds else "not consistent"), (
            f"{shown} Needs at least 10× the compute floor.{note}"
        )
    if use.name == "clock_summed":
        n = int(use.argument)
        scaled = ratio * n if dimension == "time" else ratio / n
        low, high = (1 - tolerance, 2.0) if dimension == "time" else (0.5, 1 + tolerance)
        holds = low <= scaled <= high
        return ("consistent" if holds else "not consistent"), (
            f"{shown} Corrected for {n} kernels summed: ×{number(scaled)} (needs "
            f"{number(low)} to {number(high)}).{note}"
        )
    if use.name == "tensor_core_uncounted":
        reference = ratios.get(use.argument)
        if reference is None:
            return "not derivable", f"Row {use.argument} has no ratio to compare with."
        holds = ratio <= 0.5 * reference
        missing = ""
        if counts is not None:
            uncounted = (reference - ratio) * float(counts["step_flops"])
            missing = f" About {si(uncounted, 'FLOP')} a step is uncounted."
        other = rows_by_id[use.argument].device.upper() or use.argument
        return ("consistent" if holds else "not consistent"), (
            f"{shown} The same workload counts ×{number(reference)} on the {other} "
            f"(row {use.argument}); needs at most half that.{missing}{note}"
        )
    if use.name == "incomplete_profile":
        if counts is None:
            return "not derivable", "Needs an analytic count."
        expected, part = _profile_expectation(use.argument, counts)
        if use.argument == "conv_backward":  # a profiler's formula: exact but for the digits
            tolerance = 0.02 + printed_rounding(row)
        holds = abs(ratio / expected - 1) <= tolerance
        return ("consistent" if holds else "not consistent"), (
            f"Missing: {part}. Without it expected ×{number(expected)}; observed "
            f"×{number(ratio)}.{note}"
        )
    if any(u.name == "forward_macs_as_step" for u in uses) or len(uses) > 1:
        expected = 1.0
        for one in uses:
            if one.name == "forward_macs_as_step":
                if counts is None:
                    return "not derivable", "Needs an analytic count."
                expected *= float(counts["forward_macs"]) / float(counts["step_flops"])
            else:
                expected *= CAUSES[one.name].expected or 1.0
        tolerance = sum(CAUSES[one.name].tolerance for one in uses)
        holds = abs(ratio / expected - 1) <= tolerance
        return ("consistent" if holds else "not consistent"), (
            f"Expected ×{number(expected)}, observed ×{number(ratio)}.{note}"
        )
    own_rows = row.derive.kind in ("quotient", "gain", "mean")
    if own_rows and use.name in ("agrees", "contradicts_own_rows"):
        tolerance += _own_rows_rounding(row, rows_by_id)
        within = f"± {percent(100 * tolerance)} (2 % and the printed digits)"
        if use.name == "contradicts_own_rows":
            holds = abs(ratio - 1) > tolerance
            return ("consistent" if holds else "not consistent"), (
                f"The report's own rows give ×{number(1 / ratio)} of the printed value, "
                f"outside {within}: the two do not agree.{note}"
            )
        holds = abs(ratio - 1) <= tolerance
        return ("consistent" if holds else "not consistent"), (
            f"The report's own arithmetic: ×{number(ratio)}, within {within}.{note}"
        )
    return None


def _own_rows_rounding(row: LiteratureRow, rows_by_id: Mapping[str, LiteratureRow]) -> float:
    """Relative uncertainty of the report's own arithmetic from the printed digits of the row
    and the rows it rests on; a gain (q - 1) carries its quotient's q / (q - 1) times over."""
    inputs = sum(printed_rounding(rows_by_id[i]) for i in row.derive.rows)
    if row.derive.kind == "gain":
        top, bottom = (rows_by_id[i].published_base for i in row.derive.rows)
        quotient = top / bottom if bottom else 0.0
        inputs *= abs(quotient / (quotient - 1)) if quotient != 1 else 0.0
    return printed_rounding(row) + inputs


def catalog_or_export_check(
    row: LiteratureRow,
    ratio: float | None,
    devices: Mapping[str, Device],
    imported: Mapping[str, Totals],
) -> tuple[str, str] | None:
    """The checks that need the catalog or the raw export beside the ratio: a peak of another
    precision taken as the roof, and the report's join of kernels to times (None: neither)."""
    use = row.causes[0] if row.causes else None
    if ratio is None or use is None or use.name not in ("precision_peak", "aggregation_join"):
        return None
    tolerance = CAUSES[use.name].tolerance
    if use.name == "aggregation_join":
        own = imported.get(row.derive.folder)
        quantity = row.derive.quantity.removesuffix("_seed_matching")
        weighted = getattr(own, quantity, None) if own is not None else None
        holds = abs(ratio - 1) <= tolerance + printed_rounding(row)
        each = (
            f" Each launch weighted once by its own time gives {percent(weighted, 4)}: the "
            f"published value is ×{number(row.published / weighted)} of it."
            if weighted
            else ""
        )
        return ("consistent" if holds else "not consistent"), (
            f"The report's own join, recomputed from the raw export: published ÷ ours = "
            f"×{number(ratio)}.{each}"
        )
    device = devices[row.derive.device]
    used, meant = device.peak(use.argument), device.peak(row.derive.peak)
    if used is None or meant is None:
        return "not derivable", f"The catalog {device.name} has no {use.argument} peak."
    expected = used / meant
    holds = abs(ratio / expected - 1) <= tolerance
    ridges = (
        f" Its ridge is {number(used / device.bandwidth_bytes_per_s)} FLOP/byte with the "
        f"{PEAK_LABELS[use.argument]} peak, {number(meant / device.bandwidth_bytes_per_s)} "
        f"with the {PEAK_LABELS[row.derive.peak]} one."
        if row.derive.kind == "catalog"
        else ""
    )
    return ("consistent" if holds else "not consistent"), (
        f"Expected ×{number(expected)} ({PEAK_LABELS[use.argument]} {si(used, 'FLOP/s')} ÷ "
        f"{PEAK_LABELS[row.derive.peak]} {si(meant, 'FLOP/s')}), observed "
        f"×{number(ratio)}.{ridges}{(' ' + row.note) if row.note else ''}"
    )


def beyond_the_clock(row: LiteratureRow, ratio: float | None) -> str:
    """Why a clock, or a time or rate counted in cycles, is beyond the device's boost clock;
    "" when it is not."""
    if ratio is None or row.derive.kind not in ("clock", "cycles"):
        return ""
    if UNITS[row.unit][1] == "time":
        if ratio * ROOF_TOLERANCE >= 1:
            return ""
        return f"Shorter than its cycles take at the boost clock (×{number(ratio)}): an implausible clock."
    if ratio <= ROOF_TOLERANCE:
        return ""
    return f"{number(ratio)}× what the boost clock allows: an implausible clock."
