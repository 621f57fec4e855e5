"""The Seed audit page: every analysis item of the five seed reports (each table, figure,
formula and claim), whether this report reproduces it, corrects it, shows part of it or lacks
it, with a link to the page that shows it and, for the rest, the device or data it needs
(records/seed_audit.py reads the audit; the test suite checks each shown item's phrase on its
built page)."""

from __future__ import annotations

import posixpath

import polars as pl

from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import front_matter_title, render
from generator.records.seed_audit import STATUSES, AuditItem, tallies

PATH = f"{GENERATED_DIR}/seed-audit.md"
TITLE = "What this report reproduces of each seed"


def _href(item: AuditItem) -> str:
    """The item's page, relative to this page's own folder on the built site."""
    here = posixpath.splitext(PATH)[0]
    target, _, anchor = item.page.partition("#")
    relative = posixpath.relpath(target.rstrip("/") or ".", here) + "/"
    return relative + (f"#{anchor}" if anchor else "")


def _row(item: AuditItem) -> dict[str, str]:
    return {
        "item": item.item,
        "where": item.where,
        "kind": item.kind,
        "what": item.what,
        "status": item.status,
        "mark": item.mark,
        "href": _href(item) if item.page else "",
        "page": item.page_folder.rstrip("/").removeprefix("measurements/") or item.page_folder,
        "needs": item.needs,
        "note": item.note,
    }


def _frame(items: list[AuditItem]) -> pl.DataFrame:
    columns = ("item", "seed", "where", "kind", "what", "status", "page", "needs", "note")
    return pl.DataFrame([{c: getattr(i, c) for c in columns} for i in items])


def seed_audit_page(report: Report) -> Page:
    items = list(report.audit)
    counts = tallies(items)
    references = report.references
    seeds = [
        {
            "seed": t.seed,
            "title": references[t.seed].short_title if t.seed in references else "",
            "rows": [_row(i) for i in items if i.seed == t.seed],
        }
        for t in counts[:-1]
    ]
    markdown = render(
        "seed_audit.md.j2",
        title_yaml=front_matter_title(TITLE),
        title=TITLE,
        statuses=[{"mark": mark, "meaning": meaning} for mark, meaning in STATUSES.values()],
        tallies=[{"seed": t.seed or "All", "total": t.total, **t.counts} for t in counts],
        seeds=seeds,
    )
    return Page(PATH, TITLE, markdown, tables={"seed-audit": _frame(items)})


def _render(report: Report) -> list[Page]:
    return [seed_audit_page(report)] if report.audit else []


PAGE = Generated("Results", _render)
