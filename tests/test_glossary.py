"""Issue 66: one glossary page, linked from each term's first use on every generated page."""

from __future__ import annotations

import numpy as np
import pytest

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


def test_number_format_ranges_are_computed_from_the_bits() -> None:
    """Seed 004's Table 3 gives the bits; the largest and smallest normal values follow."""
    from generator.analysis.number_formats import FORMATS

    form = {f.name: f for f in FORMATS}
    assert [(form[n].exponent_bits, form[n].mantissa_bits) for n in
            ("FP64", "FP32", "TF32", "FP16", "BF16")] == [(11, 52), (8, 23), (8, 10), (5, 10), (8, 7)]  # fmt: skip
    assert form["FP16"].largest_finite == 65504
    assert form["FP16"].smallest_normal == 2.0**-14
    assert form["BF16"].largest_finite == pytest.approx(3.3895e38, rel=1e-4)
    assert form["FP32"].largest_finite == pytest.approx(3.4028e38, rel=1e-4)
    assert form["FP32"].largest_finite == np.finfo(np.float32).max
    assert form["FP64"].largest_finite == np.finfo(np.float64).max
    assert form["FP32"].smallest_normal == np.finfo(np.float32).tiny
    assert form["FP16"].largest_finite == np.finfo(np.float16).max
    assert form["FP8 E4M3"].largest_finite == 448  # no infinities: the top exponent is finite
    assert form["FP8 E5M2"].largest_finite == 57344
    assert form["TF32"].bits == 19 and form["TF32"].smallest_normal == form["FP32"].smallest_normal


def test_the_glossary_shows_the_number_formats_with_their_tensor_cores() -> None:
    from generator.catalog import load_catalog

    markdown = glossary_page(load_catalog()).markdown
    assert "## number formats {#number-formats}" in markdown
    fp16 = next(line for line in markdown.splitlines() if line.startswith("| FP16:"))
    assert "| 1 + 5 + 10 = 16 | 65,504 | 6.10 × 10<sup>-5</sup> (2<sup>-14</sup>) |" in fp16
    assert fp16.endswith("| Volta and later |")
    bf16 = next(line for line in markdown.splitlines() if line.startswith("| BF16:"))
    assert "3.39 × 10<sup>38</sup>" in bf16 and bf16.endswith("| Ampere and later |")
    fp32 = next(line for line in markdown.splitlines() if line.startswith("| FP32:"))
    assert "3.40 × 10<sup>38</sup>" in fp32 and "none: CUDA cores" in fp32
    fp64 = next(line for line in markdown.splitlines() if line.startswith("| FP64:"))
    assert "Ampere and later; in the catalog A100, H100" in fp64
