"""Rendering a page: Jinja templates with autoescape, chart embedding, titles.

Everything that came from data is HTML-escaped (Jinja autoescape): kernel names hold `<`, `>`,
`&` and quotes. Tables are HTML so no Markdown syntax inside a name can break them, and chart
specs go into scripts beside the page's downloads (`chart_script`).
"""

from __future__ import annotations

import json
import posixpath
import re
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from generator.charts.vega import VegaSpec
from generator.pages.paths import DATA_DIR, GENERATED_DIR
from generator.pages.template_cache import compiled_in_active_store
from generator.records.import_source import Source

# Its compiled templates are kept in the build's store: compiling them was 0.1 s of every
# build at 1,000 runs.
_ENVIRONMENT = compiled_in_active_store(
    Environment(
        loader=PackageLoader("generator.pages", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
        # a template is read once per process: asking whether its file changed was a stat on
        # every page, 0.3 s of a 1,000-run rebuild
        auto_reload=False,
    )
)


def one_line(text: str) -> str:
    """Collapse whitespace so text fits inside an indented admonition."""
    return re.sub(r"\s+", " ", text).strip()


SPEC_SUFFIX = ".spec.js"  # a chart's spec, as a script beside the page's other downloads
SPEC_HEAD = "(window.RA_CHARTS = window.RA_CHARTS || {})[document.currentScript.src] = "


def spec_name(chart_id: str) -> str:
    return f"{chart_id}{SPEC_SUFFIX}"


def chart_script(spec: VegaSpec) -> bytes:
    """A chart's spec as a script that files it under its own URL: charts.js loads it when
    it draws the chart. A script, not JSON to fetch: it loads from file:// as well."""
    payload = (
        json.dumps(spec, separators=(",", ":"), sort_keys=True, allow_nan=False)
        .replace("<", "\\u003c")  # a kernel name's `</script>` stays text wherever it lands
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )
    return f"{SPEC_HEAD}{payload};\n".encode()


def embed_chart(spec: VegaSpec, chart_id: str, page: str) -> Markup:
    """A chart div that names its spec's script (`chart_script`, written with the page's
    downloads); charts.js renders it with vega-embed. The spec stays out of the page: a
    page per run is a fraction of the text for MkDocs to read and the reader to load."""
    if not spec:
        return Markup('<p class="ra-no-chart">No point can be drawn: see the totals above.</p>')
    src = posixpath.relpath(download_path(page, spec_name(chart_id)), built_folder(page))
    return Markup(f'<div class="ra-chart" id="{chart_id}" data-src="{escape(src)}"></div>')


def built_folder(page: str) -> str:
    """The folder a page is served from, relative to the site root (MkDocs'
    use_directory_urls: a/b.md -> a/b/, a/index.md -> a/): raw HTML's URLs are relative
    to it, and MkDocs rewrites only Markdown links."""
    stem = page.removesuffix(".md")
    folder = posixpath.dirname(stem) if posixpath.basename(stem) == "index" else stem
    return folder or "."


def html_title(title: str) -> str:
    """A title from data, on one line and HTML-escaped: MkDocs themes print page and nav
    titles without escaping them."""
    return str(escape(one_line(title)))


def front_matter_title(title: str) -> Markup:
    """The page title for the front matter (JSON strings are valid YAML)."""
    return Markup(json.dumps(html_title(title)))


def source_context(source: Source) -> dict[str, Any]:
    """What an imported measurement's page header shows of its source.toml."""
    return {
        "title": source.title,
        "title_yaml": front_matter_title(source.title),
        "origin": source.origin,
        "citation": one_line(source.citation),
        "notes": one_line(source.notes),
    }


def render(template: str, **context: Any) -> str:
    """A page template (`pages/templates/NAME`) rendered with autoescape."""
    return _ENVIRONMENT.get_template(template).render(**context)


BROWSER_EXPORT = (
    "Chart files: SVG or PNG from the chart's ⋯ menu; its numbers are under Data below."
)


class ChartBook:
    """The charts of one page: embedded in its Markdown with links to their SVG and PDF
    files, and kept as objects for the downloads stage to render (never parsed back out of
    the Markdown). `files` False (a page per run or trace: thousands of them): no files are
    rendered, the reader saves a chart from its menu in the browser (the same Vega
    renderer), which keeps ~0.3 s of vl-convert per page out of the build."""

    def __init__(self, page: str, files: bool = True) -> None:
        self.page = page  # relative to docs/
        self.files = files
        self.specs: dict[str, VegaSpec] = {}

    def embed(self, spec: VegaSpec, chart_id: str) -> Markup:
        html = embed_chart(spec, chart_id, self.page)
        if not spec:
            return html
        if chart_id in self.specs:
            raise ValueError(f"chart id {chart_id!r} used twice on {self.page}")
        self.specs[chart_id] = spec
        if not self.files:
            return html + Markup(f"\n\n{BROWSER_EXPORT}")
        svg, pdf = (download_link(self.page, f"{chart_id}.{kind}") for kind in ("svg", "pdf"))
        return html + Markup(f"\n\nChart files: [SVG]({svg}) · [PDF]({pdf})")


def page_slug(page: str) -> str:
    """'measurements/experiments/A.md' -> 'experiments-A'; 'hardware.md' -> 'hardware'."""
    stem = page.removesuffix(".md")
    return stem.removeprefix(f"{GENERATED_DIR}/").replace("/", "-")


def download_path(page: str, name: str) -> str:
    """Where a page's download `name` lies, relative to docs/."""
    return f"{DATA_DIR}/{page_slug(page)}/{name}"


def download_link(page: str, name: str) -> str:
    """A Markdown link target to a page's download, relative to the page's file (MkDocs
    checks and rewrites it)."""
    return f"{_data_dir_from(posixpath.dirname(page) or '.')}/{page_slug(page)}/{name}"


@cache  # a few folders hold every page; relpath costs ~10 µs a call, 30,000 calls a build
def _data_dir_from(folder: str) -> str:
    return posixpath.relpath(DATA_DIR, folder)
