"""Kernel pages drawn once. Each export's roofline chart and page (hierarchical chart,
tables, downloads) cost ~0.2 s through Altair, and a report tracked over time has hundreds of
exports that never change, so each finished pair is kept in the cache folder under a key of
the export's analysed view (every field but the chart) and the code that draws it. A rebuild
after one more export draws that one alone."""

from __future__ import annotations

from dataclasses import fields, replace
from functools import partial
from typing import Any

from generator.analysis.views import MeasurementView
from generator.memo import content_bytes
from generator.pages.downloads import attach_downloads
from generator.pages.page import Page
from generator.pages.workers import map_on_cores
from generator.site.content_cache import PageEntry
from generator.site.context import BuildContext
from generator.store import Store

ENTRY: PageEntry[dict[str, Any]] = PageEntry(dict)


def view_key(view: MeasurementView, store: Store) -> str:
    """The view's content (every field but the chart); the store adds the code's digest."""
    parts = [content_bytes(getattr(view, f.name)) for f in fields(view) if f.name != "chart"]
    return store.key("pages", parts)


def _draw(view: MeasurementView, store: Store) -> tuple[dict[str, Any], Page]:
    from generator.charts import roofline_chart  # altair: import on use
    from generator.pages.measurement import measurement_page

    chart = roofline_chart(view.kernels, view.step, view.roofs, view.title)
    linked, files = attach_downloads([measurement_page(replace(view, chart=chart))], store)
    # its charts and tables live on as the files made from them
    return chart, replace(linked[0], files=files, charts={}, tables={})


def drawn_measurements(
    views: list[MeasurementView], context: BuildContext
) -> tuple[list[MeasurementView], dict[str, Page]]:
    """Each view with its roofline chart, and its page by slug (downloads made), from the
    store or drawn and stored."""
    draw = partial(_draw, store=context.store)

    def make(missing: list[int]) -> list[tuple[dict[str, Any], Page]]:
        return map_on_cores(draw, [views[i] for i in missing], context.workers)

    keys = [view_key(view, context.store) for view in views]
    found = context.store.get_or_make_all("pages", keys, make, ENTRY)
    drawn, pages = [], {}
    for view, (chart, page) in zip(views, found, strict=True):
        drawn.append(replace(view, chart=chart))
        pages[view.slug] = page
    return drawn, pages
