"""The built report in a real browser (Debian's chromium, driven by Playwright).

Skipped when chromium or Playwright is missing, unless RA_REQUIRE_BROWSER=1 (set by .ci/run):
then a browser that cannot run is a failure, not a skip.
"""

from __future__ import annotations

import functools
import os
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest

pytestmark = pytest.mark.site

CHROMIUM = os.environ.get("RA_CHROMIUM", "/usr/bin/chromium")
VIEWPORT = {"width": 1400, "height": 900}  # the reader's screen the layout is judged on
BLANK_BELOW_CHART_PX = 40  # more blank space than this under a drawing is a box sized wrong
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
]


def _browser_missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed"
    if not Path(CHROMIUM).exists() and not shutil.which(CHROMIUM):
        return f"{CHROMIUM} not found (apt-get install -y chromium)"
    return None


@pytest.fixture(scope="module")
def server(repo_site: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(repo_site))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = _browser_missing()
    if missing:
        if os.environ.get("RA_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests could not run: {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield instance
        instance.close()


class PageWatch:
    """A page that records console errors and any request leaving localhost."""

    def __init__(self, browser: Any, base: str) -> None:
        self.base = base
        self.errors: list[str] = []
        self.external: list[str] = []
        self.page = browser.new_page(viewport=VIEWPORT)
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith((self.base, "data:", "blob:")):
            route.continue_()
        else:
            self.external.append(url)
            route.abort()

    def open(self, path: str) -> None:
        self.page.goto(self.base + path, wait_until="networkidle")

    def chart_marks(self) -> list[tuple[str | None, int]]:
        try:
            self.page.wait_for_function(
                "() => [...document.querySelectorAll('div.ra-chart')]"
                ".every(e => ['ok', 'error'].includes(e.dataset.rendered))",
                timeout=15_000,
            )
        except Exception as err:  # name the page: a timeout alone says nothing
            states = self.page.eval_on_selector_all(
                "div.ra-chart", "els => els.map(e => e.dataset.rendered)"
            )
            raise AssertionError(
                f"{self.page.url}: charts not drawn {states}, errors {self.errors}"
            ) from err
        result: list[tuple[str | None, int]] = self.page.eval_on_selector_all(
            "div.ra-chart",
            # Marks that cover pixels: a bar of zero width (e.g. from 0 on a log axis) is
            # drawn as a path but shows nothing, so rects need both sides.
            "els => els.map(e => [e.dataset.rendered, [...e.querySelectorAll("
            "'svg .mark-symbol path, svg .mark-line path, svg .mark-rect path, canvas')]"
            ".filter(m => { const b = m.getBoundingClientRect();"
            " return m.closest('.mark-rect') ? b.width > 0 && b.height > 0"
            " : b.width > 0 || b.height > 0; }).length])",
        )
        return result

    def overflowing_tables(self) -> list[str]:
        """Visible tables wider than their container: columns behind a scroll bar."""
        result: list[str] = self.page.eval_on_selector_all(
            "article table",
            "els => els.filter(t => t.offsetParent !== null).flatMap(t => {"
            " const box = t.parentElement; const article = t.closest('article');"
            " const wide = box.scrollWidth > box.clientWidth + 1"
            "   || t.getBoundingClientRect().right > article.getBoundingClientRect().right + 1;"
            " return wide ? [(t.querySelector('th') || t).textContent.trim().slice(0, 40)] : [];"
            "})",
        )
        return result

    def clipped_charts(self) -> list[str]:
        """Charts whose drawing is wider than their box (a clipped title or legend), or
        whose legend labels Vega shortened with an ellipsis."""
        result: list[str] = self.page.eval_on_selector_all(
            "div.ra-chart[data-rendered='ok']",
            "els => els.flatMap(e => {"
            " const svg = e.querySelector('svg'); if (!svg) return [];"
            " const box = e.getBoundingClientRect(); const drawn = svg.getBoundingClientRect();"
            " const cut = [...svg.querySelectorAll('.role-legend text, .role-title text')]"
            "   .filter(t => t.textContent.endsWith('…')).map(t => t.textContent);"
            " if (drawn.right > box.right + 1) cut.push('wider than its box');"
            " return cut.map(c => e.dataset.spec + ': ' + c);"
            "})",
        )
        return result

    def blank_under_charts(self) -> list[str]:
        """Drawn charts whose box runs more than BLANK_BELOW_CHART_PX below their SVG or
        canvas: a fixed height, or a stray element, leaving a gap before the next text."""
        result: list[str] = self.page.eval_on_selector_all(
            "div.ra-chart[data-rendered='ok']",
            "(els, most) => els.flatMap(e => {"
            " const drawn = e.querySelector('svg.marks, canvas'); if (!drawn) return [];"
            " const gap = e.getBoundingClientRect().bottom - drawn.getBoundingClientRect().bottom;"
            " return gap > most ? [e.dataset.spec + ': ' + Math.round(gap) + ' px'] : [];"
            "})",
            BLANK_BELOW_CHART_PX,
        )
        return result


def site_pages(site: Path) -> list[str]:
    return sorted(
        "/"
        + str(p.relative_to(site).parent).replace(".", "").strip("/")
        + ("/" if p.parent != site else "")
        for p in site.rglob("index.html")
        if "assets" not in p.parts
    )


def test_every_page_loads_offline_without_errors_and_charts_have_marks(
    browser: Any, server: str, repo_site: Path
) -> None:
    pages = site_pages(repo_site)
    assert "/measurements/l4-resnet18-train-step-b64/" in pages
    watch = PageWatch(browser, server)
    charts = 0
    overflowing: dict[str, list[str]] = {}
    clipped: dict[str, list[str]] = {}
    blank: dict[str, list[str]] = {}
    for path in pages:
        watch.open(path)
        for state, marks in watch.chart_marks():
            charts += 1
            assert state == "ok", f"{path}: chart did not render"
            assert marks > 0, f"{path}: chart has no marks"
        if found := watch.overflowing_tables():
            overflowing[path] = found
        if found := watch.clipped_charts():
            clipped[path] = found
        if found := watch.blank_under_charts():
            blank[path] = found
    assert overflowing == {}, "tables wider than the page at 1400 px"
    assert clipped == {}, "charts clipped at 1400 px"
    assert blank == {}, f"chart boxes with over {BLANK_BELOW_CHART_PX} px blank under the drawing"
    assert watch.errors == []
    assert watch.external == []
    assert charts >= 2  # the L4 and BERT pages have points to draw


def test_landing_page_leads_with_results_and_a_figure(browser: Any, server: str) -> None:
    watch = PageWatch(browser, server)
    watch.open("/")
    headings = watch.page.locator("article h2").all_inner_texts()
    assert headings[0].startswith("What was found"), headings
    found = watch.page.locator("article h2 + ul li").all_inner_texts()
    assert 3 <= len(found) <= 5, found
    assert any("[" in sentence for sentence in found)  # results carry their intervals
    charts = watch.chart_marks()
    assert charts and all(state == "ok" and marks > 0 for state, marks in charts)
    figure_top = watch.page.locator("div.ra-chart").first.bounding_box()
    assert figure_top is not None and figure_top["y"] < 4 * VIEWPORT["height"]
    assert watch.errors == []


def test_navigation_link_and_palette_toggle(browser: Any, server: str) -> None:
    watch = PageWatch(browser, server)
    watch.open("/")
    watch.page.click("nav.md-nav--primary a[href$='measurements/l4-resnet18-train-step-b64/']")
    watch.page.wait_for_url("**/measurements/l4-resnet18-train-step-b64/")
    assert "ResNet-18 training step" in watch.page.inner_text("h1")
    assert all(state == "ok" and marks > 0 for state, marks in watch.chart_marks())
    scheme = watch.page.get_attribute("body", "data-md-color-scheme")
    watch.page.click("form[data-md-component='palette'] label:visible")
    watch.page.wait_for_function(
        f"() => document.body.getAttribute('data-md-color-scheme') !== '{scheme}'"
    )
    assert all(state == "ok" and marks > 0 for state, marks in watch.chart_marks())
    assert watch.errors == []
    assert watch.external == []


def test_chart_and_data_downloads_are_served(browser: Any, server: str) -> None:
    """The overview's SVG, PDF, CSV and Parquet links resolve on the served site."""
    watch = PageWatch(browser, server)
    watch.open("/measurements/overview/")
    magic = {".svg": b"<svg", ".pdf": b"%PDF", ".csv": b"device,", ".parquet": b"PAR1"}
    for suffix, start in magic.items():
        href = watch.page.get_attribute(f"article a[href$='{suffix}']", "href")
        assert href is not None, f"no {suffix} link on the overview"
        response = watch.page.request.get(urljoin(watch.page.url, href))
        assert response.status == 200, href
        assert response.body().startswith(start), href
    assert watch.errors == []
    assert watch.external == []


def test_explore_notebook_executed_with_chart_and_local_mathjax(browser: Any, server: str) -> None:
    """The notebook page ran at build time: its output table, its SVG chart (drawn by
    vl-convert in the kernel) and MathJax from this site, not a CDN."""
    watch = PageWatch(browser, server)
    watch.open("/explore/")
    html = watch.page.content()
    assert "runs, " in watch.page.inner_text("article")  # the first cell's printed count
    assert watch.page.locator("img[src^='data:image/svg+xml']").count() >= 1
    assert "assets/mathjax/MathJax.js" in html
    watch.page.wait_for_function("() => window.MathJax !== undefined", timeout=15_000)
    assert watch.errors == []
    assert watch.external == []
