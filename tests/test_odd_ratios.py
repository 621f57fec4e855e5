"""Issue 66: every comparison against its expected direction says what decided it (the host,
overhead) or that nothing measured explains it, and an unexplained one is a finding."""

from __future__ import annotations

from dataclasses import replace

from generator.analysis.interval import Interval
from generator.analysis.launch import PROFILED, TIMED, LaunchTime
from generator.analysis.odd_ratios import (
    BATCH,
    DEVICE,
    HOST,
    OVERHEAD,
    PHASES,
    PRECISION,
    UNEXPLAINED,
    odd_between,
    odd_pairs,
    odd_phases,
)
from generator.analysis.phases import PartTime, StepParts
from generator.analysis.points import Points
from generator.analysis.results import Result, RunTime
from generator.analysis.roofs import Roof
from generator.analysis.speedups import precision_speedups, summary
from generator.analysis.step_verdict import TIMED as TIMED_MEDIAN
from generator.analysis.step_verdict import step_verdict
from generator.findings.odd_checks import unexplained
from generator.findings.specs import UNEXPLAINED_COMPARISON

HOST_BOUND = LaunchTime(0.009, 0.001, TIMED, 20)  # host/GPU 9
GPU_BOUND = LaunchTime(0.001, 0.009, TIMED, 20)


def result(
    workload: str, seconds: float, launch: LaunchTime | None = None, **values: object
) -> Result:
    step = Interval(seconds, seconds * 0.95, seconds * 1.05, "within one process", 1)
    fields: dict[str, object] = {
        "workload": workload, "model": "resnet18", "dataset": "cifar10", "batch": 128,
        "phase": "train_step", "precision": "fp32", "device": "cuda",
        "device_name": "NVIDIA H100 80GB HBM3", "device_label": "NVIDIA H100 SXM",
        "runs": (RunTime(f"run-{workload}", "E", step, False),), "groups": ("E",),
        "step": step, "iterations": 20, "launch": launch,
    }  # fmt: skip
    return Result(**(fields | values))  # type: ignore[arg-type]


def test_a_reduced_precision_slower_than_fp32_is_decided_by_its_host() -> None:
    fp32 = result("fp32", 0.0069, HOST_BOUND)
    fp16 = result("fp16", 0.0170, HOST_BOUND, precision="fp16-amp")
    (odd,) = odd_pairs([fp32, fp16], {})
    assert (odd.kind, odd.expected, odd.other, odd.cause.kind) == (PRECISION, fp16, fp32, HOST)
    text = odd.sentence()
    assert text.startswith("fp16-amp takes 2.46× as long as fp32 for resnet18 (cifar10) b128")
    assert (
        "decided by the host: the fp16-amp step is host-bound (launch): the host took 9 ms" in text
    )
    assert (
        "for the fp32 step, the host took 9 ms to enqueue it" in text and "host-bound too" in text
    )
    # the Speedups summary says it beside the ratio
    (table,) = precision_speedups({"fp32": fp32, "fp16": fp16})
    assert odd.sentence() in summary(table, [odd])


def test_overhead_decides_where_the_step_is_latency_bound_and_not_host_bound() -> None:
    small = result("b64", 0.012, None, batch=64)
    large = result("b128", 0.007, None)
    roof = Roof("H100", "fp32", 5e13, 3e12, "measured")
    verdict = step_verdict(1e9, 1e8, small.step, roof, TIMED_MEDIAN, "modelled")
    assert verdict is not None and verdict.bound == "latency/overhead"
    (odd,) = odd_pairs([small, large], {"b64": Points(modelled=verdict)})
    assert (odd.kind, odd.expected.batch, odd.cause.kind) == (BATCH, 64, OVERHEAD)
    assert "batch 64 takes 1.71× as long per step as batch 128" in odd.sentence()
    assert "latency/overhead-bound at" in odd.cause.words


def test_nothing_measured_explains_it_then_it_says_so_and_its_runs_get_a_finding() -> None:
    cpu = result("cpu", 0.001, None, device="cpu", device_label="AMD EPYC (2 threads)")
    gpu = result("gpu", 0.002, GPU_BOUND)
    (odd,) = odd_pairs([cpu, gpu], {})
    assert (odd.kind, odd.expected, odd.cause.kind) == (DEVICE, gpu, UNEXPLAINED)
    assert "unexplained: for the NVIDIA H100 SXM step, the host took 1 ms" in odd.sentence()
    assert "not host-bound" in odd.sentence()
    found = unexplained([odd])
    assert list(found) == ["run-gpu"]
    (finding,) = found["run-gpu"]
    assert (finding.id, finding.severity) == (UNEXPLAINED_COMPARISON.id, "warning")
    assert finding.evidence == odd.sentence()
    explained = odd_pairs([result("a", 1.0), result("b", 2.0, HOST_BOUND, precision="tf32")], {})
    assert len(explained) == 1 and unexplained(explained) == {}  # the host decided it
    assert odd_between([odd], cpu, gpu) is odd and odd_between([odd], cpu, cpu) is None


def test_a_backward_pass_under_its_forward_names_the_host() -> None:
    step = result("w", 0.010, LaunchTime(0.02, 0.002, PROFILED, 1, 0.010))
    forward = PartTime("forward", Interval(0.004))
    backward = PartTime("backward", Interval(0.003))
    parts = StepParts(
        "resnet18", "cifar10", 128, "fp32", "NVIDIA H100 SXM", "w", ("run-w",), 20,
        (forward, backward), backward.time.ratio(forward.time), 1.93, None,
    )  # fmt: skip
    (odd,) = odd_phases([parts], {"w": step}, {})
    assert (odd.kind, odd.cause.kind) == (PHASES, HOST)
    assert odd.sentence().startswith("backward takes 0.75× the forward time for resnet18")
    assert "the step is host-bound (launch)" in odd.sentence()
    assert "its phases' times are the host's enqueue times" in odd.sentence()
    slower = replace(parts, time_ratio=Interval(2.0))
    assert odd_phases([slower], {"w": step}, {}) == []  # the expected direction: nothing said


def test_the_expected_direction_says_nothing() -> None:
    fp32 = result("fp32", 0.010, HOST_BOUND)
    bf16 = result("bf16", 0.005, HOST_BOUND, precision="bf16-amp")
    small = result("b64", 0.005, HOST_BOUND, batch=64)
    assert odd_pairs([fp32, bf16, small], {}) == []
