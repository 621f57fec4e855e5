"""Runs are told apart by their concrete device, not its kind: an H100 and an A100 are both
`cuda` in the config, yet two series, two rows and two verdicts in the report.

The runs are real committed records (run.json of group B's and F's H100 and CPU runs), plus
copies relabelled as an A100 with other step times; only run.json is copied, the report
reads nothing else of a run for these pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from generator.analysis.overview import overview_points
from generator.analysis.result_columns import runs_download
from generator.analysis.results import Result, results
from generator.analysis.verdict_needs import DEVICE
from generator.analysis.verdicts import group_rows, group_verdict
from generator.charts.roof_names import roof_name
from generator.config import ExperimentsFile, Group, load_experiments
from generator.ingest.runs import load_runs
from generator.ingest.steps import read_steps
from generator.pages.experiment import experiment_page
from generator.pages.run_text import short_device
from generator.pages.runs import runs_page
from generator.records.ceilings import load_ceilings
from tests.helpers import REPO, result_row

RUNS = REPO / "measurements" / "runs"
B_CPU = "A-resnet18-cifar10-b128-train_step-fp32-cpu-d6ced0a3"  # one result: groups A, B, D
B_CUDA = "B-resnet18-cifar10-b128-train_step-fp32-cuda-4bed1e9a"
F_CUDA = (
    "F-resnet18-cifar10-b32-train_step-fp32-cuda-deaa0144",
    "F-resnet18-cifar10-b256-train_step-fp32-cuda-8d1adcba",
    "F-resnet18-cifar10-b1024-train_step-fp32-cuda-7a6b7e82",
)
A100 = "NVIDIA A100-SXM4-80GB"  # as the driver names it
H100_LABEL, A100_LABEL, CPU_LABEL = (
    "NVIDIA H100 SXM",
    "NVIDIA A100 80GB SXM",
    "AMD EPYC (2 threads)",
)

EXPERIMENTS = """
schema_version = 1
[[groups]]
id = "B"
title = "cross-device"
hypothesis = "A GPU is at least 10x faster than the CPU."
models = ["resnet18"]
datasets = ["cifar10"]
batch_sizes = [128]
devices = ["cpu", "cuda"]
expect = { metric = "throughput", ratio = ["cuda", "cpu"], between = [10.0, 1.0e9] }

[[groups]]
id = "F"
title = "GPU batch sweep"
hypothesis = "Throughput rises with the batch."
models = ["resnet18"]
datasets = ["cifar10"]
batch_sizes = [32, 256, 1024]
devices = ["cuda"]
expect = { metric = "throughput", trend = "increases" }
"""


def copy_run(run_id: str, measurements: Path, slower: float = 1.0, gpu: str | None = None) -> str:
    """A committed run's record under measurements/runs/, or a copy of it on another GPU
    whose step takes `slower` times as long; returns the copy's run id."""
    source = run_id
    data: dict[str, Any] = json.loads((RUNS / run_id / "run.json").read_text(encoding="utf-8"))
    if gpu is not None:
        run_id = run_id.rsplit("-", 1)[0] + "-a1000000"
        data.update(run_id=run_id, device_name=gpu)
        data["environment"].update(gpu_name=gpu, gpu_capability="8.0")
        point = data["modelled_point"]
        point["time_s"] *= slower
        point["attained_flops_per_s"] /= slower
    folder = measurements / "runs" / run_id
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps(data), encoding="utf-8")
    steps = pl.read_csv(RUNS / source / "steps.csv")  # every time `slower` times as long
    timed = [c for c in steps.columns if c.endswith("_s")]
    steps.with_columns(pl.col(timed) * slower).write_csv(folder / "steps.csv")
    return run_id


def measured(
    tmp_path: Path, b_slower: float, f_slower: tuple[float, float, float]
) -> tuple[ExperimentsFile, pl.DataFrame]:
    """Groups B and F on an H100, the A100 copies and the CPU run, loaded as the report does."""
    measurements = tmp_path / "measurements"
    (measurements / "runs").mkdir(parents=True)
    (measurements / "experiments.toml").write_text(EXPERIMENTS, encoding="utf-8")
    for run_id in (B_CPU, B_CUDA, *F_CUDA):
        copy_run(run_id, measurements)
    copy_run(B_CUDA, measurements, b_slower, A100)
    for run_id, slower in zip(F_CUDA, f_slower, strict=True):
        copy_run(run_id, measurements, slower, A100)
    runs = load_runs(measurements)
    steps = {run: read_steps(measurements / "runs" / run) for run in runs["run_id"]}
    # the runs table with each run's result's step time and interval, as its download
    # states them (what `stated` reads)
    return load_experiments(measurements / "experiments.toml"), runs_download(
        runs, results(runs, steps)
    )


def stated(runs: pl.DataFrame) -> dict[str, Result]:
    """Each run's result from its interval (within its one process), taken as calibrated:
    what is tested here is that each GPU is judged apart, not how an interval is made
    (tests/test_committed_results.py, test_blocks.py)."""
    return {
        row["workload"]: result_row(row)["result"]
        for row in runs.filter(pl.col("status") == "ok").to_dicts()
    }


def group(experiments: ExperimentsFile, group_id: str) -> Group:
    return next(g for g in experiments.groups if g.id == group_id)


def test_the_runs_table_names_each_concrete_device(tmp_path: Path) -> None:
    _, runs = measured(tmp_path, 2.0, (2.0, 2.0, 2.0))
    b = runs.filter(pl.col("groups").list.contains("B"))
    assert sorted(b["device_label"]) == [CPU_LABEL, A100_LABEL, H100_LABEL]
    assert sorted(b["device"]) == ["cpu", "cuda", "cuda"]  # the kind stays
    points = overview_points(runs, stated(runs), [], []).points
    assert {p["device"] for p in points} == {CPU_LABEL, A100_LABEL, H100_LABEL}


def test_two_gpus_are_two_series_of_the_sweep(tmp_path: Path) -> None:
    experiments, runs = measured(tmp_path, 2.0, (2.0, 2.0, 2.0))
    rows, keys, key = group_rows(group(experiments, "F"), runs, stated(runs))
    assert keys == ["batch", DEVICE] and key == "batch"  # the batch, along each device
    assert [(r[DEVICE], r["batch"]) for r in rows] == [
        (A100_LABEL, 32), (A100_LABEL, 256), (A100_LABEL, 1024),
        (H100_LABEL, 32), (H100_LABEL, 256), (H100_LABEL, 1024),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("b_slower", "outcome", "a100"),
    [
        (2.0, "supported", "supported"),  # about 60x the CPU: both GPUs hold it
        (20.0, "mixed", "not supported"),  # about 6x: the A100 copy misses 10x
    ],
)
def test_a_device_kind_ratio_is_judged_on_every_gpu(
    tmp_path: Path, b_slower: float, outcome: str, a100: str
) -> None:
    experiments, runs = measured(tmp_path, b_slower, (2.0, 2.0, 2.0))
    verdict = group_verdict(group(experiments, "B"), runs, stated(runs))
    assert verdict.outcome == outcome
    assert f"throughput of {A100_LABEL} over {CPU_LABEL} is" in verdict.reason
    assert f"throughput of {H100_LABEL} over {CPU_LABEL} is" in verdict.reason
    if outcome == "mixed":
        assert verdict.reason.startswith(
            f"the devices disagree ({a100} on {A100_LABEL} vs {CPU_LABEL}, "
            f"supported on {H100_LABEL} vs {CPU_LABEL})"
        )


def test_a_trend_is_judged_along_each_gpu(tmp_path: Path) -> None:
    experiments, runs = measured(tmp_path, 2.0, (2.0, 2.0, 2.0))
    rising = group_verdict(group(experiments, "F"), runs, stated(runs))
    assert rising.outcome == "supported"
    assert f"on {A100_LABEL}, throughput increases from batch 32" in rising.reason
    assert f"on {H100_LABEL}, throughput increases from batch 32" in rising.reason
    # the A100 copy's b1024 step 400x slower: its throughput falls, the H100's rises
    experiments, runs = measured(tmp_path / "falling", 2.0, (1.0, 1.0, 400.0))
    falling = group_verdict(group(experiments, "F"), runs, stated(runs))
    assert falling.outcome == "mixed"
    assert f"not supported on {A100_LABEL}, supported on {H100_LABEL}" in falling.reason
    assert f"on {A100_LABEL}, throughput decreases from batch 32" in falling.reason


def _series(spec: dict[str, Any]) -> set[str]:
    """The devices a chart colours its rows by."""
    text = json.dumps(spec)
    assert '"field": "series"' in text, "the chart does not colour by device"
    # named datasets (charts/scales.py: inline), one per layer that draws other rows
    return {row["series"] for rows in spec["datasets"].values() for row in rows if "series" in row}


def test_the_group_page_shows_a_row_and_a_series_per_gpu(tmp_path: Path) -> None:
    experiments, runs = measured(tmp_path, 2.0, (1.0, 1.0, 400.0))
    f = group(experiments, "F")
    ceilings = load_ceilings(REPO / "measurements")  # the H100's, none for the A100 copy
    found = stated(runs)
    verdict = group_verdict(f, runs, found)
    page = experiment_page(f, experiments, runs, ceilings, verdict, results=found)
    for batch in (32, 256, 1024):
        assert f"<td>{batch} / {A100_LABEL}</td>" in page.markdown
        assert f"<td>{batch} / {H100_LABEL}</td>" in page.markdown
    assert "<th>batch, device</th>" in page.markdown
    assert 'data-verdict="mixed"' in page.markdown
    assert f"on {A100_LABEL}, {H100_LABEL}" in page.markdown  # the setup names both
    assert f"- On {A100_LABEL}: Throughput falls" in page.markdown
    assert f"- On {H100_LABEL}: Throughput rises" in page.markdown
    assert _series(page.charts["throughput-F"]) == {A100_LABEL, H100_LABEL}
    assert _series(page.charts["step-time-F"]) == {A100_LABEL, H100_LABEL}
    roofline = json.dumps(page.charts["roofline-F"])
    assert '"field": "device"' in roofline  # points coloured by device
    # each roof named with device and precision (charts.roof_names), as the spec escapes it
    h100, a100 = (
        json.dumps(roof_name(d, "FP32", "measured"))[1:-1] for d in (H100_LABEL, A100_LABEL)
    )
    assert f"{h100}: GEMM" in roofline and a100 not in roofline


def test_the_runs_page_names_each_gpu(tmp_path: Path) -> None:
    experiments, runs = measured(tmp_path, 2.0, (2.0, 2.0, 2.0))
    # as the site does, each run standing alone
    markdown = runs_page(runs, experiments, [], results=stated(runs)).markdown
    b = markdown[markdown.index("## B: ") : markdown.index("## F: ")]
    assert f"Device: {CPU_LABEL}, {A100_LABEL}, {H100_LABEL}." in b
    for label in (CPU_LABEL, A100_LABEL, H100_LABEL):  # each run's label names its device
        assert b.count(f"fp32 {short_device(label)}](runs/") == 1


def test_pages_name_the_catalog_device_beside_the_recorded_name() -> None:
    from generator.catalog import find_device
    from generator.catalog.matching import DeviceMatch
    from generator.pages.device_line import device_line

    a100 = find_device("a100-80gb-sxm")
    match = DeviceMatch(a100, "device name in the export", (), "", "NVIDIA A100-SXM4-80GB")
    assert device_line(match) == (
        f"{a100.name} (device name in the export; catalog `a100-80gb-sxm`; "
        'recorded as <span class="ra-recorded">“NVIDIA A100-SXM4-80GB”</span>)'
    )
    assert match.names() == {"recorded": "NVIDIA A100-SXM4-80GB", "catalog": "a100-80gb-sxm"}
    unmatched = DeviceMatch(None, "", ("l4",), "pass --device", "GPU <X> & co")
    assert device_line(unmatched) == (
        'pass --device (the file records <span class="ra-recorded">“GPU &lt;X&gt; &amp; co”</span>)'
    )
