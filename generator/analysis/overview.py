"""The Overview's analysis: every step on one roofline (ncu-counted steps under their
datasheet roof, modelled runs under the ceilings measured on their machine), and the headline
sentences computed from the data (`headline_sentences`), with their caveats."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from generator.analysis.bound_words import bound_words
from generator.analysis.replication import IMPOSSIBLE, Replication
from generator.analysis.results import Result
from generator.analysis.roofs import MEASURED, Roof, gemm_ceiling, roof_for
from generator.analysis.trace_roofline import POINT_KIND as TRACE_POINT_KIND
from generator.analysis.view_verdicts import trace_roof
from generator.analysis.views import MeasurementView, TraceView
from generator.catalog import device_label
from generator.formatting import number, percent, seconds, si
from generator.records.ceilings import MeasuredCeilings
from generator.records.finding import Finding
from generator.records.literature import CAUSES
from generator.records.peaks import PEAK_LABELS


@dataclass(frozen=True)
class OverviewPoints:
    points: list[dict[str, Any]]  # device, label, kind, ai, attained
    roofs: list[dict[str, Any]]  # device, label, peak, bandwidth


def attained(row: Mapping[str, Any], results: Mapping[str, Result]) -> float | None:
    """An ok run's modelled FLOP/s: its workload's result's (`results`: workload -> result);
    None where it has no result or no modelled FLOPs."""
    result = results.get(row["workload"]) if row["status"] == "ok" else None
    rate = result.attained if result is not None else None
    return rate.value if rate is not None else None


def overview_points(
    runs: pl.DataFrame,
    results: Mapping[str, Result],
    views: list[MeasurementView],
    ceilings: list[MeasuredCeilings],
    traces: list[TraceView] | None = None,
) -> OverviewPoints:
    """Step points (ncu-measured, trace-derived and CPU-modelled: their workload's result's
    modelled FLOP/s, `results`) and the roof of each device they sit on."""
    points: list[dict[str, Any]] = []
    roofs: list[dict[str, Any]] = []
    for trace in traces or []:
        total, device = trace.analysis.total, trace.analysis.match.device
        if device is None or not total["arithmetic_intensity"] or not total["attained_flops_per_s"]:
            continue
        points.append(
            {
                "device": device.name,
                "label": trace.title,
                "kind": TRACE_POINT_KIND,
                "ai": total["arithmetic_intensity"],
                "attained": total["attained_flops_per_s"],
            }
        )
        _add_roof(roofs, trace_roof(trace.analysis))
    for view in views:
        device = view.match.device
        if device is None or view.step.arithmetic_intensity is None:
            continue
        points.append(
            {
                "device": device.name,
                "label": view.title,
                "kind": "measured (ncu)",
                "ai": view.step.arithmetic_intensity,
                "attained": view.step.attained_flops_per_s,
            }
        )
        _add_roof(roofs, view.roof)  # the kernel page's (its verdict's) roof
    ok = runs.filter((pl.col("status") == "ok") & pl.col("modelled_ai").is_not_null())
    for row in ok.to_dicts():
        points.append(
            {
                "device": row["device_label"],
                "label": row["run_id"],
                "kind": "modelled (analytic FLOPs and bytes, measured time)",
                "ai": row["modelled_ai"],
                "attained": attained(row, results),
            }
        )
    for measured in ceilings:
        label = device_label(measured.device_name)
        # the one roof rule (roofs.py): the same fp32 and memory roofs as the run pages'
        under = roof_for(label, "fp32", MEASURED, [measured])
        if under is not None and not any(r["label"] == under.label for r in roofs):
            roofs.append(_roof_row(under))
    return OverviewPoints(points, roofs)


def _roof_row(roof: Roof) -> dict[str, Any]:
    return {
        "device": roof.device,
        "label": roof.label,
        "precision": PEAK_LABELS.get(roof.precision, roof.precision),
        "source": roof.source,
        "peak": roof.peak_flops_per_s,
        "bandwidth": roof.bandwidth_bytes_per_s,
    }


def _add_roof(roofs: list[dict[str, Any]], roof: Roof | None) -> None:
    """A page's roof, the first of its device's (one roof per device, as on its page)."""
    if roof is not None and not any(r["device"] == roof.device for r in roofs):
        roofs.append(_roof_row(roof))


# --- Headline sentences -------------------------------------------------------------------


def _errors(findings: Sequence[Finding]) -> list[Finding]:
    """Error-severity findings, each id and title once (an error says a number is wrong)."""
    return list({(f.id, f.title): f for f in findings if f.severity == "error"}.values())


def imported_sentence(view: MeasurementView) -> str | None:
    """One ncu profile's step against its roof, its bound in words that hold (bound_words);
    None when it has no attained rate, bound or device."""
    step, bound, device = view.step, view.bound, view.match.device
    if step.attained_flops_per_s is None or bound is None or device is None:
        return None
    return (
        f"{view.title}: {si(step.flops, 'FLOP')} in {seconds(step.time_s)} of kernel time, "
        f"{si(step.attained_flops_per_s, 'FLOP/s')} against the {device.name}'s "
        f"{bound.precision} roof of {si(bound.roof_flops_per_s, 'FLOP/s')} at AI "
        f"{number(step.arithmetic_intensity)} FLOP/byte (ridge {number(bound.ridge_ai)}): "
        f"{bound_words(bound.bound, bound.efficiency)} (on the summed kernel time of one "
        "profiled step: no interval)."
    )


def left_out_sentence(views: Sequence[MeasurementView]) -> str | None:
    """The profiles not headlined because an error finding says their numbers are wrong."""
    parts = []
    for view in views:
        errors = _errors(view.findings)
        if errors and imported_sentence(view) is not None:
            found = "; ".join(f"{f.id}: {f.title}" for f in errors)
            parts.append(f"{view.title} ({found})")
    if not parts:
        return None
    return (
        "Not headlined, because an error finding says numbers of theirs should not be used "
        f"as they are (see their pages): {'; '.join(parts)}."
    )


# (modelled FLOP/s, run id, run row, ceiling precision, GEMM ceiling FLOP/s)
_Ranked = tuple[float, str, dict[str, Any], str, float]


def _run_words(item: _Ranked) -> str:
    rate, _, row, key, gemm = item
    return (
        f"{row['model']} at batch {row['batch']} ({row['phase']}, {row['precision']}): "
        f"{si(rate, 'FLOP/s')}, {percent(100 * rate / gemm)} of the measured {key} "
        f"GEMM ceiling ({si(gemm, 'FLOP/s')})"
    )


def best_run_sentences(
    runs: pl.DataFrame,
    results: Mapping[str, Result],
    ceilings: Sequence[MeasuredCeilings],
    run_findings: Mapping[str, tuple[Finding, ...]],
) -> list[str]:
    """Per measured machine, its fastest and slowest step by modelled FLOP/s (its workload's
    result's, `results`), each against the measured GEMM ceiling of its own precision; runs
    with an error finding are left out."""
    ok = runs.filter(pl.col("status") == "ok")
    sentences = []
    for measured in ceilings:
        rows: list[_Ranked] = []
        for row in ok.filter(pl.col("device_name") == measured.device_name).to_dicts():
            rate = attained(row, results)
            found = gemm_ceiling(measured.device_name, row["precision"], [measured])
            if rate is not None and found and not _errors(run_findings.get(row["run_id"], ())):
                rows.append((rate, row["run_id"], row, *found))
        if not rows:
            continue
        rows.sort(key=lambda item: (item[0], item[1]))
        sentences.append(
            f"On {device_label(measured.device_name)}, the fastest step by modelled FLOP/s is "
            f"{_run_words(rows[-1])}; the slowest is {_run_words(rows[0])}."
        )
    return sentences


def findings_sentence(
    views: Sequence[MeasurementView], run_findings: Mapping[str, tuple[Finding, ...]]
) -> str:
    every = [f for v in views for f in v.findings] + [
        f for found in run_findings.values() for f in found
    ]
    if not every:
        return "No finding: every check passed."
    counts = Counter(f.id for f in every)
    errors = sorted({f.id for f in every if f.severity == "error"})
    parts = ", ".join(f"{fid} ({n})" for fid, n in counts.most_common())
    return f"{len(every)} findings: {parts}." + (
        f" Errors (numbers that should not be used as they are): {', '.join(errors)}."
        if errors
        else ""
    )


def replication_sentence(results: Sequence[Replication]) -> str | None:
    if not results:
        return None
    agree = sum(r.row.cause == "agrees" and r.status == "consistent" for r in results)
    explained = Counter(
        " × ".join(CAUSES[use.name].label for use in r.row.causes)
        for r in results
        if r.row.cause not in ("agrees", "unexplained") and r.status == "consistent"
    )
    impossible = sum(r.status == IMPOSSIBLE for r in results)
    unexplained = sum(r.status in ("unexplained", "not consistent", "open") for r in results)
    recorded = sum(r.status == "recorded" for r in results)
    causes = ", ".join(f"{label} ({n})" for label, n in explained.most_common())
    return (
        f"Of {len(results)} numbers published in the seed reports, {agree} agree with ours "
        f"within 2 %; {sum(explained.values())} differ for a cause the ratio confirms"
        + (f": {causes}" if causes else "")
        + (
            f"; {impossible} are physically impossible (they imply a rate above the device's peak)"
            if impossible
            else ""
        )
        + f"; {unexplained} remain unexplained or open, each with its next check"
        + (f"; {recorded} are recorded only (their device or data is not here)" if recorded else "")
        + "."
    )


def headline_sentences(
    views: Sequence[MeasurementView],
    runs: pl.DataFrame,
    results: Mapping[str, Result],
    ceilings: Sequence[MeasuredCeilings],
    run_findings: Mapping[str, tuple[Finding, ...]],
    replications: Sequence[Replication],
) -> list[str]:
    """The Overview's headline findings as plain sentences (HTML-escape them where shown),
    each with its caveats: a profile with an error finding is not headlined but named in one
    sentence that says why; bounds are worded by bound_words (fraction of the roof stated)."""
    headlines = [
        sentence
        for view in views
        if not _errors(view.findings) and (sentence := imported_sentence(view))
    ]
    left_out = left_out_sentence(views)
    if left_out:
        headlines.append(left_out)
    headlines += best_run_sentences(runs, results, ceilings, run_findings)
    headlines.append(findings_sentence(views, run_findings))
    replication = replication_sentence(replications)
    if replication:
        headlines.append(replication)
    return headlines
