"""Published numbers beside this project's derivation of the same quantity, with the stated
cause of any difference checked against the ratio (published ÷ derived) it implies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.analysis.roofline import Totals
from generator.catalog import Device
from generator.records.literature import CAUSES, UNITS, Derive, LiteratureRow

INCOMPLETE_BELOW = 0.9  # published ÷ derived under this: the profile misses work
DATASHEET_MATCH = 0.02  # within this, a datasheet figure is the catalog's own


@dataclass(frozen=True)
class Replication:
    row: LiteratureRow
    derived: float | None  # in the row's printed unit
    source: str  # where the derived number comes from, in words
    ratio: float | None  # published ÷ derived
    status: str  # consistent, not consistent, unexplained, not derivable
    explanation: str


def _catalog_value(device: Device, peak: str) -> float | None:
    return device.bandwidth_bytes_per_s if peak == "bandwidth" else device.peak(peak)


def derive_value(
    derive: Derive,
    devices: dict[str, Device],
    analytic: dict[tuple[str, str, int], dict[str, Any]],
    imported: dict[str, Totals],
    measured: dict[tuple[str, str, int, str, str], list[tuple[str, float]]] | None = None,
) -> tuple[float | None, str]:
    """The derived quantity in base units, and where it comes from (None when unavailable)."""
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
            return derive.flops / value, f"{derive.flops:.4g} FLOP at the {where} peak"
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


def judge(cause: str, ratio: float | None, expected: float | None) -> tuple[str, str]:
    """Whether the stated cause explains published ÷ derived, and the sentence saying so."""
    spec = CAUSES[cause]
    if ratio is None:
        return "not derivable", "This project cannot derive the quantity (see source)."
    if cause == "unexplained":
        scale = (
            " More than two orders of magnitude apart: a unit slip or a broken measurement."
            if not 1e-2 <= ratio <= 1e2
            else ""
        )
        return "unexplained", f"Published is {ratio:.4g}× ours; no explanation found yet.{scale}"
    if cause == "incomplete_profile":
        holds = ratio < INCOMPLETE_BELOW
        share = f"Published is {100 * ratio:.3g} % of ours."
        return ("consistent" if holds else "not consistent"), f"{spec.explanation} {share}"
    if cause == "other_datasheet":
        holds = abs(ratio - 1) > DATASHEET_MATCH
        return ("consistent" if holds else "not consistent"), (
            f"Published is {ratio:.4g}× the catalog figure. {spec.explanation}"
        )
    if expected is None:
        return "not derivable", f"{spec.explanation} (needs an analytic count)"
    holds = abs(ratio / expected - 1) <= spec.tolerance
    observed = f"Expected ×{expected:.4g}, observed ×{ratio:.4g}."
    return ("consistent" if holds else "not consistent"), f"{spec.explanation} {observed}"


def replicate(
    rows: list[LiteratureRow],
    devices: dict[str, Device],
    analytic: dict[tuple[str, str, int], dict[str, Any]],
    imported: dict[str, Totals],
    measured: dict[tuple[str, str, int, str, str], list[tuple[str, float]]] | None = None,
) -> list[Replication]:
    """measured: (model, dataset, batch, phase, device kind) -> [(run id, median step s)] of
    ok runs."""
    out = []
    for row in rows:
        base, source = derive_value(row.derive, devices, analytic, imported, measured)
        if row.derive.kind in ("catalog", "ridge", "at_peak"):
            note = devices[row.derive.device].notes
            if note:
                source += f". Catalog note: {note}"
        derived = None if base is None else base / UNITS[row.unit][0]
        ratio = row.published / derived if derived else None
        counts = (
            analytic.get((row.derive.model, row.derive.dataset, row.derive.batch))
            if row.derive.kind == "analytic"
            else None
        )
        expected = expected_ratio(row, base, counts)
        status, explanation = judge(row.cause, ratio, expected)
        out.append(Replication(row, derived, source, ratio, status, explanation))
    return out
