"""Findings: the seeds' mistakes, caught with their evidence."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from generator.analysis.roofline import kernel_metrics, range_totals, totals
from generator.cli import main
from generator.findings import (
    FINDING_IDS,
    flops_mismatch,
    incomplete_step,
    timing_findings,
)
from generator.ingest import read_ncu_csv
from generator.summaries.export import summarize_file
from tests.helpers import REAL_NCU, REPO, fp32_kernel, metric_row, write_long

L4 = REAL_NCU / "taytwkim__nn-perf__a1-rep.csv"


def by_id(summary: dict[str, object]) -> dict[str, dict[str, str]]:
    found = summary["findings"]
    assert isinstance(found, list)
    for finding in found:
        assert set(finding) == {"id", "severity", "title", "evidence", "fix"}
        assert finding["id"] in FINDING_IDS
    first: dict[str, dict[str, str]] = {}
    for finding in found:
        first.setdefault(finding["id"], finding)
    return first


def test_l4_export_reports_the_incomplete_step(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summarize", str(L4), "--device", "l4", "--json"]) == 0
    findings = by_id(json.loads(capsys.readouterr().out))
    assert list(findings) == ["incomplete-step"]
    step = findings["incomplete-step"]
    assert step["severity"] == "error"
    assert step["evidence"].startswith("range 'backward' holds 1 kernel(s) against 89 in 'forward'")
    assert "--nvtx-push-pop-scope process" in step["fix"]
    assert main(["summarize", str(L4), "--device", "l4"]) == 0
    text = capsys.readouterr().out
    assert "error    [incomplete-step] The backward pass is missing from the profile" in text


def test_bert_tensor_pipe_instructions_outside_matrix_kernels_are_no_error() -> None:
    # 17 kernels issue 15,427 tensor-pipe instructions, all RNG, elementwise, copy, softmax,
    # reduce and split-K reduce kernels; the GEMMs are SIMT sgemm kernels with none.
    summary = summarize_file(REPO / "measurements/imported/a100-bert-attention/ncu.csv", None)
    assert "tensor-work-uncounted" not in by_id(summary)
    assert summary["tensor_pipe_inst"] == 15427
    assert summary["tensor_flops_estimate"] is None


def test_sam_gemmsn_tensor_pipe_instructions_are_fp16_arithmetic_not_an_error() -> None:
    """The A100 SAM-attention export: cuBLAS's fp32 `gemmSN_*` kernels (a GEMM by name, no
    tensor-core family, no MMA sub-metric) issue tensor-pipe instructions that their FP16
    thread instructions account for: in gemmSN_NN_kernel 196,608 HFMA thread instructions
    / 32 = 6,144 = its tensor-pipe count. FP16 arithmetic, reported as such, no error."""
    summary = summarize_file(
        REPO / "tests/data/ncu/leleucas__Actual-Parameter-Collection-for-Machine-Learning-"
        "Operators__sam_torch_nsight.csv",
        None,
    )
    findings = by_id(summary)
    assert "tensor-work-uncounted" not in findings
    fp16 = findings["fp16-tensor-pipe"]
    assert fp16["severity"] == "info"
    # 18 kernels with tensor-pipe instructions (summed by hand from the file's
    # sm__inst_executed_pipe_tensor.sum rows: 96,940) and FP16 FMA thread instructions
    # (3,023,744 / 32 = 94,492); none has an MMA sub-metric or a tensor-core name
    assert "18 kernel(s)" in fp16["evidence"]
    assert "issued 96,940 tensor-pipe instructions" in fp16["evidence"]
    assert "are 94,492 warp instructions" in fp16["evidence"]
    assert summary["tensor_flops_estimate"] is None


TF32_RUN = REPO / "measurements/runs/E-resnet18-cifar10-b128-train_step-tf32-cuda-f78720da"


def test_tf32_xmma_convolutions_without_direct_counters_are_an_error(tmp_path: Path) -> None:
    # A real ResNet-18 TF32 training step (run E, H100, ncu 2025.3): cuDNN's xmma implicit-GEMM
    # convolutions issue the tensor-pipe instructions. With its `sm__ops_path_tensor_*` rows
    # dropped, as a collection with the older roofline metric set (FFMA family and
    # `sm__inst_executed_pipe_tensor.sum`, no direct tensor counters) would have it, that
    # matrix work is in no FLOP count: an error naming the convolutions.
    lines = (TF32_RUN / "ncu.csv").read_text().splitlines(keepends=True)
    kept = [line for line in lines if '"sm__ops_path_tensor_' not in line]
    assert len(kept) < len(lines)
    (tmp_path / "ncu.csv").write_text("".join(kept))
    finding = by_id(summarize_file(tmp_path / "ncu.csv", "h100-sxm"))["tensor-work-uncounted"]
    assert finding["severity"] == "error"
    assert "xmma_fprop_implicit_gemm" in finding["evidence"]
    share = float(finding["evidence"].split("tensor-pipe instructions (")[1].split(" %")[0])
    # 81 %: the rest sit in Winograd, batch-norm and pooling kernels, which are no evidence
    assert share > 75
    # The committed export has the direct counters: the same work is counted, no error.
    assert "tensor-work-uncounted" not in by_id(summarize_file(TF32_RUN / "ncu.csv", "h100-sxm"))


def test_export_without_flop_counters_says_which_metrics(tmp_path: Path) -> None:
    path = write_long(
        tmp_path / "bytes-only.csv",
        [
            metric_row(1, "dram__bytes_read.sum", "Mbyte", "2"),
            metric_row(1, "gpu__time_duration.sum", "usecond", "5"),
        ],
    )
    found = summarize_file(path, "l4")["findings"]
    assert [f["title"] for f in found] == [  # type: ignore[union-attr]
        "No FLOP counters in the export",
        "No DRAM bytes in the export",
    ]
    assert "sm__sass_thread_inst_executed_op_" in found[0]["fix"]  # type: ignore[index]
    assert "dram__bytes_write.sum" in found[1]["fix"]  # type: ignore[index]


def test_partially_missing_metric(tmp_path: Path) -> None:
    rows = fp32_kernel(1, ffma="1000", time=("nsecond", "100")) + fp32_kernel(2, ffma="1000")
    rows = [r for r in rows if not (r[0] == "2" and r[12] == "gpu__time_duration.sum")]
    rows.append(metric_row(2, "gpu__time_duration.sum", "nsecond", "n/a"))
    finding = by_id(summarize_file(write_long(tmp_path / "k.csv", rows), "l4"))["missing-metric"]
    assert finding["evidence"].startswith("1 of 2 kernels have no value for time_s")
    assert "gpu__time_duration.sum" in finding["fix"]


def test_ten_gigahertz_clock_is_implausible(tmp_path: Path) -> None:
    """Seed 004 read 10 GHz from sm__cycles_elapsed.avg.per_second on an A100."""
    rows = [
        metric_row(
            1, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "1000", cc="8.0"
        ),
        metric_row(1, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst", "0", cc="8.0"),
        metric_row(1, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst", "0", cc="8.0"),
        metric_row(1, "sm__cycles_elapsed.avg", "cycle", "10000", cc="8.0"),
        metric_row(1, "sm__cycles_elapsed.avg.per_second", "cycle/nsecond", "10", cc="8.0"),
        metric_row(1, "gpu__time_duration.sum", "usecond", "7", cc="8.0"),
    ]
    summary = summarize_file(write_long(tmp_path / "clock.csv", rows), "a100-80gb-sxm")
    finding = by_id(summary)["implausible-clock"]
    assert "up to 10 GHz" in finding["evidence"]
    assert "boost clock of 1.41 GHz" in finding["evidence"]
    both = [f for f in summary["findings"] if f["id"] == "implausible-clock"]  # type: ignore[union-attr]
    assert both[1]["title"] == "Kernel time disagrees with cycles / clock"
    assert "lasts 7 µs but cycles / clock gives 1 µs" in both[1]["evidence"]


def test_point_above_its_roof(tmp_path: Path) -> None:
    """1e12 fp32 FLOP in 1 ms on an L4 (30.3 TFLOP/s fp32) is 33x its roof."""
    rows = fp32_kernel(
        1, ffma="5e11", dram_read=("Gbyte", "10"), time=("msecond", "1"), name="planted<*x*>"
    )
    summary = summarize_file(write_long(tmp_path / "fast.csv", rows), "l4")
    found = [f for f in summary["findings"] if f["id"] == "above-roof"]  # type: ignore[union-attr]
    assert [f["title"] for f in found] == ["Kernels above their roof", "The step is above its roof"]
    assert (
        "1 of 1 kernels attain more than min(peak, AI × bandwidth) of the NVIDIA L4"
        in found[0]["evidence"]
    )
    assert "'planted<*x*>' at 1 PFLOP/s fp32" in found[0]["evidence"]


def test_consistent_data_has_no_finding(tmp_path: Path) -> None:
    rows = fp32_kernel(1, ffma="1e9", dram_read=("Gbyte", "1"), time=("msecond", "10"), name="sane")
    assert summarize_file(write_long(tmp_path / "ok.csv", rows), "l4")["findings"] == []


def test_training_step_without_backward_range(tmp_path: Path) -> None:
    metrics = kernel_metrics(read_ncu_csv(L4).kernels)
    forward_only = metrics.filter(metrics["nvtx_range"] == "forward")
    ranges = range_totals(forward_only)
    found = incomplete_step(ranges, totals(forward_only), "train_step")
    assert [f.title for f in found] == ["The training step has no backward range"]
    assert incomplete_step(ranges, totals(forward_only), "inference") == []
    total = totals(metrics)
    by_flops = incomplete_step({}, total, "train_step", analytic_training_flops=14e9)
    assert by_flops[0].evidence == (
        "counted 4.928 GFLOP against 14 GFLOP analytic for the training step (ratio 0.352 < 0.6)"
    )


@pytest.mark.parametrize(
    ("counted", "title"),
    [
        (5.0e9, "Counted and analytic FLOPs differ by a factor of 2"),
        (2.0e10, "Counted and analytic FLOPs differ by a factor of 2"),
        (3.0e9, "Far fewer FLOPs counted than the model performs"),
        (1.7e10, "More FLOPs counted than the model performs"),
        (1.0e10, None),
    ],
)
def test_flops_mismatch(counted: float, title: str | None) -> None:
    found = flops_mismatch(counted, 1.0e10, "step")
    assert [f.title for f in found] == ([title] if title else [])


def test_timing_findings() -> None:
    steady = [0.100, 0.101, 0.099, 0.100, 0.102, 0.098, 0.100, 0.101, 0.099, 0.100]
    assert timing_findings(steady) == []
    noisy = [0.10, 0.13, 0.09, 0.12, 0.08, 0.11, 0.10, 0.14, 0.09, 0.10]
    assert [f.id for f in timing_findings(noisy)] == ["noisy-timing"]
    cv = statistics.stdev(noisy) / statistics.fmean(noisy)
    # 10 samples: the interval runs from the 2nd to the 9th smallest (97.9 %), 90 to 130 ms
    evidence = timing_findings(noisy, "time")[0].evidence
    assert evidence == (
        "the median step time's 95 % interval (within one process: not calibrated) is ±30 % "
        "(90 ms to 130 ms; above ±3 %); this run's 10 iterations have a CV of "
        f"{100 * cv:.3g} %; it stopped there because it reached `max_seconds` first"
    )
    # the same spread over many samples pins the median: precise, so no finding
    assert timing_findings(noisy * 40) == []
    rising = [0.100 + 0.002 * i + (0.0005 if i % 2 else 0) for i in range(20)]
    drift = [f for f in timing_findings(rising) if f.id == "timing-drift"]
    assert drift and drift[0].evidence.startswith(
        "step time rises by 2.004 ms per iteration (t = 197)"
    )
    few = timing_findings([0.1, 0.1, 0.1])
    assert [f.title for f in few] == ["Too few iterations for a confidence interval"]
