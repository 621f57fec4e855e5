"""The report's trace pages: every imported trace and every measured run's profiled step."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.helpers import REPO, chart_specs

pytestmark = pytest.mark.site

RUNS = REPO / "measurements" / "runs"


def docs_page(site: Path, relative: str) -> str:
    return (site.parent / "docs" / relative).read_text(encoding="utf-8")


def test_every_trace_has_a_page(repo_site: Path) -> None:
    index = docs_page(repo_site, "measurements/traces/index.md")
    for name in ("mi250-toy-train-trace", "a100-recsys-train-trace", "a100-alexnet-noshapes-trace"):
        assert f'href="{name}/"' in index
        assert (repo_site / "measurements" / "traces" / name / "index.html").is_file()
    with_traces = [p.name for p in RUNS.iterdir() if (p / "trace.json.gz").is_file()]
    assert with_traces  # every committed run keeps its profiled step
    for run_id in with_traces:
        assert f'href="run-{run_id}/"' in index


def test_imported_trace_pages_show_points_and_findings(repo_site: Path) -> None:
    recsys = docs_page(repo_site, "measurements/traces/a100-recsys-train-trace.md")
    assert "analytic FLOPs / measured time" in recsys
    assert "ProfilerStep#1009" in recsys and "aten::mm" in recsys
    assert "uncounted-ops" in recsys
    noshapes = docs_page(repo_site, "measurements/traces/a100-alexnet-noshapes-trace.md")
    assert "missing-shapes" in noshapes


def test_run_trace_pages_have_per_layer_rooflines(repo_site: Path) -> None:
    run_id = next(p.name for p in sorted(RUNS.iterdir()) if p.name.startswith("A-resnet18"))
    page = docs_page(repo_site, f"measurements/traces/run-{run_id}.md")
    assert "## Per layer" in page and "## Per phase" in page
    match = re.search(
        r"forward layers.* op time adds up to .*, [0-9.]+ % of the profiled step", page
    )
    assert match is not None
    specs = chart_specs(repo_site.parent / "docs", f"measurements/traces/run-{run_id}.md")
    assert specs, "the trace page embeds its charts"


def test_overview_and_device_choice_take_trace_steps(repo_site: Path) -> None:
    overview = json.dumps(chart_specs(repo_site.parent / "docs", "measurements/overview.md"))
    assert "analytic FLOPs / measured time" in overview
    # the imported traces' workloads sit on the published-data part of device choice
    choice = docs_page(repo_site, "measurements/device-choice/published.md")
    assert "A100: a recommendation-model training iteration" in choice


def test_the_multi_rank_capture_has_its_page(repo_site: Path) -> None:
    """The committed two-rank capture: linked from the Traces index, its straggler named,
    its heatmaps and its one roof drawn, its numbers offered."""
    index = docs_page(repo_site, "measurements/traces/index.md")
    assert '<a href="cpu-ddp-gloo-2rank/">' in index and "straggler-rank" in index
    page = docs_page(repo_site, "measurements/traces/cpu-ddp-gloo-2rank.md")
    assert 'data-finding="straggler-rank"' in page and "Rank 1 is the straggler" in page
    assert "## Rank × step" in page and "## On one roof" in page
    specs = chart_specs(repo_site.parent / "docs", "measurements/traces/cpu-ddp-gloo-2rank.md")
    marks = json.dumps(specs)
    assert '"rect"' in marks and "triangle-up" in marks and "measured ceilings" in marks
    assert (repo_site / "measurements" / "traces" / "cpu-ddp-gloo-2rank" / "index.html").is_file()
    data = repo_site / "measurements" / "data" / "traces-cpu-ddp-gloo-2rank"
    assert {p.name for p in data.iterdir()} >= {"steps.csv", "stragglers.csv", "ranks.csv"}


def test_the_nsys_capture_has_its_page(repo_site: Path) -> None:
    """The committed Nsight Systems capture (real nsys 2022.4.2 stats reports): linked from
    the Traces index, its kernels by family, its copies, and what the sums cannot tell."""
    index = docs_page(repo_site, "measurements/traces/index.md")
    assert (
        '<a href="rtx2080ti-qwen35-batched-nsys/">' in index
        and "## Nsight Systems captures" in index
    )
    page = docs_page(repo_site, "measurements/traces/rtx2080ti-qwen35-batched-nsys.md")
    assert 'data-finding="launch-overhead"' in page and 'data-finding="h2d-copies"' in page
    assert "## Kernels" in page and "int4gemv_rowtile4_bf16_kernel" in page
    assert "without a timeline" in page and "NVIDIA GeForce RTX 2080 Ti" in page
    specs = chart_specs(
        repo_site.parent / "docs", "measurements/traces/rtx2080ti-qwen35-batched-nsys.md"
    )
    assert list(specs) == ["families-rtx2080ti-qwen35-batched-nsys"]
    data = repo_site / "measurements" / "data" / "traces-rtx2080ti-qwen35-batched-nsys"
    assert {p.name for p in data.iterdir()} >= {"kernels.csv", "copies.csv", "api.csv"}
