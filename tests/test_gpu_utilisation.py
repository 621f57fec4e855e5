"""GPU utilisation and modelled bandwidth over the timed median step, beside seed 004's nsys
figures, on the real H200 runs of 2026-11-27 (tests/data/h200) built into a report as they
are; ResNet-18 b128 fp32's busy time checked by hand from its trace's JSON."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from generator.analysis.gpu_utilisation import BesideSeed, utilisation
from generator.analysis.interval import Interval
from generator.analysis.launch import PROFILED, TIMED, LaunchTime
from generator.analysis.results import Result
from generator.catalog import load_catalog
from generator.pages.seed_utilisation import utilisation_section
from generator.site.analyse import Analysed, analyse
from generator.site.context import build_context
from generator.site.load import load_measurements
from tests.helpers import REPO

H200 = REPO / "tests" / "data" / "h200"
FP32 = H200 / "runs" / "E-resnet18-cifar10-b128-train_step-fp32-cuda-28058cbc"


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> Analysed:
    measurements = tmp_path_factory.mktemp("h200") / "measurements"
    (measurements / "runs").mkdir(parents=True)
    for run in (H200 / "runs").iterdir():
        if (run / "steps.csv").exists():  # the failed ncu run has only its run.json
            shutil.copytree(run, measurements / "runs" / run.name)
    shutil.copytree(H200 / "ceilings", measurements / "ceilings")
    for name in ("experiments.toml", "literature"):
        source = REPO / "measurements" / name
        if source.is_dir():
            shutil.copytree(source, measurements / name)
        else:
            shutil.copy(source, measurements / name)
    return analyse(load_measurements(build_context(measurements, tmp_path_factory.mktemp("c"))))


def _busy_by_hand(trace: Path) -> float:
    """The union, in seconds, of the GPU work launched by runtime and driver calls that start in
    ProfilerStep#0."""
    with gzip.open(trace) as file:
        events = json.load(file)["traceEvents"]
    (step,) = [e for e in events if e.get("name") == "ProfilerStep#0"]
    lo, hi = step["ts"], step["ts"] + step["dur"]
    launched = {
        e["args"]["correlation"]
        for e in events
        if e.get("cat") in ("cuda_runtime", "cuda_driver")
        and lo <= e["ts"] < hi
        and "correlation" in e["args"]
    }
    spans = sorted(
        (e["ts"], e["ts"] + e["dur"])
        for e in events
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
        and e["args"].get("correlation") in launched
    )
    total, end = 0.0, float("-inf")
    for start, stop in spans:
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total * 1e-6


def _fp32(analysed: Analysed) -> BesideSeed:
    (pair,) = [
        p for p in analysed.utilisation_beside
        if p.result.model == "resnet18" and p.result.phase == "train_step"
    ]  # fmt: skip
    return pair


def test_resnet18_fp32_utilisation_by_hand_from_its_trace(analysed: Analysed) -> None:
    """Busy 3.459 ms (by hand from the JSON) over the 6.59 ms timed median: about 52 %."""
    pair = _fp32(analysed)
    busy = _busy_by_hand(FP32 / "trace.json.gz")
    assert busy == pytest.approx(3.458543e-3, rel=1e-5)  # the stored analysis's, too
    ours = pair.ours
    assert ours.run_id == FP32.name and ours.device_label == "NVIDIA H200 SXM"
    assert ours.busy_s == pytest.approx(busy, rel=1e-6)
    step = pair.result.step
    assert ours.step == step
    assert ours.share.value == pytest.approx(busy / step.value)
    assert 0.4 < ours.share.value < 0.65
    assert step.low is not None and step.high is not None
    assert ours.share.low == pytest.approx(busy / step.high)  # the ends swap
    assert ours.share.high == pytest.approx(busy / step.low)
    assert ours.share.kind == step.kind
    # launch.py's idle share is the rest of the same figure, computed there once
    assert pair.result.launch is not None
    assert pair.result.launch.gpu_idle_share == pytest.approx(1 - ours.share.value)
    assert ours.host_bound is True
    modelled = pair.result.modelled_bytes
    assert modelled is not None and modelled > 0
    assert ours.bandwidth is not None
    assert ours.bandwidth.value == pytest.approx(modelled / step.value)


def test_seed_004_window_is_the_transcribed_rows(analysed: Analysed) -> None:
    pair = _fp32(analysed)
    assert pair.seed.share.id == "004-rn18-train-gpu-util"
    assert pair.seed.share_fraction == pytest.approx(0.1441)
    assert pair.seed.bandwidth == pytest.approx((47.98 + 34.97) * 1e9)
    assert pair.share_ratio.value == pytest.approx(pair.ours.share.value / 0.1441)
    # only fp32 eager stands beside 004: the other precisions are not its configuration
    assert {p.result.precision for p in analysed.utilisation_beside} == {"fp32"}


def test_the_table_names_both_devices_and_what_each_number_measures(analysed: Analysed) -> None:
    pair = _fp32(analysed)
    html = str(utilisation_section([pair], {pair.ours.workload}, load_catalog()))
    assert "NVIDIA A100 80GB PCIe" in html and "NVIDIA H200 SXM" in html
    assert "14.4 %" in html and "47.98 GB/s read" in html
    assert "timed median step" in html and "profiled step" in html
    assert "004-rn18-train-*" in html
    assert "modelled minimal bytes" in html
    assert pair.ours.share.percent_text() in html  # with its interval kind
    assert "host-bound (launch)" in html
    assert "data loader" in html
    # a page without the configuration shows no section
    assert str(utilisation_section([pair], {"other"}, load_catalog())) == ""


def test_a_timed_pair_gives_no_utilisation() -> None:
    """A TIMED pair's GPU time is CUDA-event time (waits included), not busy time."""
    result = Result(
        workload="w", model="resnet18", dataset="cifar10", batch=128, phase="train_step",
        precision="fp32", device="cuda", device_name="NVIDIA H200",
        device_label="NVIDIA H200", runs=(), groups=("E",), step=Interval(0.01),
        iterations=10, modelled_bytes=1e9,
    )  # fmt: skip
    assert utilisation(result, LaunchTime(0.02, 0.005, TIMED), "r") is None
    profiled = utilisation(result, LaunchTime(0.02, 0.005, PROFILED), "r")
    assert profiled is not None and profiled.share.value == pytest.approx(0.5)
    assert profiled.bandwidth is not None and profiled.bandwidth.value == pytest.approx(1e11)
