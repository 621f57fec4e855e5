"""Kernel pages drawn once. Each export's roofline chart and page (hierarchical chart,
tables, downloads) cost ~0.2 s through Altair, and a report tracked over time has hundreds of
exports that never change, so each finished pair is kept in the cache folder under a key of
the export's analysed view (every field but the chart) and the code that draws it. A rebuild
after one more export draws that one alone."""

from __future__ import annotations

import hashlib
from dataclasses import fields, replace
from functools import partial
from pathlib import Path
from typing import Any

from generator.analysis.views import MeasurementView
from generator.memo import content_bytes
from generator.pages.downloads import attach_downloads
from generator.pages.page import Page
from generator.site.content_cache import (
    code_digest,
    entry_path,
    map_on_cores,
    read_entry,
    write_entry,
)


def view_key(view: MeasurementView, code: str) -> str:
    """The view's content (every field but the chart) and the code that draws it."""
    digest = hashlib.sha256(f"measurement\0{code}".encode())
    for field in fields(view):
        if field.name != "chart":
            digest.update(content_bytes(getattr(view, field.name)))
    return digest.hexdigest()[:32]


def _draw(view: MeasurementView, charts_dir: Path) -> tuple[dict[str, Any], Page]:
    from generator.charts import roofline_chart  # altair: import on use
    from generator.pages.measurement import measurement_page

    chart = roofline_chart(view.kernels, view.step, view.match.device, view.title)
    linked, files = attach_downloads([measurement_page(replace(view, chart=chart))], charts_dir)
    # its charts and tables live on as the files made from them
    return chart, replace(linked[0], files=files, charts={}, tables={})


def drawn_measurements(
    views: list[MeasurementView], cache_dir: Path
) -> tuple[list[MeasurementView], dict[str, Page]]:
    """Each view with its roofline chart, and its page by slug (downloads made), from the
    cache or drawn and stored."""
    code = code_digest()
    paths = [entry_path(cache_dir, "pages", view_key(view, code)) for view in views]
    found = [read_entry(path, dict) for path in paths]
    missing = [i for i, item in enumerate(found) if item is None]
    draw = partial(_draw, charts_dir=cache_dir / "charts")
    for index, made in zip(missing, map_on_cores(draw, [views[i] for i in missing]), strict=True):
        found[index] = (made[0], write_entry(paths[index], *made))
    drawn, pages = [], {}
    for view, item in zip(views, found, strict=True):
        assert item is not None
        chart, page = item
        drawn.append(replace(view, chart=chart))
        pages[view.slug] = page
    return drawn, pages
