"""The Overview page: what was measured, headline findings as sentences computed from the
data, and one roofline with every step point of every device."""

from __future__ import annotations

from collections import Counter

import polars as pl

from generator.analysis.replication import Replication
from generator.analysis.views import MeasurementView
from generator.findings import Finding
from generator.formatting import number, percent, seconds, si
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render
from generator.records.ceilings import MeasuredCeilings
from generator.records.literature import CAUSES


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


def overview_page(report: Report) -> Page:
    """Headlines computed from the data, the verdicts, and every step point on one roofline."""
    from generator.charts import overview_roofline  # altair: import on use

    views, runs, ceilings = report.views, report.runs, report.ceilings
    run_findings, replications = report.run_findings, report.replications
    verdicts = [
        (group.id, group.title, verdict.outcome, verdict.reason)
        for group in (report.experiments.groups if report.experiments else [])
        if (verdict := report.verdicts[group.id]).outcome != "not evaluated"
    ]
    headlines = [
        *(s for s in (_imported_sentence(v) for v in views) if s),
        *_best_cpu_run(runs, ceilings),
        _findings_sentence(views, run_findings),
    ]
    replication = _replication_sentence(replications)
    if replication:
        headlines.append(replication)
    points, roofs = report.overview.points, report.overview.roofs
    path = f"{GENERATED_DIR}/overview.md"
    book = ChartBook(path)
    markdown = render(
        "overview.md.j2",
        title=front_matter_title("Overview"),
        measured=_measured(runs, views, len(replications)),
        headlines=headlines,
        verdicts=verdicts,
        chart=book.embed(overview_roofline(points, roofs), "overview-roofline"),
        point_count=len(points),
        devices=sorted({p["device"] for p in points}),
    )
    step_points = pl.DataFrame(points, infer_schema_length=None)
    return Page(
        path,
        "Overview",
        markdown,
        book.specs,
        {"step-points": step_points},
    )


PAGE = Generated(None, lambda report: [overview_page(report)])
