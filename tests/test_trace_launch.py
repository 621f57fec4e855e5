"""A trace's host launch time beside its GPU busy time (analysis/trace_launch.py), the
PROFILED pair of analysis/launch.py's rule: checked by hand on a real H200 trace, judged on
the six H200 traces, stored with the trace's work, and said by `summarize` and its finding."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from generator.analysis.launch import PROFILED
from generator.analysis.thresholds import LAUNCH_BOUND_SHARE
from generator.analysis.trace_analysis import analysis_of_work, analyze_raw
from generator.analysis.trace_launch import (
    STEPS,
    WHOLE_TRACE,
    StepLaunch,
    TraceLaunch,
    trace_launch,
    union_us,
)
from generator.analysis.trace_work import read_work, write_work
from generator.findings import trace_findings
from generator.findings.trace_checks import host_bound_launch
from generator.ingest.trace.read import Events, read_trace
from generator.summaries.trace import format_trace_summary, summarize_trace
from tests.trace_helpers import REAL_TRACES, kernel, launch, op, user_range, write_trace

H200 = Path(__file__).parent / "data" / "h200" / "runs"
FP16 = H200 / "E-resnet18-cifar10-b128-train_step-fp16-amp-cuda-8f3139bd" / "trace.json.gz"
FP32 = H200 / "E-resnet18-cifar10-b128-train_step-fp32-cuda-28058cbc" / "trace.json.gz"
# Host/GPU of each H200 trace's one profiled step: every one is host-bound (launch).
H200_RATIOS = {
    "E-resnet18-cifar10-b128-train_step-fp32-cuda-28058cbc": 6.496,
    "E-resnet18-cifar10-b128-train_step-tf32-cuda-c6fbe623": 12.89,
    "E-resnet18-cifar10-b128-train_step-bf16-amp-cuda-5e005f6d": 15.18,
    "E-resnet18-cifar10-b128-train_step-fp16-amp-cuda-8f3139bd": 18.27,
    "J-gpu-bert_base-tokens-b8-train_step-fp32-cuda-0dfe5bd4": 3.347,
    "J-gpu-bert_base-tokens-b8-train_step-bf16-amp-cuda-c9d9feca": 16.29,
}
US = 1e-6
NS = 1e-9


def test_the_fp16_resnet18_step_by_hand() -> None:
    """The fp16-autocast ResNet-18 b128 training step on the H200, its events read by hand
    (times in µs as the trace writes them):

    - `ProfilerStep#0` starts at 4962930657578.123 and lasts 32057.862;
    - its first `cpu_op` is `aten::conv2d` at 4962930658988.138;
    - the calls in it joined to GPU work by correlation: 332 `cudaLaunchKernel`, 58
      `cudaLaunchKernelExC`, 3 `cuLaunchKernel`, 6 `cudaMemsetAsync`, 3 `cudaMemcpyAsync`
      (402);
    - the last that launched a kernel or a set: `cudaLaunchKernel` (correlation 5920) at
      4962930689205.242, 10.654 long, so it ends at 4962930689215.896. The span:
      4962930689215.896 - 4962930658988.138 = 30227.758 (30227.7588 in the trace's floats);
    - inside it the host waits twice, for GradScaler's inf check: the `cudaMemcpyAsync` of
      the `Memcpy DtoH (Device -> Pinned)` at 4962930688477.633 (12.279) and the
      `cudaStreamSynchronize` at 4962930688491.108 (14.768), apart: 27.047. (The
      `cudaDeviceSynchronize` at 4962930689437.771 comes after the span.) Host:
      30227.7588 - 27.047 = 30200.712;
    - the GPU work those 402 calls launched: 393 kernels, 6 memsets and 3 memcpys, on one
      stream and never overlapping, so their union is their sum: 1653.075;
    - host/GPU = 30200.712 / 1653.075 = 18.27, over 0.9: host-bound (launch)."""
    found = trace_launch(read_trace(FP16))
    assert found.scope == STEPS and found.where() == "ProfilerStep#0"
    (step,) = found.steps
    assert step.launches == 402
    assert step.waits_s == pytest.approx((12.279 + 14.768) * US, abs=NS)
    assert step.host_s == pytest.approx(30200.712 * US, abs=NS)
    assert step.gpu_s == pytest.approx(1653.075 * US, abs=NS)
    time = found.time
    assert time is not None and time.source == PROFILED and time.steps == 1
    assert (time.host_s, time.gpu_s) == (step.host_s, step.gpu_s)
    assert time.ratio == pytest.approx(18.27, abs=0.005) and time.host_bound


def test_the_fp32_step_by_hand() -> None:
    """fp32: first op `aten::conv2d` at 4962920322571.108; last launch `cudaLaunchKernel`
    (correlation 4438) at 4962920345030.401 + 8.742; no wait inside (its one
    `cudaDeviceSynchronize` at 4962920345298.812 is after): host 22468.035 µs; 229 kernels
    and 8 memsets, one stream, 3458.543 µs."""
    step = trace_launch(read_trace(FP32)).steps[0]
    assert step.host_s == pytest.approx(22468.035 * US, abs=NS)
    assert step.gpu_s == pytest.approx(3458.543 * US, abs=NS)
    assert step.waits_s == 0 and step.launches == 237


@pytest.mark.parametrize("run", sorted(H200_RATIOS))
def test_the_h200_steps_are_host_bound(run: str) -> None:
    time = trace_launch(read_trace(H200 / run / "trace.json.gz")).time
    assert time is not None
    assert time.ratio == pytest.approx(H200_RATIOS[run], rel=5e-4)
    assert time.host_bound and time.cell() == "host-bound (launch)"


@pytest.mark.parametrize("name", ["sdpa_cpu/trace.json.gz", "gloo_2rank/rank-0.json.gz"])
def test_a_cpu_trace_has_none(name: str) -> None:
    found = trace_launch(read_trace(REAL_TRACES / name))
    assert found.time is None and found.steps == ()
    assert found.why == "no GPU activity in the trace (a CPU trace)"
    assert host_bound_launch(found) == []


def test_without_step_ranges_the_whole_trace_is_taken_and_said() -> None:
    # A real trace with no ProfilerStep range: one compiled region, GPU-bound.
    found = trace_launch(read_trace(REAL_TRACES / "tracelens__torch_compile_triton.json.gz"))
    assert found.scope == WHOLE_TRACE and found.where() == WHOLE_TRACE
    assert found.time is not None and not found.time.host_bound
    assert found.time.ratio == pytest.approx(0.0672, abs=5e-4)
    # The H200 step without its ranges: the whole trace from the op running at the first
    # launch is that step; host-bound, but no finding (a whole trace may hold set-up).
    trace = read_trace(FP32)
    whole = trace_launch(replace(trace, ranges=Events()))
    step = trace_launch(trace).steps[0]
    assert whole.scope == WHOLE_TRACE and whole.steps[0].step == "trace"
    assert (whole.steps[0].host_s, whole.steps[0].gpu_s) == (step.host_s, step.gpu_s)
    assert whole.time is not None and whole.time.host_bound
    assert host_bound_launch(whole) == []


def test_gpu_busy_is_a_union_per_step_and_steps_give_medians(tmp_path: Path) -> None:
    """Two steps. The first launches two kernels on two streams that overlap (busy 30 µs,
    not 40) and one whose run ends after the step's range (still the step's: it was
    launched in it); the second, one 10 µs kernel. Each step's host: first op to the end
    of its last launch (a 1 µs call)."""
    events = [
        user_range("ProfilerStep#0", 0, 100),
        op("aten::mm", 5, 40),
        launch(10, 1),
        launch(20, 2),
        launch(30, 3),
        kernel("a", 15, 20, 1),  # 15-35
        {**kernel("b", 25, 20, 2), "tid": 8},  # 25-45: 15-45 together, 30 µs
        kernel("c", 95, 10, 3),  # ends after the step's 100
        user_range("ProfilerStep#1", 100, 100),
        op("aten::mm", 110, 50),
        launch(150, 4),
        kernel("d", 160, 10, 4),
    ]
    found = trace_launch(read_trace(write_trace(tmp_path / "t.json", events)))
    first, second = found.steps
    assert (first.host_s, first.gpu_s, first.launches) == (26 * US, 40 * US, 3)
    assert (second.host_s, second.gpu_s) == (41 * US, 10 * US)
    assert found.where() == "2 profiled steps, medians"
    time = found.time
    assert time is not None and time.steps == 2
    assert time.host_s == pytest.approx(33.5 * US) and time.gpu_s == pytest.approx(25 * US)
    assert union_us([(0, 10), (5, 20), (30, 40), (32, 35)]) == 30


def test_the_finding_appears_exactly_when_host_bound() -> None:
    def judged(host: float) -> list[str]:
        launch = TraceLaunch(STEPS, (StepLaunch("ProfilerStep#0", host, 1.0, 0.0, 10),))
        return [f.id for f in host_bound_launch(launch)]

    assert judged(LAUNCH_BOUND_SHARE) == ["host-bound"]
    assert judged(LAUNCH_BOUND_SHARE - 0.01) == []
    (finding,) = host_bound_launch(trace_launch(read_trace(FP16)))
    assert finding.severity == "warning"
    assert "30.2 ms" in finding.title and "1.653 ms" in finding.title
    assert "host/GPU 18.3" in finding.evidence and "90 %" in finding.evidence
    assert "torch.profiler slows the host" in finding.evidence
    assert "27.05 µs of waits" in finding.evidence
    assert "CUDA graphs" in finding.fix and "reduce-overhead" in finding.fix
    assert "cast kernels" in finding.fix and "larger batch" in finding.fix


def test_the_stored_analysis_carries_the_launch_time(tmp_path: Path) -> None:
    path = Path(shutil.copy(FP16, tmp_path / "trace.json.gz"))
    direct = analyze_raw(read_trace(path))
    write_work(direct.work, path, tmp_path)
    stored = read_work(tmp_path, path)
    assert stored is not None
    assert stored.launch == direct.work.launch
    analysis = analysis_of_work(stored, path)
    assert analysis.launch == direct.launch and analysis.launch is not None
    assert "host-bound" in [f.id for f in trace_findings(analysis, "train_step")]
    cpu = Path(shutil.copy(REAL_TRACES / "sdpa_cpu" / "trace.json.gz", tmp_path / "c.json.gz"))
    (tmp_path / "cpu").mkdir()
    write_work(analyze_raw(read_trace(cpu)).work, cpu, tmp_path / "cpu")
    none = read_work(tmp_path / "cpu", cpu)
    assert none is not None and none.launch.time is None and "CPU trace" in none.launch.why


def test_summarize_says_the_diagnosis_in_text_and_json() -> None:
    summary = summarize_trace(FP32, None, "train_step")
    launch = summary["launch"]
    assert launch["host_s"] == pytest.approx(22468.035 * US, abs=NS)
    assert launch["gpu_s"] == pytest.approx(3458.543 * US, abs=NS)
    assert launch["ratio"] == pytest.approx(6.496, abs=5e-4)
    assert launch["host_bound"] is True and launch["source"] == PROFILED
    assert launch["steps"] == 1 and launch["where"] == "ProfilerStep#0"
    json.dumps(summary, allow_nan=False)
    text = format_trace_summary(summary)
    assert (
        "  host launch        22.47 ms host / 3.459 ms GPU busy per step (host/GPU 6.5): "
        "host-bound (launch) (profiled step; torch.profiler slows the host)"
    ) in text
    assert "[host-bound]" in text
    cpu = summarize_trace(REAL_TRACES / "sdpa_cpu" / "trace.json.gz", None)
    assert cpu["launch"]["host_s"] is None and cpu["launch"]["host_bound"] is None
    assert "host launch        n/a (no GPU activity in the trace (a CPU trace))" in (
        format_trace_summary(cpu)
    )
    assert "host-bound" not in [f["id"] for f in cpu["findings"]]
    gpu_bound = summarize_trace(REAL_TRACES / "tracelens__torch_compile_triton.json.gz", None)
    assert gpu_bound["launch"]["host_bound"] is False
    assert "over the whole trace (no ProfilerStep ranges)" in format_trace_summary(gpu_bound)
    assert "host-bound" not in [f["id"] for f in gpu_bound["findings"]]


def test_a_trace_without_cpu_ops_says_why(tmp_path: Path) -> None:
    # profiled with ProfilerActivity.CUDA alone: launches and kernels, no op to start from
    events = [user_range("ProfilerStep#0", 0, 100), launch(10, 1), kernel("k", 12, 5, 1)]
    found = trace_launch(read_trace(write_trace(tmp_path / "t.json", events)))
    assert found.time is None and "no CPU ops" in found.why
