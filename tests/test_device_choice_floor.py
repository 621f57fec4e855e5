"""Device choice: the floor is max(roofline floor, launch floor) and says which sets it; the
kernel count comes from a measured GPU profile of the same workload; costs are ordinary
dollars per 1,000 steps and per epoch, with the price source as a link."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest

from generator.analysis.device_choice import (
    LAUNCH,
    LAUNCH_LATENCY_S,
    LAUNCH_LATENCY_SOURCE,
    Workload,
    device_table,
    floor_seconds,
    launch_calls_measured,
    measured_floor,
    with_launch_counts,
    workloads,
)
from generator.analysis.results import results
from generator.analysis.trace_analysis import analyze_trace
from generator.analysis.views import TraceView
from generator.catalog import load_catalog
from generator.pages.device_choice import (
    WORKLOADS_PER_PAGE,
    device_choice_pages,
    dollar_range,
    dollars,
    price_link,
    workload_parts,
)
from tests.helpers import REPO

CATALOG = load_catalog()
B200 = next(d for d in CATALOG if d.id == "b200")
GRACE = next(d for d in CATALOG if d.id == "grace-cpu-superchip")
GPU_RUN = "I-simple_cnn-mnist-b64-train_step-fp32-cuda-9c64c9c8"
CPU_RUN = "C-mnist-simple_cnn-mnist-b64-train_step-fp32-cpu-cf6b81c2"


def _mnist_cnn(kernels: float | None = 46.0) -> Workload:
    """SimpleCNN's MNIST training step at batch 64: 5.47 MFLOP, 1.84 MB (analytic)."""
    return Workload(
        CPU_RUN, "modelled", 5_470_888.0, 1_840_344.0, "fp32", "mnist", 64, True,
        "AMD EPYC (2 threads)", 0.01, 0.002, kernels=kernels,
        kernels_how="measured: the profiled step of GPU run " + GPU_RUN,
    )  # fmt: skip


def test_the_b200_mnist_floor_is_at_least_kernels_times_launch_latency() -> None:
    """The roofline alone put this step at 92 ns on a B200: impossible for 46 kernels."""
    row = device_table([_mnist_cnn()], (B200,)).row(0, named=True)
    assert row["roofline_s"] < 1e-6
    assert row["bound_s"] >= 46 * LAUNCH_LATENCY_S
    assert row["bound_s"] == pytest.approx(46 * 5e-6)
    assert row["limited_by"] == LAUNCH == "launch overhead"
    assert LAUNCH_LATENCY_SOURCE.startswith("https://")


def test_no_launch_floor_on_a_cpu_or_without_a_kernel_count() -> None:
    cpu = device_table([_mnist_cnn()], (GRACE,)).row(0, named=True)
    assert cpu["bound_s"] == pytest.approx(cpu["roofline_s"])
    assert cpu["launch_s"] is None and cpu["limited_by"] in ("compute", "memory")
    unknown = device_table([_mnist_cnn(kernels=None)], (B200,)).row(0, named=True)
    assert unknown["limited_by"] != LAUNCH


def test_a_large_step_stays_roofline_bound() -> None:
    seconds, limit = floor_seconds(1e15, 1e9, 75e12, 8e12, 200)
    assert limit == "compute" and seconds == pytest.approx(1e15 / 75e12)


def test_the_floor_where_it_was_measured_takes_launches_on_a_gpu_only() -> None:
    gpu = Workload("w", "modelled", 1.0, 1.0, "fp32", None, 1, False, "GPU", 1e-3, 1e-7,
                   kernels=46, measured_on_gpu=True)  # fmt: skip
    assert measured_floor(gpu) == (pytest.approx(46 * LAUNCH_LATENCY_S), LAUNCH)
    cpu = Workload("w", "modelled", 1.0, 1.0, "fp32", None, 1, False, "CPU", 1e-3, 1e-7,
                   kernels=46)  # fmt: skip
    assert measured_floor(cpu) == (1e-7, "roofline")


def _run_trace(run_id: str) -> TraceView:
    analysis = analyze_trace(REPO / "measurements" / "runs" / run_id / "trace.json.gz")
    return TraceView(run_id, run_id, "run", "", "", "train_step", analysis)


def test_kernel_count_from_the_profiled_step_of_a_gpu_run_of_the_same_workload() -> None:
    runs = pl.DataFrame(
        {
            "run_id": [CPU_RUN, GPU_RUN],
            "model": ["simple_cnn"] * 2,
            "dataset": ["mnist"] * 2,
            "batch": [64, 64],
            "phase": ["train_step"] * 2,
            "precision": ["fp32"] * 2,
        }
    )
    traces = [_run_trace(GPU_RUN)]
    (counted,) = with_launch_counts([_mnist_cnn(kernels=None)], traces, runs)
    assert counted.kernels == 46  # the kernels of the H100 run's one profiled step
    assert counted.kernels_how == f"measured: the profiled step of GPU run {GPU_RUN}"
    median, calls = launch_calls_measured(traces) or (0.0, 0)
    assert calls >= 46 and 1 < median < 50  # µs per launch call, under the profiler


def test_without_a_gpu_profile_the_kernel_count_is_an_estimate_from_the_layers() -> None:
    runs = pl.DataFrame(
        {
            "run_id": [CPU_RUN],
            "model": ["simple_cnn"],
            "dataset": ["mnist"],
            "batch": [64],
            "phase": ["train_step"],
            "precision": ["fp32"],
        }
    )
    layers = pl.read_csv(Path(REPO / "measurements" / "runs" / CPU_RUN / "layers.csv"))
    trace = _run_trace(CPU_RUN)
    trace = TraceView(CPU_RUN, CPU_RUN, "run", "", "", "train_step", trace.analysis, layers)
    (estimated,) = with_launch_counts([_mnist_cnn(kernels=None)], [trace], runs)
    assert estimated.kernels_how.startswith("estimate:")
    assert estimated.kernels is not None and 10 <= estimated.kernels <= 46  # a lower bound


def test_the_estimate_comes_from_any_profiled_run_of_the_workload() -> None:
    # one row per workload, labelled by its lowest run id: here a run without a trace
    first = "A-" + CPU_RUN
    runs = pl.DataFrame(
        {
            "run_id": [first, CPU_RUN],
            "workload": ["w", "w"],
            "model": ["simple_cnn"] * 2,
            "dataset": ["mnist"] * 2,
            "batch": [64] * 2,
            "phase": ["train_step"] * 2,
            "precision": ["fp32"] * 2,
        }
    )
    layers = pl.read_csv(Path(REPO / "measurements" / "runs" / CPU_RUN / "layers.csv"))
    trace = TraceView(
        CPU_RUN, CPU_RUN, "run", "", "", "train_step", _run_trace(CPU_RUN).analysis, layers
    )
    workload = replace(_mnist_cnn(kernels=None), label=first, runs=2)
    (estimated,) = with_launch_counts([workload], [trace], runs)
    assert estimated.kernels_how.startswith("estimate:") and estimated.kernels


def test_one_row_per_workload_with_its_run_count() -> None:
    runs = pl.DataFrame(
        {
            "run_id": ["b", "a", "c"],
            "workload": ["w", "w", "v"],
            "group": ["A", "B", "A"],
            "model": ["mnist_cnn"] * 3,
            "status": ["ok"] * 3,
            "modelled_flops": [1e9] * 3,
            "modelled_bytes": [1e6] * 3,
            "device_name": ["AMD EPYC (2 threads)"] * 3,
            "device_label": ["AMD EPYC 9R45 (2 cores)"] * 3,
            "precision": ["fp32"] * 3,
            "dataset": ["mnist"] * 3,
            "batch": [64] * 3,
            "phase": ["train_step"] * 3,
            "device": ["cpu"] * 3,
        }
    )
    # runs a and b time w (0.5 s), c times v (0.2 s): each workload's result pools its runs
    timed = results(runs, {"a": _steps(0.5), "b": _steps(0.5), "c": _steps(0.2)})
    found = workloads([], runs, timed, [], {})
    assert [(w.label, w.runs, w.measured_s) for w in found] == [("a", 2, 0.5), ("c", 1, 0.2)]


def _steps(step_s: float) -> pl.DataFrame:
    return pl.DataFrame({"step_s": [step_s] * 5})


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0079, "$0.0079"),
        (7.91e-6, "$0.0000079"),
        (0.80, "$0.80"),
        (3.0, "$3.00"),
        (1234.567, "$1,234.57"),
        (2.97e-9, "under $0.000001"),
        (None, "n/a"),
    ],
)
def test_dollars_are_ordinary_dollars(value: float | None, text: str) -> None:
    assert dollars(value) == text


def test_no_exponent_in_any_amount() -> None:
    for exponent in range(-6, 7):
        for mantissa in (1.0, 2.97, 7.91, 9.99):
            assert "e" not in dollars(mantissa * 10.0**exponent)
    assert dollar_range(0.0079, 0.030) == "$0.0079 – $0.030"


def test_cost_per_1000_steps_and_per_epoch() -> None:
    h100 = next(d for d in CATALOG if d.id == "h100-sxm")
    row = device_table([_mnist_cnn()], (h100,)).row(0, named=True)
    assert h100.price_usd_per_hour is not None
    low, high = h100.price_usd_per_hour
    assert row["usd_per_1000_steps_low"] == pytest.approx(row["bound_s"] * low / 3600 * 1000)
    assert row["usd_per_1000_steps_high"] == pytest.approx(row["bound_s"] * high / 3600 * 1000)
    assert row["steps_per_epoch"] == math.ceil(60_000 / 64)
    assert row["usd_per_epoch_low"] == pytest.approx(row["bound_s"] * low / 3600 * 938)
    assert row["epoch"] == "MNIST's 60,000 training images"


def test_price_source_is_a_link() -> None:
    url, note = price_link("https://example.org/prices (on-demand, May 2026)")
    assert (url, note) == ("https://example.org/prices", "on-demand, May 2026")
    assert price_link("https://example.org/p") == ("https://example.org/p", "https://example.org/p")
    priced = next(d for d in CATALOG if d.price_usd_per_hour)
    hub, page = device_choice_pages([_mnist_cnn()], (priced, B200))
    assert f'(<a href="{price_link(priced.price_source)[0]}">' in page.markdown
    assert "per 1,000 steps" in page.markdown
    assert "938 steps (MNIST&#39;s 60,000 training images)" in page.markdown
    assert f'<a href="{LAUNCH_LATENCY_SOURCE}">' in hub.markdown
    costs = page.markdown.split("## Cost", 1)[1]
    assert not re.search(r"\d[eE][-+]?\d", costs), "an amount in scientific notation"


def test_device_choice_is_a_hub_and_one_page_per_group_every_workload_on_one() -> None:
    """One page of 118 workloads was 44,000 px tall: the hub links a page per experiment
    group (published exports first, variants after their group), a large group continues on
    further pages, and each workload is on exactly one page with its floor on every device."""
    cpu = _mnist_cnn()
    many = [replace(cpu, label=f"H-run-{i}") for i in range(WORKLOADS_PER_PAGE + 1)]
    published = replace(cpu, label="BERT attention on an A100", how="ncu")
    items = [*many, replace(cpu, label="C-gpu-run"), replace(cpu, label="C-run"), published]
    groups = {"C-gpu-run": "C-gpu", "C-run": "C"} | {w.label: "H" for w in many}
    titles = {"C": "Cross-model", "C-gpu": "Cross-model on a GPU", "H": "Inference"}
    parts = workload_parts(items, groups, titles)
    assert [(slug, title, len(chunk)) for slug, title, chunk in parts] == [
        ("published", "Published exports and traces", 1),
        ("C", "C: Cross-model", 1),
        ("C-gpu", "C-gpu: Cross-model on a GPU", 1),
        ("H", "H: Inference (page 1 of 2)", WORKLOADS_PER_PAGE),
        ("H-2", "H: Inference (page 2 of 2)", 1),
    ]
    hub, *pages = device_choice_pages(items, (B200, GRACE), None, groups, titles)
    assert hub.in_nav and not any(page.in_nav for page in pages)
    assert "[C-gpu: Cross-model on a GPU](device-choice/C-gpu.md): 1 workload\n" in hub.markdown
    assert hub.tables["bound-per-device"].height == len(items) * 2  # every number, as data
    for w in items:
        (home,) = [page for page in pages if f"<td>{w.label}</td>" in page.markdown]
        assert home.tables["bound-per-device"].filter(pl.col("workload") == w.label).height == 2
