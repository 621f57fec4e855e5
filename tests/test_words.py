"""Words that hold: a bound states the fraction of the roof it rests on, a point far below its
roof is latency/overhead-bound whatever side of the ridge it sits on, and the Overview does
not headline a profile its own error finding says is wrong."""

from __future__ import annotations

import polars as pl
import pytest

from generator.analysis.bound_words import LATENCY_BOUND_BELOW, bound_regime, bound_words
from generator.analysis.overview import (
    best_run_sentences,
    headline_sentences,
    imported_sentence,
)
from generator.analysis.roofline import Totals
from generator.analysis.views import MeasurementView
from generator.catalog import Device, load_catalog
from generator.catalog.matching import DeviceMatch
from generator.findings import Finding
from generator.records.ceilings import MeasuredCeilings
from tests.helpers import attaining, datasheet_bound

A100 = next(d for d in load_catalog() if d.id == "a100-40gb-sxm")


def _view(
    title: str, flops: float, time_s: float, ai: float, device: Device, *findings: Finding
) -> MeasurementView:
    step = Totals(
        kernels=40, flops=flops, flops_by_precision={"fp32": flops}, dram_bytes=flops / ai,
        l2_bytes=None, l1_bytes=None, time_s=time_s, sm_pct=None, dram_pct=None,
        tensor_pipe_inst=None,
    )  # fmt: skip
    return MeasurementView(
        slug=title.lower().replace(" ", "-"), title=title, origin="", citation="", model="m",
        workload="w", batch=8, phase="train_step", precision="fp32", notes="", license="",
        csv_path="x.csv", kernels=pl.DataFrame(), step=step, ranges={},
        match=DeviceMatch(device, "named", (), ""), bound=datasheet_bound(step, device),
        chart={}, findings=findings,
    )  # fmt: skip


def _bert() -> MeasurementView:
    """The A100 BERT attention export's figures: right of the ridge, 2 % of its roof."""
    return _view("BERT attention on an A100", 69.44e6, 178.4e-6, 28.86, A100)


MISSING_BACKWARD = Finding(
    "incomplete-step", "error", "The backward pass is missing from the profile", "e", "f"
)


def test_far_below_the_roof_right_of_the_ridge_is_latency_bound() -> None:
    view = _bert()
    assert view.bound is not None
    assert view.bound.bound == "compute"  # right of the ridge (12.54 FLOP/byte)
    assert view.bound.efficiency == pytest.approx(0.02, abs=0.001)
    assert bound_regime("compute", view.bound.efficiency) == "latency/overhead"
    words = bound_words("compute", view.bound.efficiency)
    assert words.startswith("latency/overhead-bound at 2 % of the roof (under 10 %")
    assert "right of the ridge" in words
    sentence = imported_sentence(view)
    assert sentence is not None
    assert "latency/overhead-bound" in sentence and "compute-bound" not in sentence


def test_near_the_roof_the_side_of_the_ridge_names_the_bound_with_its_fraction() -> None:
    assert bound_words("compute", 0.452) == "compute-bound at 45.2 % of the roof"
    assert bound_words("memory", 0.5) == "memory-bound at 50 % of the roof"
    assert bound_regime("memory", LATENCY_BOUND_BELOW) == "memory"  # the threshold is in
    assert bound_regime("memory", LATENCY_BOUND_BELOW * 0.999) == "latency/overhead"
    left = bound_words("memory", 0.05)
    assert left.startswith("latency/overhead-bound") and "left of the ridge" in left


def test_no_fraction_of_the_roof_no_bound_claimed() -> None:
    assert bound_regime("compute", None) is None
    words = bound_words("compute", None)
    assert "-bound" not in words and "unknown" in words
    with pytest.raises(ValueError, match="side of the ridge"):
        bound_words("latency", 0.5)


def test_a_profile_with_an_error_finding_is_not_headlined_without_its_caveat() -> None:
    l4 = next(d for d in load_catalog() if d.id == "l4")
    broken = _view("ResNet-18 step on an L4", 4.928e9, 7.376e-3, 6.942, l4, MISSING_BACKWARD)
    fine = _bert()
    runs = pl.DataFrame(
        schema={"status": pl.String, "modelled_attained": pl.Float64, "device_name": pl.String}
    )
    sentences = headline_sentences([broken, fine], runs, {}, [], {}, [])
    assert any(s.startswith("BERT attention on an A100:") for s in sentences)
    assert not any(s.startswith("ResNet-18 step on an L4") for s in sentences)
    named = [s for s in sentences if "ResNet-18 step on an L4" in s]
    assert len(named) == 1
    assert named[0].startswith("Not headlined, because an error finding says")
    assert "incomplete-step: The backward pass is missing from the profile" in named[0]


def test_each_run_against_the_gemm_ceiling_of_its_own_precision() -> None:
    """A bf16 step against the fp32 GEMM ceiling read 276 %; a run whose timing has an
    error finding is not the fastest either."""
    runs = pl.DataFrame(
        {
            "run_id": ["bf16-run", "fp32-run", "broken-run"],
            "workload": ["bf16-run", "fp32-run", "broken-run"],
            "status": ["ok"] * 3,
            "device_name": ["GPU"] * 3,
            "model": ["bert_base", "resnet18", "vgg16"],
            "batch": [128, 64, 8],
            "phase": ["train_step"] * 3,
            "precision": ["bf16-amp", "fp32", "fp32"],
            "modelled_attained": [141.8e12, 10e12, 500e12],
        }
    )
    ceilings = [MeasuredCeilings("GPU", {"fp32": 51.47e12, "bf16": 600e12}, None, None, "")]
    broken = {"broken-run": (Finding("throttled", "error", "t", "e", "f"),)}
    (sentence,) = best_run_sentences(runs, attaining(runs), ceilings, broken)
    assert "bert_base at batch 128 (train_step, bf16-amp): 141.8 TFLOP/s, 23.6 %" in sentence
    assert "measured bf16 GEMM ceiling (600 TFLOP/s)" in sentence
    assert "vgg16" not in sentence
