"""The measured-runs and complexity pages: built from what `measure` and
`complexity-tables` really wrote, and from the committed measurements."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from generator.cli import main
from generator.errors import UserError
from generator.measure import runner
from generator.measure.ceilings import measure_ceilings
from generator.pages.run_text import run_label
from tests.conftest import build_report
from tests.helpers import REPO, chart_specs, downloaded_runs

pytestmark = pytest.mark.site

TINY = """
schema_version = 1
[defaults]
warmup = 1
iterations = 3
profile = false

[[groups]]
id = "T"
title = "Tiny <group> & co"
hypothesis = "The MLP is faster than the CNN."
models = ["simple_mlp"]
datasets = ["mnist"]
batch_sizes = [4, 16]
"""


def test_every_committed_run_is_on_the_runs_page(repo_site: Path) -> None:
    html = (repo_site / "measurements" / "runs" / "index.html").read_text(encoding="utf-8")
    runs = sorted(
        p.name
        for p in (REPO / "measurements" / "runs").iterdir()
        if p.is_dir() and not p.name.startswith(".")
    )
    assert runs, "measurements/runs/ holds the committed CPU results"
    frame = downloaded_runs(REPO / "measurements")  # as its download states it
    assert frame.height == len(runs)
    for row in frame.to_dicts():
        # a short label, linked to the run's own page, which names the run id
        assert f'<a href="{row["run_id"]}/">{run_label(row)}</a>' in html
        page = repo_site / "measurements" / "runs" / row["run_id"] / "index.html"
        assert f"Run <code>{row['run_id']}</code>" in page.read_text(encoding="utf-8")
    assert frame.filter(pl.col("status") == "ok")["cv"].null_count() == 0  # CV for every run
    assert "Measured ceilings" in html


def test_complexity_page_shows_the_stored_checks(repo_site: Path) -> None:
    html = (repo_site / "measurements" / "complexity" / "index.html").read_text(encoding="utf-8")
    published = pl.read_csv(REPO / "measurements" / "complexity" / "published.csv")
    for row in published.to_dicts():
        assert f"<td>{row['model']}</td><td>{row['params']:,}</td>" in html
    assert "<td>mobilenet_v2</td>" in html and "19.413" in html  # the raw defect, shown
    assert "depthwise conv backward" in html
    assert "rejected: alexnet does not accept" in html


def test_runs_page_from_a_real_measure_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        runner,
        "measure_ceilings",
        functools.partial(measure_ceilings, runs=2, gemm_size=64, stream_elements=4096),
    )
    measurements = tmp_path / "measurements"
    measurements.mkdir()
    (measurements / "experiments.toml").write_text(TINY)
    config = str(measurements / "experiments.toml")
    assert main(["measure", "--config", config, "--measurements", str(measurements)]) == 0
    # a recorded failure must show with its error, escaped
    failed = next((measurements / "runs").iterdir())
    data = json.loads((failed / "run.json").read_text())
    data.update(status="failed", error={"type": "RuntimeError", "message": "<b>oom</b>"})
    for key in ("timing", "modelled_point"):
        data.pop(key)
    (failed / "run.json").write_text(json.dumps(data))
    site = build_report(tmp_path, measurements, monkeypatch)
    html = (site / "measurements" / "runs" / "index.html").read_text(encoding="utf-8")
    assert "Tiny &lt;group&gt; &amp; co" in html
    assert "RuntimeError: &lt;b&gt;oom&lt;/b&gt;" in html
    assert html.count("<strong>failed</strong>") == 1  # its row says so instead of a time
    run_page = site / "measurements" / "runs" / failed.name / "index.html"
    assert "RuntimeError: &lt;b&gt;oom&lt;/b&gt;" in run_page.read_text(encoding="utf-8")
    assert not (site / "measurements" / "complexity").exists()  # no tables: no page


def test_a_run_folder_without_run_json_stops_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    measurements = tmp_path / "measurements"
    shutil.copytree(REPO / "measurements", measurements)
    (measurements / "runs" / "broken-run").mkdir()
    with pytest.raises(UserError, match=r"run folder without run\.json"):
        build_report(tmp_path, measurements, monkeypatch)


def test_the_report_never_imports_torch() -> None:
    code = (
        "import sys, generator.site, generator.cli, generator.ingest.runs, generator.pages.complexity; "
        "sys.exit('torch' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 0


def test_a_gpu_run_profiled_with_ncu_gets_a_kernel_page(tmp_path: Path) -> None:
    """The GPU path on CPU, through a real recorded output: a run folder as `measure --ncu`
    leaves it, with a real ncu export (the L4 ResNet-18 b64 step) as its ncu.csv."""
    source = REPO / "measurements" / "runs" / "A-resnet18-cifar10-b64-train_step-fp32-cpu-9a29afff"
    run_id = "B-resnet18-cifar10-b64-train_step-fp32-cuda-00000000"
    folder = tmp_path / "measurements" / "runs" / run_id
    shutil.copytree(source, folder)
    run = json.loads((folder / "run.json").read_text())
    run["run_id"] = run_id
    run["config"]["device"] = "cuda"
    run["device_name"] = "NVIDIA L4"
    run["ncu"] = {"replay_mode": "kernel", "clock_control": "none", "cache_control": "all"}
    (folder / "run.json").write_text(json.dumps(run))
    ncu = REPO / "measurements" / "imported" / "l4-resnet18-train-step-b64" / "ncu.csv"
    shutil.copy(ncu, folder / "ncu.csv")
    from generator.formatting import si
    from generator.site.build import build_site

    build_site(
        tmp_path / "measurements", tmp_path / "docs", tmp_path / "site", run_mkdocs=False,
        cache_dir=tmp_path / "cache",
    )  # fmt: skip
    page = (tmp_path / "docs" / "measurements" / f"run-{run_id}.md").read_text(encoding="utf-8")
    # titled by the short run label, the device by its catalog name
    assert 'title: "resnet18 b64 train_step fp32 L4 (group ' in page
    assert "<td>4.928 GFLOP</td>" in page  # counted from the export
    assert 'data-finding="incomplete-step"' in page  # its backward is missing, as in seed 000
    own = si(run["complexity"]["step_flops"], "FLOP")  # 14.01 GFLOP since 2026-11-27's re-measure
    assert "analytic step FLOPs" in page and own in page  # the run's own count
    overview = chart_specs(tmp_path / "docs", "measurements/overview.md")
    assert "measured (ncu)" in json.dumps(overview)
    # the run page says the profile's clocks were left as found (they change kernel times)
    run_page = tmp_path / "docs" / "measurements" / "runs" / f"{run_id}.md"
    assert "| Nsight Compute profile | profiled: kernel replay, clocks as found |" in (
        run_page.read_text(encoding="utf-8")
    )
