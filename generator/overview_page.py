"""The Overview page: what was measured, headline findings as sentences computed from the
data, and one roofline with every step point of every device."""

from __future__ import annotations

from collections import Counter
from typing import Any

import polars as pl

from generator.config import ExperimentsFile
from generator.experiment_pages import group_verdict
from generator.findings import Finding
from generator.ingest.runs import MeasuredCeilings
from generator.literature import CAUSES
from generator.pages import _ENV, MeasurementView, embed_chart, front_matter_title
from generator.replication import Replication
from generator.roofline import PEAK_FOR_PRECISION
from generator.units_format import number, percent, seconds, si


def _measured(runs: pl.DataFrame, views: list[MeasurementView], literature: int) -> str:
    ok = runs.filter(pl.col("status") == "ok")
    status = Counter(runs["status"].to_list())
    others = ", ".join(f"{n} {s}" for s, n in sorted(status.items()) if s != "ok")
    devices = sorted(set(ok["device_name"].to_list()))
    models = sorted(set(ok["model"].to_list()))
    return (
        f"{len(ok)} measured training or inference steps ({others or 'none failed'}) of "
        f"{len(models)} models ({', '.join(models)}) on {', '.join(devices) or 'no device'}; "
        f"{len(views)} imported Nsight Compute exports; {literature} published numbers from "
        "the seed reports checked against ours."
    )


def _best_cpu_run(runs: pl.DataFrame, ceilings: list[MeasuredCeilings]) -> list[str]:
    ok = runs.filter((pl.col("status") == "ok") & pl.col("modelled_attained").is_not_null())
    sentences = []
    for measured in ceilings:
        mine = ok.filter(pl.col("device_name") == measured.device_name)
        gemm = measured.gemm_flops_per_s.get("fp32")
        if mine.is_empty() or not gemm:
            continue
        best = mine.sort("modelled_attained", descending=True).row(0, named=True)
        worst = mine.sort("modelled_attained").row(0, named=True)
        sentences.append(
            f"On {measured.device_name}, the fastest step by modelled FLOP/s is "
            f"{best['model']} at batch {best['batch']} ({best['phase']}): "
            f"{si(best['modelled_attained'], 'FLOP/s')}, {percent(100 * best['modelled_attained'] / gemm)} "
            f"of the measured fp32 GEMM ceiling ({si(gemm, 'FLOP/s')}); the slowest is "
            f"{worst['model']} at batch {worst['batch']} ({worst['phase']}) with "
            f"{si(worst['modelled_attained'], 'FLOP/s')} ({percent(100 * worst['modelled_attained'] / gemm)})."
        )
    return sentences


def _imported_sentence(view: MeasurementView) -> str | None:
    step, bound, device = view.step, view.bound, view.match.device
    if step.attained_flops_per_s is None or bound is None or device is None:
        return None
    errors = list(dict.fromkeys(f.id for f in view.findings if f.severity == "error"))
    caveat = f" Caveat, finding {', '.join(errors)}: not the whole step's work." if errors else ""
    return (
        f"{view.title}: {si(step.flops, 'FLOP')} in {seconds(step.time_s)} of kernel time, "
        f"{si(step.attained_flops_per_s, 'FLOP/s')} = {percent(100 * bound.efficiency)} of "
        f"the {device.name}'s {bound.precision} roof at this intensity; AI "
        f"{number(step.arithmetic_intensity)} FLOP/byte, {bound.bound}-bound (ridge "
        f"{number(bound.ridge_ai)}).{caveat}"
    )


def _findings_sentence(
    views: list[MeasurementView], run_findings: dict[str, tuple[Finding, ...]]
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


def _replication_sentence(results: list[Replication]) -> str | None:
    if not results:
        return None
    agree = sum(r.row.cause == "agrees" and r.status == "consistent" for r in results)
    explained = Counter(
        CAUSES[r.row.cause].label
        for r in results
        if r.row.cause not in ("agrees", "unexplained") and r.status == "consistent"
    )
    unexplained = sum(r.status in ("unexplained", "not consistent") for r in results)
    causes = ", ".join(f"{label} ({n})" for label, n in explained.most_common())
    return (
        f"Of {len(results)} numbers published in the seed reports, {agree} agree with ours "
        f"within 2 %; {sum(explained.values())} differ for a cause the ratio confirms: "
        f"{causes}; {unexplained} remain unexplained."
    )


def overview_points(
    runs: pl.DataFrame, views: list[MeasurementView], ceilings: list[MeasuredCeilings]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Step points (ncu-measured and CPU-modelled) and the roof of each device they sit on."""
    points: list[dict[str, Any]] = []
    roofs: list[dict[str, Any]] = []
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
        precision = view.step.dominant_precision or "fp32"
        peak = device.peak(PEAK_FOR_PRECISION[precision])
        if peak and not any(r["device"] == device.name for r in roofs):
            roofs.append(
                {
                    "device": device.name,
                    "label": f"{device.name} {precision} datasheet",
                    "peak": peak,
                    "bandwidth": device.bandwidth_bytes_per_s,
                }
            )
    ok = runs.filter((pl.col("status") == "ok") & pl.col("modelled_ai").is_not_null())
    for row in ok.to_dicts():
        points.append(
            {
                "device": row["device_name"],
                "label": row["run_id"],
                "kind": "modelled (analytic FLOPs and bytes, measured time)",
                "ai": row["modelled_ai"],
                "attained": row["modelled_attained"],
            }
        )
    for measured in ceilings:
        gemm = measured.gemm_flops_per_s.get("fp32")
        if gemm and measured.triad_bytes_per_s:
            roofs.append(
                {
                    "device": measured.device_name,
                    "label": f"{measured.device_name} measured GEMM and triad",
                    "peak": gemm,
                    "bandwidth": measured.triad_bytes_per_s,
                }
            )
    return points, roofs


def overview_page(
    views: list[MeasurementView],
    runs: pl.DataFrame,
    experiments: ExperimentsFile | None,
    ceilings: list[MeasuredCeilings],
    run_findings: dict[str, tuple[Finding, ...]],
    replications: list[Replication],
) -> tuple[str, list[dict[str, Any]]]:
    """The page and its step points (also offered as data)."""
    from generator.charts import overview_roofline  # altair: import on use

    verdicts = []
    if experiments is not None:
        for group in experiments.groups:
            verdict = group_verdict(group, runs)
            if verdict.outcome != "not evaluated":
                verdicts.append((group.id, group.title, verdict.outcome, verdict.reason))
    headlines = [
        *(s for s in (_imported_sentence(v) for v in views) if s),
        *_best_cpu_run(runs, ceilings),
        _findings_sentence(views, run_findings),
    ]
    replication = _replication_sentence(replications)
    if replication:
        headlines.append(replication)
    points, roofs = overview_points(runs, views, ceilings)
    markdown = str(
        _ENV.get_template("overview.md.j2").render(
            title=front_matter_title("Overview"),
            measured=_measured(runs, views, len(replications)),
            headlines=headlines,
            verdicts=verdicts,
            chart=embed_chart(overview_roofline(points, roofs), "overview-roofline"),
            point_count=len(points),
            devices=sorted({p["device"] for p in points}),
        )
    )
    return markdown, points
