"""Files a reader takes away from a page: its data as CSV and Parquet, and each chart as SVG
and PDF (rendered by vl_convert, no browser), linked from the page itself."""

from __future__ import annotations

import hashlib
import io
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from importlib.metadata import version
from pathlib import Path
from typing import Any

import polars as pl

from generator.atomic import write_bytes
from generator.pages.page import Page
from generator.pages.paths import INCLUDES_DIR
from generator.pages.render import chart_script, download_link, download_path, spec_name

RENDER_THREADS = 2
EXPORT_WIDTH = 760  # "container" width has no meaning outside a page
VEGA_LITE_VERSION = "6.4"  # what Altair 6.3 writes (alt.SCHEMA_VERSION v6.4.x)


def _flat(frame: pl.DataFrame) -> pl.DataFrame:
    """Nested columns (lists, structs) as JSON text: CSV cannot hold them."""
    nested = [c for c, t in frame.schema.items() if t.is_nested() or t == pl.Object]
    return frame.with_columns(
        pl.col(c).map_elements(
            lambda v: json.dumps(v.to_list() if isinstance(v, pl.Series) else v, default=str),
            return_dtype=pl.String,
        )
        for c in nested
    )


def frame_bytes(frame: pl.DataFrame) -> tuple[bytes, bytes]:
    flat = _flat(frame)
    parquet = io.BytesIO()
    flat.write_parquet(parquet)
    return flat.write_csv().encode("utf-8"), parquet.getvalue()


def chart_key(spec: dict[str, Any]) -> str:
    """A chart's cache key: its spec at the export width and the renderer's version."""
    return hashlib.sha256(
        json.dumps(_fixed(spec), sort_keys=True).encode()
        + f"{version('vl-convert-python')} {VEGA_LITE_VERSION}".encode()
    ).hexdigest()


def _fixed(spec: dict[str, Any]) -> dict[str, Any]:
    return {**spec, "width": EXPORT_WIDTH} if spec.get("width") == "container" else spec


def chart_files(spec: dict[str, Any], cache_dir: Path | None = None) -> tuple[bytes, bytes]:
    """SVG and PDF of one chart spec, at a fixed width. Rendering takes ~0.1 s a chart, so
    results are cached by `chart_key`. The PDF is drawn from the SVG (a third of the time
    of drawing it from the spec again, and the same picture)."""
    import vl_convert as vlc

    key = chart_key(spec)
    if cache_dir is not None:
        svg_path, pdf_path = cache_dir / f"{key}.svg", cache_dir / f"{key}.pdf"
        if svg_path.is_file() and pdf_path.is_file():
            return svg_path.read_bytes(), pdf_path.read_bytes()
    text = vlc.vegalite_to_svg(_fixed(spec), vl_version=VEGA_LITE_VERSION)
    svg, pdf = text.encode("utf-8"), vlc.svg_to_pdf(text)
    if cache_dir is not None:
        write_bytes(svg_path, svg)
        write_bytes(pdf_path, pdf)
    return svg, pdf


def rendered_charts(
    pages: list[Page], cache_dir: Path | None = None
) -> dict[str, tuple[bytes, bytes]]:
    """Every distinct chart of the pages, by `chart_key`: cached ones read, the rest
    rendered two at a time (vl-convert releases the GIL while it draws)."""
    specs = {chart_key(spec): spec for page in pages for spec in page.charts.values()}
    with ThreadPoolExecutor(RENDER_THREADS) as pool:
        files = pool.map(lambda spec: chart_files(spec, cache_dir), specs.values())
        return dict(zip(specs, files, strict=True))


def attach_downloads(
    pages: list[Page], cache_dir: Path | None = None
) -> tuple[list[Page], dict[str, bytes]]:
    """Each page's charts rendered to SVG and PDF (the page links them under each chart
    already) and its tables as CSV and Parquet, linked in a Data section at its end.
    Returns the pages with that section and the files to write (docs-relative -> bytes)."""
    files: dict[str, bytes] = {}
    linked = []
    charts = rendered_charts([p for p in pages if p.files is None], cache_dir)
    for page in pages:
        for name, text in page.includes.items():
            files[f"{INCLUDES_DIR}/{name}.md.txt"] = text.encode()
        if page.files is not None:  # made before (site/trace_cache.py)
            files.update(page.files)
            linked.append(page)
            continue
        for chart_id, spec in page.charts.items():
            files[download_path(page.path, spec_name(chart_id))] = chart_script(spec)
            svg, pdf = charts[chart_key(spec)]
            files[download_path(page.path, f"{chart_id}.svg")] = svg
            files[download_path(page.path, f"{chart_id}.pdf")] = pdf
        links = []
        for name, source in page.copies.items():
            files[download_path(page.path, name)] = source.read_bytes()
            links.append(f"- `{name}`, as measured: [{name}]({download_link(page.path, name)})")
        for name, frame in page.tables.items():
            csv, parquet = frame_bytes(frame)
            files[download_path(page.path, f"{name}.csv")] = csv
            files[download_path(page.path, f"{name}.parquet")] = parquet
            links.append(
                f"- `{name}` ({frame.height} rows): [CSV]({download_link(page.path, f'{name}.csv')})"
                f" · [Parquet]({download_link(page.path, f'{name}.parquet')})"
            )
        markdown = page.markdown
        if links:
            markdown = (
                markdown.rstrip("\n")
                + "\n\n## Data\n\nThis page's numbers:\n\n"
                + "\n".join(links)
                + "\n"
            )
        linked.append(replace(page, markdown=markdown))
    return linked, files
