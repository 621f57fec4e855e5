"""Per-page downloads: data as CSV and Parquet, charts as SVG and PDF, linked from the page."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from generator.pages import chart_render
from generator.pages.chart_render import PARALLEL_FROM, chart_files, chart_key, rendered_charts
from generator.pages.downloads import attach_downloads
from generator.pages.frame_files import frame_bytes
from generator.pages.page import Page
from generator.pages.render import ChartBook, page_slug
from generator.store import Store

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
    linked, files = attach_downloads(pages, Store(tmp_path))
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
    store = Store(tmp_path)
    first = chart_files(SPEC, store)
    import vl_convert

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("rendered again although cached")

    monkeypatch.setattr(vl_convert, "vegalite_to_svg", refuse)
    monkeypatch.setattr(vl_convert, "vegalite_to_pdf", refuse)
    assert chart_files(SPEC, store) == first
    with pytest.raises(AssertionError, match="rendered again"):
        chart_files({**SPEC, "mark": "bar"}, store)


def test_a_page_per_run_leaves_its_chart_files_to_the_browser(tmp_path: Path) -> None:
    """A trace page's charts are saved from the chart's menu: its spec script is written,
    no SVG or PDF is rendered, and the page says where the files come from."""
    path = "measurements/traces/run-x.md"
    book = ChartBook(path, files=False)
    markdown = "# X\n\n" + str(book.embed(SPEC, "ops")) + "\n"
    page = Page(path, "X", markdown, book.specs, chart_files=False)
    linked, files = attach_downloads([page], Store(tmp_path))
    assert "SVG or PNG from the chart's ⋯ menu" in linked[0].markdown
    assert "[SVG](" not in linked[0].markdown
    assert sorted(files) == ["measurements/data/traces-run-x/ops.spec.js"]
    assert not list(tmp_path.iterdir())  # nothing rendered into the chart cache


def test_charts_drawn_in_processes_equal_those_drawn_here(tmp_path: Path) -> None:
    """The misses of a build are drawn in a process per core (vl-convert's threads wait on
    each other); what comes back is what one process draws, and is cached."""
    specs = [
        {**SPEC, "data": {"values": [{"x": i, "y": i * i}, {"x": i + 1, "y": 1}]}}
        for i in range(PARALLEL_FROM)
    ]
    drawn = rendered_charts(specs, Store(tmp_path / "pool"))
    assert set(drawn) == {chart_key(spec) for spec in specs}
    for spec in specs[:2]:
        svg, pdf = drawn[chart_key(spec)]
        assert svg == chart_files(spec)[0]
        assert pdf.startswith(b"%PDF")
    assert len(list((tmp_path / "pool" / "charts").rglob("*.pickle"))) == PARALLEL_FROM


def test_table_files_are_kept_by_exact_content(tmp_path: Path) -> None:
    from generator.pages.frame_files import cached_frame_bytes, frame_key

    frame = pl.DataFrame({"run": ["r1", "r2"], "t": [0.0, 1.5]})
    store = Store(tmp_path)
    made = cached_frame_bytes(frame, store)
    assert made == frame_bytes(frame)
    (entry,) = tmp_path.rglob("*.pickle")
    # the second time the bytes come from the entry, not from the frame's encoders
    entry.write_bytes(__import__("pickle").dumps((b"kept", b"kept")))
    assert cached_frame_bytes(frame.clone(), store) == (b"kept", b"kept")
    # values that print alike in a table are other keys: -0.0 and 0.0, NaN and null, 1 and 1.0
    assert frame_key(frame) != frame_key(frame.with_columns(pl.Series("t", [-0.0, 1.5])))
    nan, null = (pl.DataFrame({"t": [v]}, schema={"t": pl.Float64}) for v in (float("nan"), None))
    assert frame_key(nan) != frame_key(null)
    assert frame_key(pl.DataFrame({"t": [1]})) != frame_key(pl.DataFrame({"t": [1.0]}))
    assert frame_key(frame) != frame_key(frame.rename({"t": "u"}))
    # an unreadable entry is made again
    entry.write_bytes(b"torn")
    assert cached_frame_bytes(frame, store) == frame_bytes(frame)
    # no folder: no cache
    assert cached_frame_bytes(frame, None) == frame_bytes(frame)


def test_a_charts_svg_depends_on_its_spec_alone() -> None:
    # A colour ramp's legend is an SVG gradient, which Vega numbers per process: without
    # renumbering, the second drawing of the same chart said `gradient_2`.
    spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
        "data": {"values": [{"x": i, "y": i, "c": i / 3} for i in range(4)]},
        "mark": "rect",
        "encoding": {
            "x": {"field": "x", "type": "ordinal"},
            "y": {"field": "y", "type": "ordinal"},
            "color": {"field": "c", "type": "quantitative"},
        },
    }
    first, second = chart_render._render(spec)[0], chart_render._render(spec)[0]
    assert b'fill="url(#gradient_1)"' in first and b'id="gradient_1"' in first
    assert first == second
    assert chart_render.own_gradient_ids('<a id="gradient_7"/><b fill="url(#gradient_7)"/>') == (
        '<a id="gradient_1"/><b fill="url(#gradient_1)"/>'
    )
