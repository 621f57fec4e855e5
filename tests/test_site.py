"""The built report: every page present, data escaped, offline, never half-written."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from generator.errors import UserError
from generator.pages.render import SPEC_HEAD
from tests.conftest import build_report
from tests.helpers import REPO, fp32_kernel, write_long

pytestmark = pytest.mark.site

PLANTED = "<script>alert(1)</script><img src=x onerror=alert(2)> & \"q\" 'a' | *md* _x_"


def test_every_imported_measurement_has_a_page(repo_site: Path) -> None:
    imported = REPO / "measurements" / "imported"
    names = sorted(p.name for p in imported.iterdir() if (p / "ncu.csv").is_file())
    for name in names:
        assert (repo_site / "measurements" / name / "index.html").is_file()
    traces = sorted(p.name for p in imported.iterdir() if (p / "trace.json.gz").is_file())
    for name in traces:  # trace-only imports have their page under Traces
        assert (repo_site / "measurements" / "traces" / name / "index.html").is_file()
    index = (repo_site / "measurements" / "index.html").read_text(encoding="utf-8")
    for name in names:
        assert f'href="{name}/"' in index
    assert (repo_site / "hardware" / "index.html").is_file()


def test_l4_page_shows_the_totals_and_ranges(repo_site: Path) -> None:
    html = (repo_site / "measurements" / "l4-resnet18-train-step-b64" / "index.html").read_text(
        encoding="utf-8"
    )
    for cell in ("4.928 GFLOP", "709.9 MB", "7.376 ms", "668.1 GFLOP/s", "memory", "32.1 %"):
        assert f"<td>{cell}</td>" in html
    assert "<td>forward</td><td>89</td>" in html
    assert "<td>backward</td><td>1</td>" in html


def chart_spec(page: Path, chart_id: str | None = None) -> Any:
    """The spec of a chart on a built page (the first, or the one `chart_id` names): its
    div's data-src, resolved as the browser does against the page's folder, read."""
    html = page.read_text(encoding="utf-8")
    chart = re.escape(chart_id) if chart_id else '[^"]+'
    found = re.search(rf'<div class="ra-chart" id="{chart}" data-src="([^"]+)"', html)
    assert found is not None, f"no chart {chart_id or ''} on {page}"
    script = (page.parent / found.group(1)).read_text(encoding="utf-8")
    assert script.startswith(SPEC_HEAD) and script.endswith(";\n")
    spec = json.loads(script.removeprefix(SPEC_HEAD).removesuffix(";\n"))
    assert isinstance(spec, dict)
    return spec


def test_every_chart_on_every_page_names_a_spec_that_is_there(repo_site: Path) -> None:
    charts = 0
    for page in repo_site.rglob("index.html"):
        html = page.read_text(encoding="utf-8")
        assert 'data-spec="' not in html  # no spec inside a page any more
        for src in re.findall(r'<div class="ra-chart" id="[^"]+" data-src="([^"]+)"', html):
            assert (page.parent / src).is_file(), f"{page}: {src}"
            charts += 1
    assert charts > 100


def test_chart_specs_are_embedded_and_valid_json(repo_site: Path) -> None:
    spec = chart_spec(repo_site / "measurements" / "l4-resnet18-train-step-b64" / "index.html")
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/v6")
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks[:3] == ["line", "point", "point"]  # ceilings, kernels, step
    assert marks[3:5] == ["rule", "text"]  # the ridge marked and named (issue 18)
    kernels = spec["layer"][1]["encoding"]
    assert kernels["color"]["field"] == "family"  # grouped into kernel families
    assert kernels["size"]["field"] == "time_share_pct"  # sized by share of kernel time


def test_site_is_offline(repo_site: Path) -> None:
    for page in repo_site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        for tag in re.findall(r"<(?:script|link|img)\b[^>]*>", html):
            if 'rel="canonical"' in tag:
                continue  # the page's own published address: named, never fetched
            assert not re.search(r'(?:src|href)="(?:https?:)?//', tag), f"{page}: {tag}"
    assert (repo_site / "assets" / "vega" / "vega-bundle.js").stat().st_size > 500_000


def test_kernel_names_are_escaped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    measurements = tmp_path / "measurements"
    folder = measurements / "imported" / "planted"
    folder.mkdir(parents=True)
    rows = fp32_kernel(0, ffma="1000", dram_read=("Kbyte", "1"), name=PLANTED)
    # a tensor-core name puts the kernel name into a finding's evidence too
    rows += fp32_kernel(1, ffma="1000", dram_read=("Kbyte", "1"), name="xmma " + PLANTED)
    write_long(folder / "ncu.csv", rows)
    (folder / "source.toml").write_text(
        'schema_version = 1\ntitle = "Planted <b>name</b></title><script>alert(3)</script>"\norigin = "https://example.org/x.csv"\n'
        'device = "l4"\nmodel = "m"\nworkload = "w"\nphase = "kernel"\nprecision = "fp32"\n'
        'citation = "test"\n',
        encoding="utf-8",
    )
    site = build_report(tmp_path, measurements, monkeypatch)
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "<script>alert" not in html, page
        assert "<img src=x" not in html, page
        assert "<b>name</b>" not in html, page
    html = (site / "measurements" / "planted" / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt; &amp;" in html
    src = re.search(r'<div class="ra-chart" id="[^"]+" data-src="([^"]+)"', html)
    assert src is not None
    script = (site / "measurements" / "planted" / src.group(1)).read_text(encoding="utf-8")
    assert "\\u003cscript\\u003ealert(1)" in script and "<script>" not in script
    finding = html[html.index('data-finding="tensor-work-uncounted"') :]
    assert "&#39;xmma &lt;script&gt;alert(1)&lt;/script&gt;" in finding[:2000]
    assert "<em>md</em>" not in html  # Markdown in a name stays text
    search = (site / "search" / "search_index.json").read_text(encoding="utf-8")
    assert "<script>alert" not in search


def test_a_bad_measurement_leaves_the_site_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    measurements = tmp_path / "measurements"
    shutil.copytree(REPO / "measurements", measurements)
    site = build_report(tmp_path, measurements, monkeypatch)
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    broken = measurements / "imported" / "l4-resnet18-train-step-b64" / "ncu.csv"
    broken.write_text(
        broken.read_text(encoding="utf-8").replace('"Mbyte"', '"MiB"', 1), encoding="utf-8"
    )
    docs = tmp_path / "docs"
    with pytest.raises(UserError) as caught:
        from generator.site.build import build_site

        build_site(measurements=measurements, docs_dir=docs, site_dir=site)
    assert caught.value.what == "the row gives metric dram__bytes_read.sum the unknown unit 'MiB'"
    assert caught.value.file == str(broken)
    after = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    assert after == before
    assert not list(tmp_path.glob(".site-*"))


def test_source_toml_errors_name_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    measurements = tmp_path / "measurements"
    shutil.copytree(REPO / "measurements", measurements)
    source = measurements / "imported" / "rtx5070-gemm-tiled" / "source.toml"
    source.write_text(source.read_text(encoding="utf-8") + 'gpu = "5070"\n', encoding="utf-8")
    with pytest.raises(UserError) as caught:
        build_report(tmp_path, measurements, monkeypatch)
    assert (caught.value.file, caught.value.key, caught.value.what) == (
        str(source),
        "gpu",
        "unknown key",
    )
    source.write_text(
        source.read_text(encoding="utf-8").replace('gpu = "5070"\n', 'registry_model = "gemm"\n'),
        encoding="utf-8",
    )
    with pytest.raises(UserError) as caught:
        build_report(tmp_path / "second", measurements, monkeypatch)
    assert caught.value.key == "registry_model"
    assert caught.value.what.startswith("unknown registry model 'gemm'; valid: alexnet,")


def test_findings_show_on_pages(repo_site: Path) -> None:
    l4 = (repo_site / "measurements" / "l4-resnet18-train-step-b64" / "index.html").read_text(
        encoding="utf-8"
    )
    assert 'class="admonition failure ra-finding" data-finding="incomplete-step"' in l4
    assert "holds 1 kernel(s) against 89 in &#39;forward&#39;" in l4
    assert "<code>ncu --nvtx --nvtx-push-pop-scope process</code>" in l4
    page = (repo_site / "measurements" / "findings" / "index.html").read_text(encoding="utf-8")
    for finding_id in ("incomplete-step", "missing-metric"):
        assert f'data-finding="{finding_id}"' in page
    # The BERT export's tensor-pipe instructions all come from RNG, elementwise, softmax and
    # split-K reduce kernels: no matrix work went uncounted, so no error says it did.
    bert = (repo_site / "measurements" / "a100-bert-attention" / "index.html").read_text(
        encoding="utf-8"
    )
    assert 'data-finding="tensor-work-uncounted"' not in bert
    runs = (repo_site / "measurements" / "runs" / "index.html").read_text(encoding="utf-8")
    assert '<a href="../findings/">findings</a>' in runs


def test_l4_counted_forward_flops_match_the_analytic_count(repo_site: Path) -> None:
    """The forward range's hardware-counted FP32 FLOPs against our analytic forward count of
    the same ResNet-18 at batch 64: they agree within 2 %, so no flops-mismatch. The analytic
    forward is 4.764 GFLOP with batch norm at 6 FLOP per element (4.770 at 8): its BN layers
    hold 64 · (64·16·16 + 4·64·8·8 + 5·128·4·4 + 5·256·2·2 + 5·512) = 3,244,032 outputs."""
    html = (repo_site / "measurements" / "l4-resnet18-train-step-b64" / "index.html").read_text(
        encoding="utf-8"
    )
    assert (
        "<td>analytic forward FLOPs (resnet18, cifar10, batch 64)</td><td>4.764 GFLOP</td>" in html
    )
    assert "<td>counted FLOPs in the forward range</td><td>4.828 GFLOP</td>" in html
    assert "counted 4.928 GFLOP against 14.01 GFLOP analytic for the training step" in html
    assert 'data-finding="flops-mismatch"' not in html


def test_generated_pages_are_not_committed() -> None:
    """docs/measurements/ and docs/hardware.md are build outputs: a committed copy would go
    stale the moment measurements/ changes."""
    import subprocess

    listed = subprocess.run(
        ["git", "ls-files", "docs/measurements", "docs/hardware.md"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    assert listed.stdout == ""


def test_kernel_families_on_the_l4_page(repo_site: Path) -> None:
    html = (repo_site / "measurements" / "l4-resnet18-train-step-b64" / "index.html").read_text(
        encoding="utf-8"
    )
    assert "<tr><td>conv fprop</td><td>20</td><td>4.657 ms</td><td>63.1 %</td>" in html
    assert "<tr><td>backward</td><td>memory copy</td><td>1</td>" in html


def test_hardware_page_has_multi_device_rooflines_and_measured_ceilings(repo_site: Path) -> None:
    from generator.catalog import load_catalog

    html = (repo_site / "hardware" / "index.html").read_text(encoding="utf-8")
    for prefix, key in (("roofline-fp32-", "fp32"), ("roofline-fp16-tensor-", "fp16_tensor")):
        ids = re.findall(rf'<div class="ra-chart" id="({prefix}[a-z-]+)"', html)
        assert len(ids) >= 4, ids  # the catalog a few devices at a time (issue 49)
        drawn: list[str] = []
        for chart_id in ids:
            spec = chart_spec(repo_site / "hardware" / "index.html", chart_id)
            data = spec["layer"][1]["data"]  # a named dataset (charts/scales.py: inline)
            drawn += [row["device"] for row in data.get("values") or spec["datasets"][data["name"]]]
        assert sorted(drawn) == sorted(d.name for d in load_catalog() if d.peak(key) is not None)
    from generator.catalog import device_label
    from generator.formatting import si

    for path in (REPO / "measurements" / "ceilings").glob("*.json"):
        measured = json.loads(path.read_text())
        gemm = measured["gemm"]["fp32"]["best_flops_per_s"]
        name = device_label(measured["device_name"])  # the catalog's name, one per device
        row = f"<td>{name}</td><td>fp32 GEMM</td><td>{si(gemm, 'FLOP/s')}</td>"
        assert row in html
    # The H100 measured here is in the catalog by its alias: measured beside the datasheet.
    h100 = json.loads((REPO / "measurements/ceilings/nvidia-h100-80gb-hbm3.json").read_text())
    bf16 = h100["gemm"]["bf16"]["best_flops_per_s"]
    assert (
        f"<td>bf16 GEMM</td><td>{si(bf16, 'FLOP/s')}</td><td>989.5 TFLOP/s</td>"
        f"<td>{100 * bf16 / 989.5e12:.3g} %</td>" in html
    )


def test_every_page_is_in_the_navigation_in_reading_order(repo_site: Path) -> None:
    html = (repo_site / "index.html").read_text(encoding="utf-8")
    nav = html[
        html.index('<nav class="md-nav md-nav--primary"') : html.index("md-sidebar--secondary")
    ]
    links = re.findall(r'href="([^"#]+)"', nav)
    runs_page = (repo_site / "measurements" / "runs" / "index.html").read_text(encoding="utf-8")
    traces = (repo_site / "measurements" / "traces" / "index.html").read_text(encoding="utf-8")
    kernels = (repo_site / "measurements" / "index.html").read_text(encoding="utf-8")
    choice = (repo_site / "measurements/device-choice/index.html").read_text(encoding="utf-8")
    for page in repo_site.rglob("index.html"):
        url = page.parent.relative_to(repo_site).as_posix()
        if url in (".", "search") or url.startswith("assets"):
            continue
        # one page per run (its own, its trace's, its kernels'): linked, not in the nav
        if url.startswith("measurements/runs/"):
            assert f'href="{page.parent.name}/"' in runs_page, url
            continue
        if url.startswith("measurements/traces/run-"):
            assert f'href="{page.parent.name}/"' in traces, url
            continue
        if url.startswith("measurements/run-"):
            assert f'href="{page.parent.name}/"' in kernels, url
            continue
        if url.startswith("measurements/device-choice/"):  # one page per group, from the hub
            assert f'href="{page.parent.name}/"' in choice, url
            continue
        assert any(link.rstrip("/").endswith(url) for link in links), url
    order = [next(i for i, link in enumerate(links) if name in link) for name in
             ("overview", "experiments/A", "runs", "hardware", "device-choice", "complexity",
              "explore", "cite", "architecture", "about")]  # fmt: skip
    assert order == sorted(order)
