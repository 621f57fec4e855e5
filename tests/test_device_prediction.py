"""The roofline's H200/H100 prediction on the committed runs: six configurations measured on
both (E's four precisions of ResNet-18 b128 training and J-gpu's BERT-base b8 training, the
H200's block-timed on 2026-11-27, the H100's in one process on 2026-11-23), each one's class
on the H100, its prediction, the measured speedup and the page's sentence."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from generator.analysis.device_prediction import (
    COMPUTE,
    HOST,
    MEMORY,
    Prediction,
    misses,
    predictions,
    roofline_time,
    summary,
)
from generator.analysis.roofs import MEASURED, Roof
from generator.site.analyse import Analysed, analyse
from generator.site.context import build_context
from generator.site.load import load_measurements
from tests.helpers import REPO


@pytest.fixture(scope="module")
def analysed() -> Analysed:
    cache = Path(tempfile.mkdtemp(prefix="prediction-"))
    return analyse(load_measurements(build_context(REPO / "measurements", cache)))


@pytest.fixture(scope="module")
def items(analysed: Analysed) -> list[Prediction]:
    return predictions(analysed.results, analysed.points, analysed.loaded.ceilings)


def test_six_configurations_are_measured_on_both_and_all_are_host_bound_on_the_h100(
    items: list[Prediction],
) -> None:
    assert sorted(i.label for i in items) == sorted(
        [f"resnet18 b128 train_step {p}" for p in ("fp32", "tf32", "bf16-amp", "fp16-amp")]
        + ["bert_base b8 train_step fp32", "bert_base b8 train_step bf16-amp"]
    )
    assert {i.first.device_label for i in items} == {"NVIDIA H100 SXM"}
    assert {i.second.device_label for i in items} == {"NVIDIA H200 SXM"}
    assert {i.kind for i in items} == {HOST}  # so the host's ratio is each one's prediction


def test_each_prediction_is_its_numbers(items: list[Prediction]) -> None:
    """fp16-amp: the hosts' profiled launch times, 27.71 ms on the H100's machine and
    30.20 ms on the H200's, predict 0.918x; its trace point is left of the ridge, so the roofs
    alone predict the measured bandwidth ratio, 4.263 / 2.996 TB/s = 1.423x."""
    fp16 = next(i for i in items if i.label.endswith("fp16-amp") and "resnet18" in i.label)
    assert fp16.first.launch is not None and fp16.second.launch is not None
    assert fp16.by_host == pytest.approx(fp16.first.launch.host_s / fp16.second.launch.host_s)
    assert fp16.by_host == pytest.approx(0.918, abs=5e-4)
    assert fp16.predicted == fp16.by_host
    assert fp16.side == MEMORY and fp16.roofs is not None
    bandwidths = [roof.bandwidth_bytes_per_s for roof in fp16.roofs]
    assert fp16.by_roofline == pytest.approx(bandwidths[1] / bandwidths[0])
    assert fp16.by_roofline == pytest.approx(1.423, abs=5e-4)
    assert fp16.measured.value == pytest.approx(fp16.first.step.value / fp16.second.step.value)
    assert fp16.inside is False  # 0.918 below its interval [1.26, 2.29]


def test_the_sentence_is_computed_from_the_predictions(items: list[Prediction]) -> None:
    text = summary(items)
    assert text.startswith(
        "Of 6 configurations measured on both the NVIDIA H100 SXM and the NVIDIA H200 SXM, by "
        "their class on the NVIDIA H100 SXM: 6 host-bound (launch). The prediction of its "
        "class fell inside the measured interval for 1 of the 4 that have one (0 of them "
        "calibrated); 2 have no measured interval"
    )
    assert "The 3 misses are explained below." in text
    assert text.endswith("so the bandwidth prediction itself is not tested yet.")
    missed = misses(items)
    assert len(missed) == 3 and all("host-bound on the NVIDIA H100 SXM" in m for m in missed)
    assert all("not calibrated (within one process)" in m for m in missed)


def test_the_roofline_time_takes_the_longer_of_its_two_limits() -> None:
    roof = Roof("x", "fp32", 100e12, 2e12, MEASURED)
    assert roofline_time(1e12, 1e9, roof) == pytest.approx(0.01)  # compute: 1e12 / 1e14
    assert roofline_time(1e9, 1e10, roof) == pytest.approx(0.005)  # memory: 1e10 / 2e12
    assert {HOST, MEMORY, COMPUTE} == {"host", "memory", "compute"}


def test_the_page_shows_the_table_the_chart_and_the_sentence(analysed: Analysed) -> None:
    from generator.pages.device_prediction import prediction_page
    from generator.site.check import check
    from generator.site.draw import draw

    report = draw(check(analysed))
    page = prediction_page(report)
    assert page.path == "measurements/prediction.md"
    assert summary(predictions(report.results, report.points, report.ceilings)) in page.markdown
    assert page.markdown.count("<tr><td>") == 6
    assert "prediction" in page.tables and page.tables["prediction"].height == 6
    spec = page.charts["prediction"]
    assert any(layer.get("mark", {}).get("type") == "line" for layer in spec["layer"])  # diagonal
