"""What the H100 runs measured here (measurements/runs/*-cuda-*) show, read back through the
same analysis the report uses: the checks the first real GPU data corrected."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from generator.analysis.roofline import kernel_metrics
from generator.cli import main
from generator.ingest import read_ncu_csv
from generator.summaries.export import CheckedExport, check_export

RUNS = Path(__file__).resolve().parent.parent / "measurements" / "runs"
CONFIG = RUNS.parent / "experiments.toml"
FP32 = "B-resnet18-cifar10-b128-train_step-fp32-cuda-4bed1e9a"
TF32 = "E-resnet18-cifar10-b128-train_step-tf32-cuda-f78720da"
ALEXNET_B64 = "H-alexnet-imagenet-b64-inference-fp32-cuda-6390d721"
WINOGRAD_B1024 = "F-resnet18-cifar10-b1024-train_step-fp32-cuda-7a6b7e82"


def _analysis(run: str) -> CheckedExport:
    record = json.loads((RUNS / run / "run.json").read_text())
    counts, phase = record["complexity"], record["config"]["phase"]
    return check_export(
        read_ncu_csv(RUNS / run / "ncu.csv"),
        "h100-sxm",
        phase,
        analytic_training_flops=counts["step_flops"] if phase == "train_step" else None,
        analytic_forward_flops=counts["forward_flops"],
        analytic_backward_flops=counts["backward_flops"] if phase == "train_step" else None,
    )


def _ids(analysis: CheckedExport) -> list[str]:
    return [f.id for f in analysis.findings]


def test_fp32_training_step_is_complete_and_agrees_with_the_analytic_count() -> None:
    analysis = _analysis(FP32)
    assert _ids(analysis) == []
    ranges = analysis.analysis.ranges
    # Backward holds about as many kernels as forward: the step was profiled whole.
    assert (ranges["forward"].kernels, ranges["backward"].kernels) == (90, 96)
    record = json.loads((RUNS / FP32 / "run.json").read_text())["complexity"]
    # 1.008 while BatchNorm's training forward was counted at 8 FLOP an element (6 since)
    assert ranges["forward"].flops / record["forward_flops"] == pytest.approx(1.009, abs=0.001)
    assert ranges["backward"].flops / record["backward_flops"] == pytest.approx(1.199, abs=0.001)


def test_tensor_counters_count_tile_padding() -> None:
    analysis = _analysis(TF32)
    assert _ids(analysis) == ["tensor-padding", "tensor-padding"]
    # The 64-channel layers run in 128-wide tiles: the counter reads twice the layer's FLOPs;
    # the 128-channel layers fill the tile and read exactly their FLOPs.
    metrics = kernel_metrics(read_ncu_csv(RUNS / TF32 / "ncu.csv").kernels)
    forward = metrics.filter(
        (pl.col("nvtx_range") == "forward") & (pl.col("flops_tensor_tf32") > 0)
    )
    layer_flops = 128 * 8 * 8 * 64 * 64 * 9 * 2  # layer1 conv: N·H'W'·Cout·Cin·k² MACs × 2
    assert forward["flops_tensor_tf32"].to_list()[:4] == [2 * layer_flops] * 4
    assert forward["flops_tensor_tf32"].to_list()[5] == layer_flops  # layer2, 128 channels


def test_fft_convolutions_explain_fewer_counted_flops() -> None:
    analysis = _analysis(ALEXNET_B64)
    assert _ids(analysis) == ["fewer-flops-algorithm"]
    assert "fft conv kernel(s)" in analysis.findings[0].evidence


def test_hopper_tensor_pipe_instructions_without_tensor_ops_are_not_matrix_work() -> None:
    # Winograd, batch-norm and pooling kernels issue HMMA-pipe instructions on an H100 while
    # every sm__ops_path_tensor counter reads 0: no tensor-work-uncounted error.
    analysis = _analysis(WINOGRAD_B1024)
    assert analysis.analysis.tensor is None
    assert "tensor-work-uncounted" not in _ids(analysis)


def test_measure_lists_the_gpu_runs_alone(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measure", "--list", "--device", "cuda"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) >= 40  # issue 16: the seeds' GPU experiments
    assert all(line.split()[-1] == "cuda" for line in lines)


def test_every_listed_gpu_configuration_has_a_committed_run() -> None:
    from generator.config import load_experiments, resolve_runs

    configs = [run for run in resolve_runs(load_experiments(CONFIG)) if run.device == "cuda"]
    committed = {path.name for path in RUNS.iterdir() if path.is_dir()}
    missing = [
        c.run_id("NVIDIA H100 80GB HBM3")
        for c in configs
        if c.run_id("NVIDIA H100 80GB HBM3") not in committed
    ]
    assert not missing, missing
    models = {c.model for c in configs}
    assert {"vit_b_32", "fcn_resnet50", "bert_base", "gpt2", "wav2vec2_base"} <= models


def test_trace_paths_follow_the_kernels_tf32_switch() -> None:
    # TF32 off: cuDNN's sm80_xmma f32f32_f32f32 kernels are SIMT (their tensor counters read
    # 0), so no op of the fp32 step runs against a tensor roof; with TF32 on, the convolutions do.
    from generator.analysis.trace_analysis import analyze_trace

    fp32 = analyze_trace(RUNS / FP32 / "trace.json.gz")
    assert set(fp32.points["path"].unique()) == {"fp32"}
    tf32 = analyze_trace(RUNS / TF32 / "trace.json.gz")
    assert tf32.total["path"] == "tf32_tensor"
