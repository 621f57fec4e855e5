"""The Replication page: seed reports' published numbers beside ours, differences explained."""

from __future__ import annotations

from collections import Counter
from itertools import groupby

from generator.literature import CAUSES
from generator.pages import _ENV, front_matter_title
from generator.references import Reference
from generator.replication import Replication
from generator.units_format import number


def _summary(results: list[Replication]) -> list[tuple[str, int, int]]:
    """Per cause: rows, and rows where the stated cause holds."""
    rows = Counter(r.row.cause for r in results)
    holds = Counter(r.row.cause for r in results if r.status == "consistent")
    return [(CAUSES[c].label, rows[c], holds[c]) for c in CAUSES if rows[c]]


def replication_page(results: list[Replication], references: dict[str, Reference]) -> str:
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
    return str(
        _ENV.get_template("replication.md.j2").render(
            title=front_matter_title("Replication"),
            total=len(results),
            summary=_summary(results),
            seeds=seeds,
            unexplained=unexplained,
        )
    )
