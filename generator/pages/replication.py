"""The Replication page: seed reports' published numbers beside ours, differences explained."""

from __future__ import annotations

from collections import Counter
from itertools import groupby

from generator.analysis.replication import Replication
from generator.formatting import number
from generator.pages.data import replication_frame
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import front_matter_title, render
from generator.records.literature import CAUSES
from generator.records.references import Reference


def _summary(results: list[Replication]) -> list[tuple[str, int, int]]:
    """Per cause: rows, and rows where the stated cause holds."""
    rows = Counter(r.row.cause for r in results)
    holds = Counter(r.row.cause for r in results if r.status == "consistent")
    return [(CAUSES[c].label, rows[c], holds[c]) for c in CAUSES if rows[c]]


def replication_page(results: list[Replication], references: dict[str, Reference]) -> Page:
    seeds = []
    for seed, items in groupby(sorted(results, key=lambda r: r.row.seed), lambda r: r.row.seed):
        seeds.append(
            {
                "seed": seed,
                "title": references[seed].short_title if seed in references else f"seed {seed}",
                "reference": references[seed].bibliographic if seed in references else "",
                "url": references[seed].url if seed in references else "",
                "rows": [
                    {
                        "id": r.row.id,
                        "where": r.row.where,
                        "quantity": r.row.quantity,
                        "configuration": r.row.configuration,
                        "published": f"{number(r.row.published, 6)} {r.row.unit}",
                        "derived": "n/a"
                        if r.derived is None
                        else f"{number(r.derived, 5)} {r.row.unit}",
                        "ratio": "n/a" if r.ratio is None else f"{r.ratio:.4g}",
                        "cause": CAUSES[r.row.cause].label,
                        "status": r.status,
                        "explanation": r.explanation,
                        "source": r.source,
                        "citation": r.row.citation,
                    }
                    for r in items
                ],
            }
        )
    unexplained = [r for r in results if r.status in ("unexplained", "not consistent")]
    markdown = render(
        "replication.md.j2",
        title=front_matter_title("Replication"),
        total=len(results),
        summary=_summary(results),
        seeds=seeds,
        unexplained=unexplained,
    )
    table = replication_frame(results)
    return Page(
        f"{GENERATED_DIR}/replication.md", "Replication", markdown, tables={"replication": table}
    )


def _render(report: Report) -> list[Page]:
    if not report.replications:
        return []
    return [replication_page(report.replications, report.references)]


PAGE = Generated(None, _render)
