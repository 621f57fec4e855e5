"""The site's navigation, from the registry's order and the pages each entry made."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from generator.pages.page import Generated, HandWritten, Page
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import html_title


def site_nav(
    registry: Sequence[Generated | HandWritten],
    made: Sequence[Sequence[Page]],
    hand_written: set[str],
    titles: dict[str, str] | None = None,
) -> list[Any]:
    """`made[i]`: the pages registry entry i made. Consecutive entries with one section
    share one navigation section; hand-written pages the registry does not name (paths
    relative to docs/, the generated folder excluded) come last, in file order, under their
    `titles` where given (a dirty MkDocs build reads no unchanged page, so it cannot take a
    nav title from the page's heading)."""
    nav: list[Any] = []
    current: tuple[str, list[Any]] | None = None
    for entry, pages in zip(registry, made, strict=True):
        if isinstance(entry, HandWritten):
            items = [{entry.title: entry.path}] if entry.path in hand_written else []
        else:
            items = [{html_title(page.title): page.path} for page in _listed(entry, pages)]
        section = entry.section
        if section is None:
            current = None
            nav += items
        elif current is not None and current[0] == section:
            current[1].extend(items)
        elif items:
            current = (section, items)
            nav.append({section: items})
    named = {page for item in nav for page in _nav_pages(item)}
    titles = titles or {}
    nav += [
        {titles[page]: page} if page in titles else page
        for page in sorted(hand_written - named)
        if not page.startswith(".") and not page.startswith(f"{GENERATED_DIR}/")
    ]
    return nav


def _listed(entry: Generated, pages: Sequence[Page]) -> list[Page]:
    """The pages of an entry that the nav lists, in its nav order."""
    shown = [p for p in pages if p.in_nav or len(pages) <= entry.nav_all_up_to]
    if entry.nav_order is not None:
        order = entry.nav_order
        shown.sort(key=lambda page: order(page.path))
    return shown


def _nav_pages(item: Any) -> list[str]:
    if isinstance(item, str):
        return [item]
    if isinstance(item, dict):
        return [p for value in item.values() for p in _nav_pages(value)]
    return [p for value in item for p in _nav_pages(value)]
