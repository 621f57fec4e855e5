"""A seed's claim that contradicts our number, printed where our number is shown.

Every page a contradiction names (`page` in measurements/literature/contradictions.toml) gets
a short section under its title: the claim, the seed, our number and the one-sentence
reconciliation with its cause. A contradiction whose page was not made this build (its data
absent) is still listed on the Replication page, which lists them all."""

from __future__ import annotations

from dataclasses import replace

from generator.pages.page import Page
from generator.records.contradictions import Contradiction
from generator.records.references import Reference

HEADING = "## Where a seed report disagrees"


def contradiction_markdown(item: Contradiction, references: dict[str, Reference]) -> str:
    """One contradiction as a Markdown admonition: claim, ours, cause, reconciliation."""
    reference = references.get(item.seed)
    who = reference.short_title if reference else f"seed {item.seed}"
    rows = ", ".join(f"`{row}`" for row in item.rows)
    rows_text = f" Its numbers: {rows} on the Replication page." if rows else ""
    return (
        f'!!! quote "{_quote(who)} ({item.where}) says otherwise"\n'
        f'    <span id="contradiction-{item.id}"></span>'
        f"**Seed {item.seed}:** {item.claim} **Here:** {item.ours}.\n\n"
        f"    **Why ({item.cause_words}):** {item.sentence}{rows_text}\n"
    )


def _quote(text: str) -> str:
    return text.replace('"', "'")


def _section(items: list[Contradiction], references: dict[str, Reference]) -> str:
    return "\n".join([HEADING, "", *(contradiction_markdown(i, references) for i in items)])


def with_contradictions(
    pages: list[Page], contradictions: list[Contradiction], references: dict[str, Reference]
) -> list[Page]:
    """The pages, each that shows a contradicted number with the contradictions appended."""
    by_page: dict[str, list[Contradiction]] = {}
    for item in contradictions:
        by_page.setdefault(item.page, []).append(item)
    out = []
    for page in pages:
        items = by_page.get(page.path)
        if items:
            page = replace(
                page, markdown=page.markdown.rstrip() + "\n\n" + _section(items, references) + "\n"
            )
        out.append(page)
    return out
