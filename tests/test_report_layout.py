"""Issue 18's layout: the landing page leads with results, the runs page links short labels
to per-run pages (kept out of the navigation), the hardware table is split so every column
fits, every device has a per-precision peak, and the tool's own pages sit under Project."""

from __future__ import annotations

from dataclasses import replace

import polars as pl
import pytest

from generator.analysis.interval import CALIBRATED, Interval
from generator.analysis.phases import StepParts
from generator.analysis.verdicts import Verdict
from generator.catalog import load_catalog
from generator.charts.precision import precision_chart, precision_rows
from generator.config import load_experiments
from generator.pages.bound_sentences import bound_sentences
from generator.pages.experiment import experiment_page
from generator.pages.hardware import MAIN_PEAKS, hardware_page
from generator.pages.landing import backward_sentences, headlines, verdict_summary
from generator.pages.nav import site_nav
from generator.pages.page import Page, Report
from generator.pages.registry import REGISTRY
from generator.pages.run_text import half_width, run_label
from generator.site.analyse import analyse
from generator.site.check import check
from generator.site.context import build_context
from generator.site.draw import draw
from generator.site.load import load_measurements
from generator.site.write import render_pages
from tests.helpers import REPO

GOLDEN = REPO / "tests" / "data" / "golden" / "measurements"
EXPERIMENTS = load_experiments(REPO / "measurements" / "experiments.toml")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    return draw(
        check(analyse(load_measurements(build_context(GOLDEN, tmp_path_factory.mktemp("cache")))))
    )


def _verdicts(outcomes: dict[str, str]) -> dict[str, Verdict]:
    return {
        g.id: Verdict(outcomes.get(g.id, "not evaluated"), "reason") for g in EXPERIMENTS.groups
    }


def test_verdict_summary_counts_every_group() -> None:
    text = verdict_summary(
        EXPERIMENTS, _verdicts({"A": "supported", "B": "supported", "D": "not supported"})
    )
    unjudged = len(EXPERIMENTS.groups) - 3
    assert text.startswith("Of 3 hypotheses stated, 2 supported, 1 not supported")
    assert f"; {unjudged} more are reported without a verdict" in text
    assert verdict_summary(None, {}) == (
        "No experiment group states an expectation the data could test yet."
    )


def _parts(model: str, device: str, ratio: float, flops: float) -> StepParts:
    return StepParts(
        model=model, dataset="cifar10", batch=64, precision="fp32", device=device,
        workload=model, run_ids=(model,), samples=100, parts=(),
        time_ratio=Interval(ratio, ratio * 0.95, ratio * 1.05, CALIBRATED, 10), flop_ratio=flops,
        rate_ratio=None,
    )  # fmt: skip


def test_backward_sentences_span_each_device_fp32_only() -> None:
    tf32 = replace(_parts("resnet18", "H100", 0.8, 1.93), precision="tf32")
    found = backward_sentences(
        [
            _parts("resnet18", "EPYC", 3.3, 1.93),
            _parts("resnet50", "EPYC", 2.4, 1.98),
            _parts("resnet18", "H100", 1.9, 1.93),
            tf32,
        ]
    )
    assert len(found) == 2
    epyc, h100 = found
    assert epyc.startswith("On EPYC, the backward pass takes 2.4× [2.28, 2.52] (calibrated")
    assert "to 3.3× [3.13, 3.46] (calibrated, 10 processes) (resnet18 b64 (cifar10, fp32))" in epyc
    assert "over 2 fp32 training steps" in epyc and "FLOP ratio is 1.93 to 1.98." in epyc
    assert h100 == (
        "On H100, the backward pass takes 1.9× [1.8, 1.99] (calibrated, 10 processes) "
        "(resnet18 b64 (cifar10, fp32)) the forward time over 1 fp32 training step, where the "
        "analytic FLOP ratio is 1.93."
    )
    assert backward_sentences([]) == []


def test_landing_leads_with_three_to_five_results_and_the_key_figure(report: Report) -> None:
    found = headlines(report)
    assert 3 <= len(found) <= 5
    # each device's bound with its interval first (issue 38), then the verdicts
    bounds = bound_sentences(
        report.runs, report.step_verdicts, "measurements/runs", report.run_findings
    )[:2]
    assert found[: len(bounds)] == bounds
    assert found[len(bounds)].startswith("Of ")
    assert any("×" in sentence and "[" in sentence for sentence in found[len(bounds) + 1 :])
    pages, _ = render_pages(report)
    landing = next(page for page in pages if page.path == "index.md")
    markdown = landing.markdown
    assert markdown.index("## What was found") < markdown.index("## Every step on its roof")
    assert markdown.index("## Every step on its roof") < markdown.index("## Find your question")
    assert list(landing.charts) == ["every-step-roofline"]


def test_runs_page_links_short_labels_to_per_run_pages_out_of_the_nav(report: Report) -> None:
    pages, made = render_pages(report)
    by_path = {page.path: page for page in pages}
    runs = by_path["measurements/runs.md"].markdown
    ok = report.runs.to_dicts()
    for row in ok:
        assert f"[{run_label(row)}](runs/{row['run_id']}.md)" in runs
        page = by_path[f"measurements/runs/{row['run_id']}.md"]
        assert not page.in_nav
        assert f"Run `{row['run_id']}`" in page.markdown
    assert "| run | median step [95 % interval] (its kind) | ± |" in runs
    nav = str(site_nav(REGISTRY, made, set()))
    assert "measurements/runs.md" in nav
    assert "measurements/runs/" not in nav.replace("measurements/runs.md", "")


def test_half_width_is_the_larger_side_of_the_interval() -> None:
    assert half_width(Interval(1.0, 0.99, 1.03, CALIBRATED, 10)) == "±3 %"
    assert half_width(Interval(1.0)) == "n/a" and half_width(None) == "n/a"


def test_tool_pages_sit_under_project(report: Report) -> None:
    _, made = render_pages(report)
    nav = site_nav(REGISTRY, made, set())
    project = next(item["Project"] for item in nav if isinstance(item, dict) and "Project" in item)
    assert [next(iter(entry)) for entry in project] == ["Tool performance", "About this report"]


def test_hardware_table_keeps_training_precisions_and_folds_the_rest() -> None:
    catalog = load_catalog()
    page = hardware_page(catalog)
    head = page.markdown.split('<div class="ra-hardware" markdown="0">')[1].split("</thead>")[0]
    assert head.count("<th>") == 1 + len(MAIN_PEAKS) + 2  # device, peaks, bandwidth, source
    assert '??? info "Other precisions and the board' in page.markdown
    assert "peak-per-precision" in page.charts


def test_every_device_has_a_per_precision_peak_tpus_and_grace_included() -> None:
    catalog = list(load_catalog())
    rows = precision_rows(catalog)
    assert {d.name for d in catalog} == {r["device"] for r in rows}
    kinds = {r["kind"] for r in rows}
    assert {"gpu", "tpu", "cpu"} <= kinds
    spec = precision_chart(catalog, "peaks")
    assert spec["encoding"]["x"]["axis"]["format"] == "~s"
    assert spec["encoding"]["x"]["scale"]["type"] == "log"
    assert spec["mark"]["type"] == "point"  # devices are categories: never joined by lines
    assert len(set(spec["encoding"]["color"]["scale"]["range"])) == len(
        spec["encoding"]["color"]["scale"]["domain"]
    )


def test_single_point_groups_get_no_lone_dot_charts_and_empty_groups_say_what_fills_them(
    report: Report,
) -> None:
    assert report.experiments is not None
    groups = {g.id: g for g in report.experiments.groups}

    def page(group_id: str, runs: pl.DataFrame) -> Page:
        return experiment_page(
            groups[group_id], report.experiments, runs, report.ceilings,  # type: ignore[arg-type]
            report.verdicts[group_id], results=report.results,
        )  # fmt: skip

    b = page("B", report.runs)
    assert "Each device has one configuration in this group" in b.markdown
    assert set(b.charts) == {"roofline-B"}  # the roofline, not four charts of one dot each
    a = page("A", report.runs)
    assert "throughput-A" in a.charts and "Each device has one configuration" not in a.markdown
    empty = page("F", report.runs.filter(pl.col("group") != "F"))
    assert "`nox -s measure -- --group F` on a machine with a cuda device" in empty.markdown
    assert "No point can be drawn" not in empty.markdown and not empty.charts


def test_each_datasheet_roofline_is_titled_by_the_devices_it_draws() -> None:
    """The catch-all group holds the TPUs, which have no FP32 or FP16 tensor peak: its
    charts named "Google" and drew none. Each vendor a title names has a device drawn."""
    catalog = load_catalog()
    page = hardware_page(catalog)
    charts = {k: v for k, v in page.charts.items() if k.startswith("roofline-")}
    assert charts
    titles = {}
    for chart_id, spec in charts.items():
        rows = [row for data in spec["datasets"].values() for row in data]
        drawn = {row["device"] for row in rows if row.get("device")}
        title = spec["title"]["text"]
        title = " ".join(title) if isinstance(title, list) else title  # wrapped: its lines
        titles[chart_id] = title
        for vendor in {d.vendor for d in catalog}:
            if vendor in title.split(": ", 1)[1]:
                assert any(d.vendor == vendor for d in catalog if d.name in drawn), title
    assert "FP32 (CUDA cores), datasheet: AMD GPUs and CPUs" in titles.values()
    assert "FP16 tensor cores (dense), datasheet: AMD GPUs" in titles.values()
