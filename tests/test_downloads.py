"""Per-page downloads: data as CSV and Parquet, charts as SVG and PDF, linked from the page."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from generator.pages.downloads import attach_downloads, chart_files, frame_bytes
from generator.pages.page import Page
from generator.pages.render import ChartBook, page_slug

SPEC: dict[str, Any] = {
    "$schema": "https://vega.github.io/schema/vega-lite/v6.4.1.json",
    "data": {"values": [{"x": 1, "y": 2}, {"x": 2, "y": 3}]},
    "mark": "point",
    "encoding": {
        "x": {"field": "x", "type": "quantitative"},
        "y": {"field": "y", "type": "quantitative"},
    },
    "width": "container",
}


def test_slugs() -> None:
    assert page_slug("measurements/experiments/A.md") == "experiments-A"
    assert page_slug("hardware.md") == "hardware"


def test_frames_round_trip_with_nested_columns_as_json() -> None:
    frame = pl.DataFrame({"a": [1, 2], "tags": [["x"], ["y", "z"]]})
    csv, parquet = frame_bytes(frame)
    assert csv.decode().splitlines()[0] == "a,tags"
    back = pl.read_parquet(io.BytesIO(parquet))
    assert back["a"].to_list() == [1, 2]
    assert back["tags"].to_list() == ['["x"]', '["y", "z"]']


def test_pages_get_links_and_files(tmp_path: Path) -> None:
    path = "measurements/experiments/A.md"
    book = ChartBook(path)
    markdown = "# A\n\n" + str(book.embed(SPEC, "sweep")) + "\n\ntext\n"
    pages = [
        Page(path, "A", markdown, book.specs, {"runs": pl.DataFrame({"run": ["r1"]})}),
        Page("hardware.md", "H", "# H\n"),
    ]
    linked, files = attach_downloads(pages, tmp_path)
    page = linked[0].markdown
    assert (
        "Chart files: [SVG](../data/experiments-A/sweep.svg) · [PDF](../data/experiments-A/sweep.pdf)"
        in page
    )
    assert "- `runs` (1 rows): [CSV](../data/experiments-A/runs.csv)" in page
    assert files["measurements/data/experiments-A/sweep.svg"].startswith(b"<svg")
    assert files["measurements/data/experiments-A/sweep.pdf"].startswith(b"%PDF")
    assert files["measurements/data/experiments-A/runs.parquet"][:4] == b"PAR1"
    assert linked[1].markdown == "# H\n"  # no chart, no data: untouched


def test_a_chart_id_is_used_once_per_page() -> None:
    book = ChartBook("measurements/overview.md")
    book.embed(SPEC, "roofline")
    with pytest.raises(ValueError, match="used twice"):
        book.embed(SPEC, "roofline")
    assert "Chart files" not in book.embed({}, "empty")  # nothing drawn, nothing to download


def test_rendered_charts_are_cached_by_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = chart_files(SPEC, tmp_path)
    import vl_convert

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("rendered again although cached")

    monkeypatch.setattr(vl_convert, "vegalite_to_svg", refuse)
    monkeypatch.setattr(vl_convert, "vegalite_to_pdf", refuse)
    assert chart_files(SPEC, tmp_path) == first
    with pytest.raises(AssertionError, match="rendered again"):
        chart_files({**SPEC, "mark": "bar"}, tmp_path)
