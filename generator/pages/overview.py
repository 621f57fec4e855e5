"""The Overview page: what was measured, headline findings as sentences computed from the
data, and one roofline with every step point of every device."""

from __future__ import annotations

from collections import Counter

import polars as pl

from generator.analysis.bound_words import LATENCY_BOUND_BELOW
from generator.analysis.overview import headline_sentences
from generator.analysis.views import MeasurementView
from generator.formatting import percent
from generator.pages.bound_sentences import bound_sentences
from generator.pages.counts import ncu_text
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render


def _measured(runs: pl.DataFrame, views: list[MeasurementView], literature: int) -> str:
    ok = runs.filter(pl.col("status") == "ok")
    status = Counter(runs["status"].to_list())
    others = ", ".join(f"{n} {s}" for s, n in sorted(status.items()) if s != "ok")
    devices = sorted(set(ok["device_label"].to_list()))  # the catalog's names, one per device
    models = sorted(set(ok["model"].to_list()))
    return (
        f"{len(ok)} measured training or inference steps ({others or 'none failed'}) of "
        f"{len(models)} models ({', '.join(models)}) on {', '.join(devices) or 'no device'}; "
        f"{ncu_text(views)}; {literature} published numbers from "
        "the seed reports checked against ours."
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
    headlines = bound_sentences(
        runs, report.step_verdicts, "runs", report.run_findings
    ) + headline_sentences(views, runs, report.results, ceilings, run_findings, replications)
    points, roofs = report.overview.points, report.overview.roofs
    path = f"{GENERATED_DIR}/overview.md"
    book = ChartBook(path)
    markdown = render(
        "overview.md.j2",
        title=front_matter_title("Overview"),
        measured=_measured(runs, views, len(replications)),
        headlines=headlines,
        latency_below=percent(100 * LATENCY_BOUND_BELOW),
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
