"""The reader's question, asked in a real browser: "which H100 step is compute-bound, and how
sure are we?" From the landing page a sentence names one with its fraction of the roof, the
kind of point it rests on and its interval where it has one (with the interval's kind),
within two clicks, and the run page it links shows the same values. (Issue 49: the H100's
headline bounds rest on a counted or trace point, one profiled step with no interval, and
its timed medians are within one process; the sentence says so instead of an interval.)"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.test_browser import PageWatch, browser, server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.site

COMPUTE_BOUND = re.compile(
    r"compute-bound at ([\d.]+ %(?: \[[\d.]+, [\d.]+\] \([^)]+\))?) of the roof"
)


def _sentence_with_its_interval(texts: list[str]) -> tuple[int, str] | None:
    for index, text in enumerate(texts):
        if "H100" in text and (match := COMPUTE_BOUND.search(text)):
            return index, match.group(1)
    return None


def test_a_compute_bound_h100_step_with_its_interval_in_two_clicks(
    browser: Any,  # noqa: F811
    server: str,  # noqa: F811
) -> None:
    watch = PageWatch(browser, server)
    watch.open("/")
    clicks = 0
    items = watch.page.locator("article li")
    found = _sentence_with_its_interval(items.all_inner_texts())
    if found is None:  # one click on: the Overview, the landing page's way in
        watch.page.locator("article a[href$='measurements/overview/']").first.click()
        watch.page.wait_for_load_state("networkidle")
        clicks += 1
        items = watch.page.locator("article li")
        found = _sentence_with_its_interval(items.all_inner_texts())
    assert found is not None, "no sentence names a compute-bound H100 step and its share"
    index, share = found
    item = items.nth(index)
    run_link = item.locator("a[href*='/runs/']").first
    label = run_link.inner_text()
    run_link.click()
    watch.page.wait_for_load_state("networkidle")
    clicks += 1
    assert clicks <= 2
    assert watch.page.locator("article h1").inner_text().strip().rstrip("¶").strip() == label
    verdict = watch.page.locator("article .ra-verdict").inner_text()
    assert f"compute-bound at {share} of the roof" in verdict
    cite = watch.page.locator("article .admonition.quote").inner_text()
    assert f"compute-bound at {share} of the roof" in cite  # the number to quote, the same
    assert "H100" in cite and "point" in cite  # which kind of point the bound rests on
    assert watch.errors == [] and watch.external == []
