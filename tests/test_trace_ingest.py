"""The torch.profiler trace ingest: real traces pinned to independently computed totals,
the attribution rule, the formulas, the device match, CPU traces, and bad input.

The pinned totals of the real traces (tests/data/traces/) were computed with plain `json`
over the raw events, not with the code under test: kernels = events with cat "kernel",
time = the sum of their `dur`, matmul FLOPs = Σ 2·M·K·N over every `aten::mm`, `aten::addmm`
and `aten::bmm` op with `Input Dims`, plus M·N per `aten::addmm` for its bias (beta is 1
wherever the trace records it; the default where it does not).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from generator.analysis.trace_analysis import analyze_trace
from generator.errors import UserError
from generator.ingest.trace.events import OpArgs
from generator.ingest.trace.op_table import op_cost
from generator.ingest.trace.read import looks_like_trace, read_trace
from generator.records.ceilings import MeasuredCeilings
from generator.summaries.trace import summarize_trace
from tests.trace_helpers import (
    A100_PROPERTIES,
    REAL_TRACES,
    kernel,
    launch,
    op,
    user_range,
    write_trace,
)

MATMULS = ("aten::mm", "aten::addmm", "aten::bmm")


def matmul_flops(summary: dict) -> float:  # type: ignore[type-arg]
    return sum(v for name, v in summary["flops_by_op"].items() if name in MATMULS)


# file -> (kernels, summed kernel time in µs, matmul FLOPs over all shaped matmul ops)
REAL = {
    "hta__amd_mi250_minitoy_train.json.gz": (14, 110.881, 328_320),
    "hta__critical_path_alexnet__a100_noshapes.json.gz": (79, 10_692, 0),
    "hta__trace_diff_control__a100.json.gz": (8568, 446_813, 2_068_714_930_176),
    "hta__trace_filter_sampled_rank-0.json.gz": (1154, 606_519, 1_653_123_733_504),
    "hta__triton_example__a100.json.gz": (1, 1.76, 0),
}
# In the sampled trace one aten::mm ([256, 2048] x [2048, 2400], under a
# DifferentiableGraphBackward) launched no kernel inside the trace window: it has no
# measured time, so it is not a point, and its FLOPs are not in the totals.
UNTIMED_MM = {"hta__trace_filter_sampled_rank-0.json.gz": 2 * 256 * 2048 * 2400}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_trace_totals(name: str) -> None:
    kernels, time_us, matmul = REAL[name]
    summary = summarize_trace(REAL_TRACES / name, None)
    assert summary["kernels"] == kernels
    assert summary["time_s"] == pytest.approx(time_us * 1e-6, rel=1e-12)
    expected = matmul - UNTIMED_MM.get(name, 0)
    if "noshapes" in name:
        assert summary["flops"] is None
    else:
        assert matmul_flops(summary) == expected
    json.dumps(summary, allow_nan=False)


def test_trace_without_shapes_is_a_finding_not_zero() -> None:
    summary = summarize_trace(
        REAL_TRACES / "hta__critical_path_alexnet__a100_noshapes.json.gz", None
    )
    assert [f["id"] for f in summary["findings"]] == ["missing-shapes"]
    assert summary["flops"] is None and summary["bytes"] is None
    # a share all the same: its ops' time is "no shapes recorded" (test_time_parts.py)
    assert summary["uncounted_by_cause"]["no shapes recorded"] > 0
    # The name the trace recorded is kept beside the catalog entry it matched.
    assert summary["device"] == {"recorded": "NVIDIA A100-PG509-200", "catalog": "a100-40gb-sxm"}
    assert all(row["flops"] is None for row in summary["by_op"])


def test_amd_mi250_trace() -> None:
    summary = summarize_trace(REAL_TRACES / "hta__amd_mi250_minitoy_train.json.gz", None)
    assert summary["device"]["catalog"] == "mi250-gcd"  # warp size 64 and 104 compute units
    # one linear 5x128 -> 128 forward (addmm) and its weight gradient (mm); the input needs
    # no gradient, so no second mm
    assert summary["flops_by_op"]["aten::addmm"] == 2 * 5 * 128 * 128 + 5 * 128  # and its bias
    assert summary["flops_by_op"]["aten::mm"] == 2 * 128 * 5 * 128
    assert summary["flops_by_op"]["aten::_foreach_add_"] == 128 * 128 + 128
    assert summary["uncounted_time_share"] == 0
    assert summary["bound"] == "memory"
    assert [s["step"] for s in summary["steps"]] == ["ProfilerStep#1"]


def test_control_trace_tensor_core_gemms_run_against_tf32() -> None:
    analysis = analyze_trace(REAL_TRACES / "hta__trace_diff_control__a100.json.gz")
    mm = analysis.by_op.filter(analysis.by_op["op"] == "aten::mm").row(0, named=True)
    assert mm["path"] == "tf32_tensor"  # cutlass_80_tensorop_s1688gemm kernels
    assert [s for s in analysis.by_step["step"]] == [f"ProfilerStep#{n}" for n in range(1009, 1015)]
    summary = summarize_trace(REAL_TRACES / "hta__trace_diff_control__a100.json.gz", None)
    assert 0.3 < summary["communication_time_share"] < 0.4  # NCCL kernels, not "uncounted"
    ids = [f["id"] for f in summary["findings"]]
    # six profiled steps: host 64.25 ms (12.77 ms of waits left out) / GPU busy 65.83 ms
    assert ids == ["uncounted-ops", "host-bound"]
    assert summary["by_op"][0]["time_s"] >= summary["by_op"][1]["time_s"]


def test_sampled_trace_device_from_kernel_names() -> None:
    summary = summarize_trace(REAL_TRACES / "hta__trace_filter_sampled_rank-0.json.gz", None)
    assert summary["device"]["catalog"] is None
    assert "compute capability 8.0" in summary["device_note"]
    assert "a100-40gb-sxm" in summary["device_note"]
    named = summarize_trace(
        REAL_TRACES / "hta__trace_filter_sampled_rank-0.json.gz", "a100-80gb-sxm"
    )
    assert named["device"]["catalog"] == "a100-80gb-sxm" and named["bound"] is not None


def test_inductor_pointwise_kernel_is_costed_from_its_recorded_arguments() -> None:
    """triton_poi_fused_add_cos_sin_0 on three float [10, 10] tensors, xnumel 100 (its last
    concrete argument): add 1 + cos 1 + sin 1 FLOP per element, each tensor moved once."""
    summary = summarize_trace(REAL_TRACES / "hta__triton_example__a100.json.gz", None)
    assert summary["uncounted_time_share"] == 0.0
    (row,) = summary["by_op"]
    assert row["op"] == "triton_poi_fused_add_cos_sin_0"
    assert (row["flops"], row["bytes"]) == (3 * 100, 3 * 100 * 4)


def test_leaf_rule_counts_addmm_once_with_its_helpers_time(tmp_path: Path) -> None:
    """linear -> (t, addmm -> copy_): the addmm is the counted op; the copy_ it calls is its
    time, not a second cost; the linear has no formula and is never counted."""
    events = [
        op("aten::linear", 0, 100, [[8, 16], [32, 16], [32]]),
        op("aten::t", 1, 2, [[32, 16]]),
        op("aten::addmm", 5, 90, [[32], [8, 16], [16, 32], [], []]),
        op("aten::copy_", 6, 10, [[8, 32], [8, 32], []]),
        launch(7, 1),
        launch(20, 2),
        kernel("elementwise_copy", 30, 3, 1),
        kernel("cutlass_80_tensorop_s1688gemm_64x64", 40, 7, 2),
    ]
    path = write_trace(tmp_path / "t.json", events, deviceProperties=A100_PROPERTIES)
    summary = summarize_trace(path, None)
    assert summary["flops_by_op"] == {"aten::addmm": 2 * 8 * 16 * 32 + 8 * 32}
    assert [r["op"] for r in summary["by_op"]] == ["aten::addmm"]
    assert summary["by_op"][0]["time_s"] == pytest.approx(10e-6)
    assert summary["by_op"][0]["path"] == "tf32_tensor"
    assert summary["device"]["catalog"] == "a100-40gb-sxm"


def test_cpu_trace_uses_self_time_and_measured_ceilings(tmp_path: Path) -> None:
    events = [
        user_range("ProfilerStep#3", 0, 1000),
        user_range("ra::forward", 0, 500),
        op("aten::addmm", 10, 300, [[64], [128, 256], [256, 64], [], []]),
        op("aten::copy_", 20, 100, [[128, 64], [64], []]),
        op("aten::relu", 400, 50, [[128, 64]]),
        op("aten::frobnicate", 600, 200, [[4]]),
    ]
    path = write_trace(tmp_path / "cpu.json", events)
    ceilings = MeasuredCeilings("test CPU", {"fp32": 1e11}, 2e10, 2.5e10, "")
    summary = summarize_trace(path, None, ceilings=ceilings)
    assert not summary["on_gpu"] and summary["kernels"] == 0
    assert summary["time_s"] == pytest.approx(550e-6)  # self times: 200 + 100 + 50 + 200
    by_op = {r["op"]: r for r in summary["by_op"]}
    assert by_op["aten::addmm"]["time_s"] == pytest.approx(300e-6)  # its copy_ included
    assert by_op["aten::addmm"]["flops"] == 2 * 128 * 256 * 64 + 128 * 64
    assert summary["uncounted_time_share"] == pytest.approx(200 / 550)
    assert summary["roof"] == {"name": "test CPU", "source": "measured ceilings"}
    assert by_op["aten::relu"]["bound"] == "memory"
    assert [p["phase"] for p in summary["phases"]] == ["forward"]
    assert summary["steps"][0]["step"] == "ProfilerStep#3"


def test_backward_ops_take_the_layer_of_their_forward_op(tmp_path: Path) -> None:
    events = [
        user_range("ra.layer::fc", 0, 100),
        op("aten::linear", 10, 80, [[8, 16], [32, 16], [32]], **{"Sequence number": 7}),
        op("aten::addmm", 11, 70, [[32], [8, 16], [16, 32], [], []], **{"Sequence number": 7}),
        op(
            "autograd::engine::evaluate_function: AddmmBackward0",
            300,
            100,
            None,
            **{"Sequence number": 7},
        ),
        op("aten::mm", 310, 40, [[8, 32], [32, 16]]),
        op("aten::mm", 360, 30, [[32, 8], [8, 16]]),
    ]
    analysis = analyze_trace(write_trace(tmp_path / "layers.json", events))
    layer = analysis.by_layer.row(0, named=True)
    assert layer["layer"] == "fc"
    assert layer["time_s"] == pytest.approx((70 + 40 + 30) * 1e-6 + 10e-6 + 30e-6)
    assert layer["flops"] == 3 * 2 * 8 * 16 * 32 + 8 * 32  # the forward's bias once


def test_older_category_names_and_unknown_fields_are_read(tmp_path: Path) -> None:
    events = [
        {"ph": "X", "cat": "Operator", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0,
         "dur": 10, "args": {"Input dims": [[2, 3], [3, 4]], "Input type": ["float", "float"],
                             "Brand new field": {"x": 1}}},
        {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1,
         "dur": 1, "args": {"correlation": 5}},
        {"ph": "X", "cat": "Kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 3, "dur": 2,
         "args": {"correlation": 5}, "new_top_level": True},
    ]  # fmt: skip
    summary = summarize_trace(write_trace(tmp_path / "old.json", events), "a100-40gb-sxm")
    assert summary["kernels"] == 1
    assert summary["flops_by_op"] == {"aten::mm": 2 * 2 * 3 * 4}
    assert summary["by_op"][0]["path"] == "fp32"  # an sgemm kernel: CUDA cores


def test_detected_by_content(tmp_path: Path) -> None:
    trace = tmp_path / "profile.txt"
    trace.write_bytes(gzip.compress(b'{"traceEvents": []}'))
    assert looks_like_trace(trace)
    assert looks_like_trace(REAL_TRACES / "hta__triton_example__a100.json.gz")
    assert not looks_like_trace(Path(__file__).parent / "data" / "bad" / "no-header.csv")


def test_bare_event_array_is_a_trace(tmp_path: Path) -> None:
    path = tmp_path / "array.json"
    path.write_text(json.dumps([op("aten::relu", 0, 5, [[10]])]))
    assert len(read_trace(path).ops) == 1


# --- formulas -------------------------------------------------------------------------------


def args(dims: list, types: list | None = None, concrete: list | None = None) -> OpArgs:  # type: ignore[type-arg]
    return OpArgs(dims, types or ["float" if d else "Scalar" for d in dims], concrete or [])


def test_matmul_formulas() -> None:
    mm = op_cost("aten::mm", args([[3, 4], [4, 5]]))
    assert mm is not None and mm.flops == 2 * 3 * 4 * 5 and mm.family == "matmul"
    assert mm.bytes == 4 * (12 + 20 + 15)
    bmm = op_cost("aten::bmm", args([[2, 3, 4], [2, 4, 5]], ["c10::BFloat16"] * 2))
    assert bmm is not None and bmm.flops == 2 * 2 * 3 * 4 * 5 and bmm.dtype == "c10::BFloat16"
    assert bmm.bytes == 2 * (24 + 40 + 30)
    addmm = op_cost("aten::addmm", args([[5], [3, 4], [4, 5], [], []]))
    assert addmm is not None and addmm.flops == 2 * 3 * 4 * 5 + 3 * 5  # one add per output
    no_bias = op_cost(
        "aten::addmm", args([[5], [3, 4], [4, 5], [], []], concrete=["", "", "", "0", "1"])
    )
    assert no_bias is not None and no_bias.flops == 2 * 3 * 4 * 5  # beta = 0: no bias added


def test_convolution_needs_stride_and_padding() -> None:
    dims = [[8, 3, 32, 32], [64, 3, 3, 3], [64], [], [], [], [], [], []]
    concrete = ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"]
    conv = op_cost("aten::convolution", args(dims, concrete=concrete))
    outputs = 8 * 64 * 32 * 32
    assert conv is not None and conv.flops == 2 * outputs * 3 * 3 * 3 + outputs  # with its bias
    assert op_cost("aten::convolution", args(dims)) is None  # no concrete stride: uncounted
    strided = ["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"]
    half = op_cost("aten::convolution", args(dims, concrete=strided))
    assert half is not None and half.flops == conv.flops / 4


def test_convolution_backward_follows_its_output_mask() -> None:
    dims = [[8, 64, 32, 32], [8, 3, 32, 32], [64, 3, 3, 3], [], [], [], [], [], [], [], []]
    both = op_cost("aten::convolution_backward", args(dims))
    mask = [""] * 10 + ["[False, True, True]"]
    weight_only = op_cost("aten::convolution_backward", args(dims, concrete=mask))
    macs = 8 * 64 * 32 * 32 * 3 * 9
    assert both is not None and both.flops == 4 * macs
    # the weight gradient, and the bias gradient's one add per grad_output element
    assert weight_only is not None and weight_only.flops == 2 * macs + 8 * 64 * 32 * 32


def test_attention_and_elementwise_and_foreach() -> None:
    q = [2, 4, 128, 64]
    fwd = op_cost("aten::_scaled_dot_product_flash_attention", args([q, q, q]))
    assert fwd is not None and fwd.flops == 4 * 2 * 4 * 128 * 128 * 64
    bwd = op_cost("aten::_scaled_dot_product_flash_attention_backward", args([q, q, q, q, q]))
    assert bwd is not None and bwd.flops == 2.5 * fwd.flops
    add = op_cost("aten::add", args([[16, 1], [1, 8], []]))
    assert add is not None and add.flops == 128 and add.bytes == 4 * (16 + 8 + 128)
    scalar = op_cost("aten::fill_", args([[], []], ["float", "Scalar"]))
    # a 0-d destination, written and not read
    assert scalar is not None and scalar.flops == 0 and scalar.bytes == 4
    foreach = op_cost("aten::_foreach_add_", args([[[3, 3], [3]], [[3, 3], [3]], []],
                                                   ["TensorList", "TensorList", "Scalar"]))  # fmt: skip
    assert foreach is not None and foreach.flops == 12 and foreach.family == "optimizer"
    assert op_cost("aten::frobnicate", args([[4]])) is None


def test_nll_loss_counts_its_targets_not_the_classes_it_indexes() -> None:
    """GPT-2's loss: 128 targets over 50,257 classes is 128 gathered values, not 6.4 M."""
    forward = op_cost("aten::nll_loss_forward", args([[128, 50257], [128], [], [], []],
                                                     ["float", "long", "", "Scalar", "Scalar"]))  # fmt: skip
    assert forward is not None and forward.flops == 128 and forward.family == "loss"
    assert forward.bytes == 128 * (4 + 8) + 4
    backward = op_cost(
        "aten::nll_loss_backward",
        args([[], [128, 50257], [128], [], [], [], []],
             ["float", "float", "long", "", "Scalar", "Scalar", "float"]),
    )  # fmt: skip
    assert backward is not None and backward.flops == 128
    assert backward.bytes == 128 * 50257 * 4 + 128 * 8  # the zeroed gradient is written whole
    assert op_cost("aten::nll_loss_forward", args([[128, 50257]])) is None  # no target: uncounted


def test_shapes_of_an_unexpected_form_are_uncounted_not_an_error() -> None:
    assert op_cost("aten::mm", args([[3, 4]])) is None
    assert op_cost("aten::mm", args([["x"], [4, 5]])) is None
    assert op_cost("aten::bmm", args([[3, 4], [4, 5]])) is None


def test_missing_event_field_names_the_event(tmp_path: Path) -> None:
    path = write_trace(
        tmp_path / "t.json",
        [op("aten::mm", 0, 5), {"ph": "X", "cat": "kernel", "name": "k", "ts": 1}],
    )
    with pytest.raises(UserError) as caught:
        read_trace(path)
    assert caught.value.key == "traceEvents[1].dur"


def test_above_roof_on_a_cpu_only_for_compute_bound_ops(tmp_path: Path) -> None:
    """A CPU's stream ceiling is a DRAM rate: a small elementwise op runs from cache above it
    (not a finding), but a GEMM above the measured GEMM rate is."""
    events = [
        op("aten::relu", 0, 1, [[100_000]]),  # 800 kB in 1 µs: 800 GB/s, from cache
        op("aten::mm", 10, 1, [[100, 100], [100, 100]]),  # 2 MFLOP in 1 µs: 2 TFLOP/s
    ]
    ceilings = MeasuredCeilings("slow CPU", {"fp32": 1e11}, 1e10, 1e10, "")
    summary = summarize_trace(write_trace(tmp_path / "t.json", events), None, ceilings=ceilings)
    above = [f for f in summary["findings"] if f["id"] == "above-roof"]
    assert [f["title"] for f in above] == ["aten::mm runs above its roof"]
    by_op = {r["op"]: r for r in summary["by_op"]}
    assert by_op["aten::relu"]["efficiency"] > 1 and by_op["aten::relu"]["bound"] == "memory"


def test_fuzzed_values_end_in_a_result_or_a_user_error(tmp_path: Path) -> None:
    """Found by the trace fuzzer: non-finite times, absurd shapes, lone surrogates, and a
    trace whose only op has no duration."""
    nan = tmp_path / "nan.json"
    nan.write_text('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, '
                   '"tid": 7, "ts": 1, "dur": NaN, "args": {"correlation": 1}}]}')  # fmt: skip
    with pytest.raises(UserError, match="non-finite"):
        read_trace(nan)
    events = [
        op("aten::mm", 0, 5, [[10**200, 10**200], [10**200, 10**200]]),
        op("\ud800 odd name", 10, 5, [[4]]),
    ]
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"traceEvents": events}))  # ensure_ascii keeps the surrogate
    summary = summarize_trace(path, None)
    assert summary["flops"] is None  # the absurd matmul is uncounted, not infinite
    json.dumps(summary, allow_nan=False)
    empty = write_trace(tmp_path / "zero.json", [op("aten::relu", 0, 0, [[4]])])
    assert summarize_trace(empty, None)["time_s"] == 0


def test_every_op_says_how_it_was_counted() -> None:
    analysis = analyze_trace(REAL_TRACES / "hta__trace_diff_control__a100.json.gz")
    counted_as = dict(analysis.by_op.select("op", "counted_as").iter_rows())
    assert counted_as["aten::mm"] == "costed"
    assert counted_as["record_param_comms"] == "communication"
    # cat has a formula; this trace records its tensor list without shapes: the cause, named
    assert counted_as["aten::cat"] == "no usable shapes"
