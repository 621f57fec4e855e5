"""Stage 5, write: every registered page rendered from the report, its downloads attached,
and the generated part of docs/ brought in step with them (only what changed is written)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.pages.chart_render import ChartRenderer, chart_key
from generator.pages.contradictions import with_contradictions
from generator.pages.downloads import rendered_specs
from generator.pages.nav import site_nav
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.registry import REGISTRY
from generator.pages.render import download_path
from generator.site.files import copy_mathjax, relative_files, write_vega_bundle
from generator.site.shell import shell_pages
from generator.site.stamp import MATHJAX_DIR, VEGA_DIR
from generator.site.written import Held, write_docs
from generator.store import Store


@dataclass(frozen=True)
class LaterFiles:
    """Chart files still being drawn when the pages were written. An empty file stands in
    for each among the downloads, so MkDocs, which runs meanwhile, finds every file a page
    links; publish writes the real bytes there once MkDocs is done, before the downloads are
    copied into the site."""

    renderer: ChartRenderer
    paths: dict[str, tuple[str, int]]  # docs-relative path -> (chart key, 0 SVG / 1 PDF)

    def files(self) -> dict[str, bytes]:
        drawn = self.renderer.files()
        return {path: drawn[key][index] for path, (key, index) in self.paths.items()}


@dataclass(frozen=True)
class Written:
    docs_dir: Path
    pages: list[Page]  # as written, downloads linked
    nav: list[Any]  # for the MkDocs config
    held: Held  # what the generated folders hold: saved by the build once it is done
    later: LaterFiles | None = None  # chart files publish writes after MkDocs


def render_pages(
    report: Report, renderer: ChartRenderer | None = None
) -> tuple[list[Page], list[list[Page]]]:
    """All pages, and the pages of each registry entry (in registry order). `renderer`:
    each entry's chart files start rendering in other processes as soon as it is made."""
    made = []
    for entry in REGISTRY:
        pages = entry.render(report) if isinstance(entry, Generated) else []
        pages = with_contradictions(pages, list(report.contradictions), report.references)
        if renderer is not None:
            renderer.submit(rendered_specs(pages))
        made.append(pages)
    return [page for pages in made for page in pages], made


def write_pages(
    report: Report, docs_dir: Path, store: Store, renderer: ChartRenderer | None = None
) -> Written:
    """`renderer`: one the caller keeps open until MkDocs is done; the chart files it has
    not drawn yet are left to publish (`LaterFiles`). Without it, all are written here."""
    later = None
    if renderer is None:
        with ChartRenderer(store) as own:
            pages, made = render_pages(report, own)
            drawn = own.files()
    else:
        pages, made = render_pages(report, renderer)
        drawn = renderer.drawn_so_far()
        later = LaterFiles(renderer, _not_drawn(pages, drawn))
        drawn = {**drawn, **{key: (b"", b"") for key, _ in later.paths.values()}}
    # the shells MkDocs builds for the pages per run (site/shell.py): in no nav
    linked, held = write_docs([*pages, *shell_pages()], docs_dir, store, drawn)
    linked = linked[: len(pages)]
    write_vega_bundle(docs_dir / VEGA_DIR)
    copy_mathjax(docs_dir / MATHJAX_DIR)
    hand_written = _hand_written(docs_dir)
    titles = {page: title for page in hand_written if (title := _heading(docs_dir / page))}
    nav = site_nav(REGISTRY, made, hand_written, titles)
    return Written(docs_dir, linked, nav, held, later)


def _not_drawn(
    pages: list[Page], drawn: dict[str, tuple[bytes, bytes]]
) -> dict[str, tuple[str, int]]:
    paths: dict[str, tuple[str, int]] = {}
    for page in pages:
        if page.files is not None or not page.chart_files:
            continue
        for chart_id, spec in page.charts.items():
            if (key := chart_key(spec)) not in drawn:
                for index, kind in enumerate(("svg", "pdf")):
                    paths[download_path(page.path, f"{chart_id}.{kind}")] = (key, index)
    return paths


def _hand_written(docs_dir: Path) -> set[str]:
    """The pages under docs_dir outside the generated folder (not walked: 25,000 files at
    1,000 runs)."""
    pages = relative_files(docs_dir, skip=GENERATED_DIR)
    return {path for path in pages if path.endswith((".md", ".ipynb"))}


def _heading(page: Path) -> str | None:
    """A Markdown page's title as MkDocs would take it for the nav: its front matter's
    `title`, else its first level-1 heading."""
    if page.suffix != ".md":
        return None
    lines = page.read_text(encoding="utf-8").splitlines()
    if lines and lines[0] == "---":
        front = lines[1 : lines.index("---", 1)] if "---" in lines[1:] else []
        for line in front:
            if line.startswith("title:"):
                return line.removeprefix("title:").strip().strip("\"'")
    return next((line[2:].strip() for line in lines if line.startswith("# ")), None)
