"""Issue 66: one glossary page, linked from each term's first use on every generated page."""

from __future__ import annotations

from generator.pages.glossary import PATH, TERMS, glossary_page, link_terms


def test_each_term_is_linked_at_its_first_use_only() -> None:
    markdown = (
        "---\ntitle: calibrated\n---\n# calibrated heading\n\n"
        "A calibrated step, calibrated again; not calibrated; within one process.\n"
        "| median (its kind) | host-bound (launch) |\n"
        "<td>compute-bound</td><td><code>memory-bound</code></td>\n"
        "`ridge` in code, then the ridge.\n"
        '!!! quote "trace point in a title"\n    a trace point in the body\n'
        '<pre class="ra-bibtex"><code>modelled point\n  latency/overhead</code></pre>\n'
        "[roof](x.md) linked already, then a roof.\n"
    )
    linked = link_terms(markdown, "measurements/runs/x.md")
    assert linked.startswith("---\ntitle: calibrated\n---\n# calibrated heading\n")
    assert "A [calibrated](../glossary.md#calibrated) step, calibrated again" in linked
    assert "[not calibrated](../glossary.md#not-calibrated)" in linked
    assert "[within one process](../glossary.md#within-one-process)" in linked
    assert "| median ([its kind](../glossary.md#interval-kind)) |" in linked
    # raw HTML gets an HTML link, relative to the folder the page is served from
    assert '<td><a href="../../glossary/#compute-bound">compute-bound</a></td>' in linked
    assert "<code>memory-bound</code>" in linked  # code is never linked
    assert "`ridge` in code, then the [ridge](../glossary.md#ridge)." in linked
    assert '!!! quote "trace point in a title"' in linked
    assert "a [trace point](../glossary.md#trace-point) in the body" in linked
    assert "<code>modelled point\n  latency/overhead</code>" in linked  # inside <pre>
    assert "[roof](x.md) linked already, then a [roof](../glossary.md#roof)." in linked
    assert link_terms("the ridge", "index.md") == "the [ridge](measurements/glossary.md#ridge)"


def test_the_glossary_defines_every_term_with_its_anchor() -> None:
    page = glossary_page()
    assert page.path == PATH
    for term in TERMS:
        assert f"## {term.name} {{#{term.anchor}}}\n\n{term.definition}" in page.markdown
    names = {term.anchor for term in TERMS}
    for needed in ("modelled-point", "counted-point", "trace-point", "calibrated",
                   "within-one-process", "not-calibrated", "compute-bound", "memory-bound",
                   "latency-overhead-bound", "host-bound-launch", "ridge", "interval-kind"):  # fmt: skip
        assert needed in names
    counted = next(t for t in TERMS if t.anchor == "counted-point").definition
    assert "counted* always means counted by the hardware" in counted
