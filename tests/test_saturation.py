"""Throughput saturation (analysis.saturation), the `saturates` and `of_ceiling` verdicts,
and the training step's parts (analysis.phases), on small frames with known answers."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from generator.analysis.interval import CALIBRATED, ONE_PROCESS, Interval
from generator.analysis.observations import observations
from generator.analysis.phases import describe as describe_parts
from generator.analysis.phases import training_parts
from generator.analysis.roofs import MEASURED, CeilingOf, gemm_ceiling, roof_for
from generator.analysis.saturation import Point, describe, judge_step, series_of
from generator.analysis.verdicts import ceiling_verdict, saturation_verdict
from generator.hierarchical import block_estimate
from generator.records.ceilings import load_ceilings
from tests.helpers import REPO, result_row
from tests.test_verdicts import run


def sweep(*points: tuple[int, float, float]) -> list[dict[str, Any]]:
    """Rows of a batch sweep from (batch, throughput, relative half-width of its interval):
    the step-time interval that gives that throughput interval."""
    rows = []
    for batch, throughput, half in points:
        median = batch / throughput
        rows.append(
            run(batch, median, median * (1 - half), median * (1 + half), workload=f"w{batch}")
        )
    return rows


def point(batch: int, value: float, low: float, high: float, kind: str = CALIBRATED) -> Point:
    return Point(batch, Interval(value, low, high, kind, 10 if kind == CALIBRATED else 1), "w")


def test_a_step_is_judged_per_doubling_on_the_intervals() -> None:
    a = point(32, 100.0, 99.0, 101.0)
    rises = judge_step(a, point(64, 120.0, 118.0, 122.0))
    assert rises.call == "rises" and rises.gain == pytest.approx(0.2)
    assert rises.gain_low == pytest.approx(118 / 101 - 1)
    assert judge_step(a, point(64, 103.0, 102.0, 104.0)).call == "flat"
    assert judge_step(a, point(64, 110.0, 105.0, 115.0)).call == "undecided"
    # issue 49: an interval within one process decides nothing, however narrow
    within = judge_step(a, point(64, 120.0, 118.0, 122.0, ONE_PROCESS))
    assert within.call == "undecided" and within.ratio.kind == ONE_PROCESS
    # four doublings at +8 % each: flat, though the whole step gains 36 %
    quadruple = judge_step(a, point(512, 136.0, 135.5, 136.5))
    assert quadruple.doublings == 4 and quadruple.call == "flat"
    assert quadruple.gain == pytest.approx(1.36**0.25 - 1)


def test_a_sweep_that_saturates() -> None:
    series = series_of(sweep((32, 100, 0.01), (64, 150, 0.01), (128, 200, 0.01),
                             (256, 205, 0.01), (512, 200, 0.01)))  # fmt: skip
    assert series is not None
    assert [s.call for s in series.steps] == ["rises", "rises", "flat", "flat"]
    assert (series.status, series.point, series.earliest) == ("saturates", 128, 128)
    assert describe(series) == (
        "resnet18 training (cifar10, fp32) on AMD EPYC saturates at batch 128: "
        "200 samples/s [198, 202] (calibrated, 10 processes); doubling to 256 gains +2.5 % "
        "[+0.47 %, +4.6 %] (calibrated, 10 processes)."
    )
    assert saturation_verdict(
        sweep((32, 100, 0.01), (64, 150, 0.01), (128, 152, 0.01))
    ).outcome == ("supported")


def test_a_sweep_that_keeps_rising() -> None:
    rows = sweep((32, 100, 0.01), (128, 200, 0.01), (1024, 800, 0.01))
    series = series_of(rows)
    assert series is not None and series.status == "rising" and series.point is None
    assert (
        "keeps rising to batch 1024: going to 1024 gains +58.7 % [+57.7 %, +59.8 %] "
        "(calibrated, 10 processes) per doubling" in describe(series)
    )
    verdict = saturation_verdict(rows)
    assert verdict.outcome == "not supported"


def test_an_undecidable_sweep() -> None:
    rows = sweep((32, 100, 0.01), (64, 150, 0.01), (128, 165, 0.05))
    series = series_of(rows)
    assert series is not None and [s.call for s in series.steps] == ["rises", "undecided"]
    assert series.status == "undetermined" and series.point is None
    assert saturation_verdict(rows).outcome == "inconclusive"
    assert "straddles +10 % per doubling" in saturation_verdict(rows).reason


def test_an_undecided_step_before_flat_ones_bounds_the_point() -> None:
    series = series_of(sweep((32, 100, 0.01), (64, 150, 0.01), (128, 165, 0.05),
                             (256, 166, 0.01), (512, 167, 0.01)))  # fmt: skip
    assert series is not None
    assert (series.status, series.point, series.earliest) == ("saturates", 128, 64)
    assert "saturates by batch 128 (from batch 64 on at the earliest" in describe(series)


def test_too_few_batches_and_flat_from_the_start() -> None:
    assert series_of(sweep((32, 100, 0.01), (64, 150, 0.01))) is None
    assert saturation_verdict(sweep((32, 100, 0.01), (64, 150, 0.01))).outcome == "inconclusive"
    flat = series_of(sweep((32, 100, 0.01), (64, 101, 0.01), (128, 100, 0.01)))
    assert flat is not None and (flat.status, flat.point) == ("saturates", 32)
    assert "saturates at batch 32, the smallest measured, or below" in describe(flat)


def test_devices_that_disagree_are_mixed() -> None:
    cpu = sweep((32, 100, 0.01), (64, 150, 0.01), (128, 152, 0.01))
    gpu = [{**r, "device_label": "NVIDIA H100 SXM"} for r in sweep(
        (32, 1000, 0.01), (64, 2000, 0.01), (128, 4000, 0.01))]  # fmt: skip
    verdict = saturation_verdict(cpu + gpu)
    assert verdict.outcome == "mixed"
    assert "supported on AMD EPYC, not supported on NVIDIA H100 SXM" in verdict.reason


def _gemm(rate: float) -> CeilingOf:
    """An EPYC whose GEMM ceiling of each precision is `rate` (its key names the precision)."""
    return lambda device, precision: (precision + "-gemm", rate) if device == "AMD EPYC" else None


def test_ceiling_verdict() -> None:
    rows = [run(64, 1.0, 0.99, 1.01), run(1024, 1.0, 0.99, 1.01)]  # 64 and 1024 GFLOP/s
    assert ceiling_verdict(rows, _gemm(1e13), (0.0, 0.2)).outcome == "supported"
    refuted = ceiling_verdict(rows, _gemm(1e12), (0.0, 0.01))
    assert refuted.outcome == "not supported"
    assert (
        "resnet18 train_step b1024 fp32 on AMD EPYC: 102 % [101, 103] (calibrated, 10 "
        "processes) of the measured fp32-gemm GEMM ceiling" in refuted.reason
    )  # the ceiling of the run's own precision, named
    assert ceiling_verdict(rows, _gemm(5.12e12), (0.0, 0.2)).outcome == "inconclusive"
    assert ceiling_verdict(rows, lambda d, p: None, (0.0, 0.01)).outcome == "inconclusive"


def test_a_precision_is_judged_against_its_own_ceiling() -> None:
    """Issue 66: J-gpu's bf16 run was stated as 277 % of the fp32 GEMM ceiling."""
    h100 = [c for c in load_ceilings(REPO / "measurements") if "H100" in c.device_name]
    assert h100
    bf16 = gemm_ceiling("NVIDIA H100 SXM", "bf16-amp", h100)
    fp32 = gemm_ceiling("NVIDIA H100 SXM", "fp32", h100)
    assert bf16 is not None and fp32 is not None
    assert bf16[0] == "bf16" and fp32[0] == "fp32" and bf16[1] > 10 * fp32[1]
    drawn = roof_for("NVIDIA H100 SXM", "bf16_tensor", MEASURED, h100)
    assert drawn is not None and drawn.peak_flops_per_s == bf16[1]  # the roof's own peak
    assert gemm_ceiling("NVIDIA H100 SXM", "fp16-amp", h100) != bf16 or bf16[0] == "fp16"
    rows = [
        result_row({"model": "bert_base", "dataset": "tokens", "batch": 128, "phase": "train_step",
                    "precision": precision, "device": "cuda", "device_label": "NVIDIA H100 SXM",
                    "median_s": 1.0, "ci_low_s": 0.9, "ci_high_s": 1.1, "modelled_flops": flops,
                    "workload": precision})
        for precision, flops in (("bf16-amp", 142.4e12), ("fp32", 20e12))
    ]  # fmt: skip
    sentence = observations(
        rows, "precision", lambda precision: gemm_ceiling("NVIDIA H100 SXM", precision, h100)
    )
    rated = next(s for s in sentence if s.startswith("Highest modelled FLOP/s"))
    assert "in bf16-amp: " in rated and "of the measured bf16 GEMM ceiling" in rated
    share = float(rated.split(": ")[2].split(" %")[0])
    assert share == pytest.approx(100 * 142.4e12 / bf16[1], rel=0.01) and share < 100


def test_phase_times_and_the_backward_forward_ratio() -> None:
    runs = pl.DataFrame(
        [
            run(64, 0.4, 0.39, 0.41, workload="w", status="ok", run_id="a",
                forward_flops=1e9, backward_flops=2e9),
            run(64, 0.4, 0.39, 0.41, workload="w", status="ok", run_id="b",
                forward_flops=1e9, backward_flops=2e9),
            run(64, 0.1, 0.09, 0.11, workload="x", status="ok", run_id="c", phase="inference"),
        ]
    )  # fmt: skip

    def steps(forward: list[float], first_block: int) -> pl.DataFrame:
        """Two steps per block, five blocks: timed in blocks (calibrated)."""
        n = len(forward)
        return pl.DataFrame(
            {"forward_s": forward, "loss_s": [0.001] * n,
             "backward_s": [3 * f for f in forward], "optimizer_step_s": [0.01] * n,
             "step_s": [4 * f + 0.011 for f in forward],
             "block": [first_block + i // 2 for i in range(n)]}
        )  # fmt: skip

    frames = {"a": steps([0.10 + 0.001 * i for i in range(10)], 0),
              "b": steps([0.10 + 0.001 * i for i in range(10, 20)], 5),
              "c": steps([0.1] * 5, 0)}  # fmt: skip
    (item,) = training_parts(runs, frames)  # the inference run has no parts to compare
    assert item.run_ids == ("a", "b") and item.samples == 20
    forward, backward = item.part("forward"), item.part("backward")
    assert forward is not None and backward is not None
    # by the results stage's one rule: ten blocks, the estimate across them, calibrated
    blocks = [[0.10 + 0.001 * i, 0.10 + 0.001 * (i + 1)] for i in range(0, 20, 2)]
    expected = block_estimate(blocks)
    assert forward.median_s == pytest.approx(expected.estimate_s)
    assert (forward.low_s, forward.high_s) == pytest.approx(expected.remeasure95_s)
    assert forward.time.kind == CALIBRATED and forward.time.processes == 10
    ratio = item.time_ratio
    assert ratio is not None and ratio.kind == CALIBRATED
    assert ratio.value == pytest.approx(3.0)
    assert ratio.low == pytest.approx(backward.time.low / forward.time.high)
    assert ratio.high == pytest.approx(backward.time.high / forward.time.low)
    assert item.flop_ratio == 2.0
    assert describe_parts(item) == (
        f"On AMD EPYC, backward takes {ratio.times_text()} the forward time for resnet18 at "
        "batch 64 (cifar10, fp32), against an analytic FLOP ratio of 2: the backward pass "
        f"runs at {ratio.inverse(2.0).percent_text()} of the forward's FLOP rate."
    )
    # two runs each timed in one process: no interval, never one pooled across them
    one = {k: v.drop("block") for k, v in frames.items()}
    (alone,) = training_parts(runs, one)
    part = alone.part("forward")
    assert part is not None and part.low_s is None and part.time.kind == "not calibrated"
