"""Files a reader takes away from a page: its data as CSV and Parquet, and each chart as SVG
and PDF (rendered by vl_convert, no browser), linked from the page itself."""

from __future__ import annotations

import hashlib
import io
import json
import posixpath
import re
from importlib.metadata import version
from pathlib import Path
from typing import Any

import polars as pl

from generator.atomic import write_bytes

DATA_DIR = "measurements/data"  # inside docs/; generated with the pages
EXPORT_WIDTH = 760  # "container" width has no meaning outside a page
VEGA_LITE_VERSION = "6.4"  # what Altair 6.3 writes (alt.SCHEMA_VERSION v6.4.x)
_CHART = re.compile(
    r'<script type="application/json" id="(?P<id>[A-Za-z0-9_.-]+)-spec">(?P<spec>.*?)</script>\n'
    r'<div class="ra-chart" id="(?P=id)" data-spec="(?P=id)-spec"></div>',
    re.S,
)


def page_slug(page: str) -> str:
    """'measurements/experiments/A.md' -> 'experiments-A'; 'hardware.md' -> 'hardware'."""
    stem = page.removesuffix(".md")
    return stem.removeprefix("measurements/").replace("/", "-")


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


def chart_files(spec: dict[str, Any], cache_dir: Path | None = None) -> tuple[bytes, bytes]:
    """SVG and PDF of one chart spec, at a fixed width. Rendering takes ~0.3 s a chart, so
    results are cached by the spec's hash and the renderer's version."""
    import vl_convert as vlc

    fixed = {**spec, "width": EXPORT_WIDTH} if spec.get("width") == "container" else spec
    key = hashlib.sha256(
        json.dumps(fixed, sort_keys=True).encode()
        + f"{version('vl-convert-python')} {VEGA_LITE_VERSION}".encode()
    ).hexdigest()
    if cache_dir is not None:
        svg_path, pdf_path = cache_dir / f"{key}.svg", cache_dir / f"{key}.pdf"
        if svg_path.is_file() and pdf_path.is_file():
            return svg_path.read_bytes(), pdf_path.read_bytes()
    svg = vlc.vegalite_to_svg(fixed, vl_version=VEGA_LITE_VERSION).encode("utf-8")
    pdf = vlc.vegalite_to_pdf(fixed, vl_version=VEGA_LITE_VERSION)
    if cache_dir is not None:
        write_bytes(svg_path, svg)
        write_bytes(pdf_path, pdf)
    return svg, pdf


def _link(page: str, target: str) -> str:
    """A Markdown link target relative to the page's file (MkDocs checks and rewrites it)."""
    return posixpath.relpath(target, posixpath.dirname(page) or ".")


def attach_downloads(
    pages: dict[str, str],
    data: dict[str, dict[str, pl.DataFrame]],
    cache_dir: Path | None = None,
) -> dict[str, bytes]:
    """Link every chart's SVG/PDF under it and the page's data at its end; returns the files
    to write (docs-relative path -> bytes). `pages` is updated in place."""
    files: dict[str, bytes] = {}
    for page, text in list(pages.items()):
        folder = f"{DATA_DIR}/{page_slug(page)}"

        def with_links(match: re.Match[str], folder: str = folder, page: str = page) -> str:
            chart_id = match.group("id")
            svg, pdf = chart_files(json.loads(match.group("spec")), cache_dir)
            files[f"{folder}/{chart_id}.svg"] = svg
            files[f"{folder}/{chart_id}.pdf"] = pdf
            return (
                match.group(0)
                + f"\n\nChart files: [SVG]({_link(page, f'{folder}/{chart_id}.svg')})"
                f" · [PDF]({_link(page, f'{folder}/{chart_id}.pdf')})"
            )

        text = _CHART.sub(with_links, text)
        links = []
        for name, frame in data.get(page, {}).items():
            csv, parquet = frame_bytes(frame)
            files[f"{folder}/{name}.csv"] = csv
            files[f"{folder}/{name}.parquet"] = parquet
            links.append(
                f"- `{name}` ({frame.height} rows): [CSV]({_link(page, f'{folder}/{name}.csv')})"
                f" · [Parquet]({_link(page, f'{folder}/{name}.parquet')})"
            )
        if links:
            text = (
                text.rstrip("\n")
                + "\n\n## Data\n\nThis page's numbers:\n\n"
                + "\n".join(links)
                + "\n"
            )
        pages[page] = text
    return files
