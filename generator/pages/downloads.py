"""Files a reader takes away from a page: its data as CSV and Parquet, and each chart as SVG
and PDF (rendered by vl_convert, no browser), linked from the page itself."""

from __future__ import annotations

from dataclasses import replace

from generator.charts.vega import VegaSpec
from generator.pages.chart_render import chart_key, rendered_charts
from generator.pages.frame_files import cached_frame_bytes
from generator.pages.glossary import link_terms
from generator.pages.page import Page
from generator.pages.paths import INCLUDES_DIR
from generator.pages.render import chart_script, download_link, download_path, spec_name
from generator.store import Store


def rendered_specs(pages: list[Page]) -> list[VegaSpec]:
    """The specs whose SVG and PDF the pages link."""
    return [spec for p in pages if p.files is None and p.chart_files for spec in p.charts.values()]


def attach_downloads(
    pages: list[Page],
    store: Store | None = None,
    drawn: dict[str, tuple[bytes, bytes]] | None = None,
    keep_tables: bool = False,
) -> tuple[list[Page], dict[str, bytes]]:
    """Each page's charts rendered to SVG and PDF (the page links them under each chart
    already; `drawn`: those already rendered, by `chart_key`) and its tables as CSV and
    Parquet, linked in a Data section at its end. Returns the pages with that section and
    the files to write (docs-relative -> bytes). `store`: where the chart files are kept
    between builds, and the tables' bytes with `keep_tables` (frame_files.py; a page kept
    in the store whole keeps its own)."""
    files: dict[str, bytes] = {}
    linked = []
    charts = drawn if drawn is not None else rendered_charts(rendered_specs(pages), store)
    for page in pages:
        for name, text in page.includes.items():
            files[f"{INCLUDES_DIR}/{name}.md.txt"] = text.encode()
        if page.files is not None:  # made before (site/trace_cache.py)
            files.update(page.files)
            linked.append(page)
            continue
        for chart_id, spec in page.charts.items():
            files[download_path(page.path, spec_name(chart_id))] = chart_script(spec)
            if not page.chart_files:
                continue
            svg, pdf = charts[chart_key(spec)]
            files[download_path(page.path, f"{chart_id}.svg")] = svg
            files[download_path(page.path, f"{chart_id}.pdf")] = pdf
        links = []
        for name, source in page.copies.items():
            files[download_path(page.path, name)] = source.read_bytes()
            links.append(f"- `{name}`, as measured: [{name}]({download_link(page.path, name)})")
        for name, text in page.texts.items():
            files[download_path(page.path, name)] = text.encode()
            links.append(f"- [{name}]({download_link(page.path, name)})")
        for name, frame in page.tables.items():
            csv, parquet = cached_frame_bytes(frame, store if keep_tables else None)
            files[download_path(page.path, f"{name}.csv")] = csv
            files[download_path(page.path, f"{name}.parquet")] = parquet
            links.append(
                f"- `{name}` ({frame.height} rows): [CSV]({download_link(page.path, f'{name}.csv')})"
                f" · [Parquet]({download_link(page.path, f'{name}.parquet')})"
            )
        markdown = link_terms(page.markdown, page.path)  # the glossary, from first uses
        if links:
            markdown = (
                markdown.rstrip("\n")
                + "\n\n## Data\n\nThis page's numbers:\n\n"
                + "\n".join(links)
                + "\n"
            )
        linked.append(replace(page, markdown=markdown))
    return linked, files
