"""Costs checked by hand (issue 65): each pins the count a reader can redo on paper."""

from __future__ import annotations

import pytest

from generator.ingest.trace.events import OpArgs
from generator.ingest.trace.op_table import op_cost


def _cost(
    name: str, dims: list[object], types: list[str], concrete: list[str]
) -> tuple[float, float]:
    cost = op_cost(name, OpArgs(dims, types, concrete))  # type: ignore[arg-type]
    assert cost is not None
    return cost.flops, cost.bytes


def test_comparisons_write_bool_at_one_byte() -> None:
    # ne([4096] float, Scalar): read 4096·4, write 4096 bools
    assert _cost("aten::ne", [[4096], []], ["float", "Scalar"], ["", "0"]) == (4096, 20_480)
    # eq of two [8, 16] int64: 2·128·8 read, 128 written
    assert _cost("aten::eq", [[8, 16], [8, 16]], ["long int", "long int"], ["", ""]) == (
        128,
        2_176,
    )
    # in place, eq_ writes its own (float) input
    assert _cost("aten::eq_", [[4096], []], ["float", "Scalar"], ["", "0"]) == (4096, 32_768)


def test_mse_loss_forward_writes_one_element() -> None:
    """(5, 128) fp32 input and target read (2 · 2,560 B), a 4 B mean written: 5,124 B;
    3 FLOP (sub, square, add) per element. reduction='none' (0) writes all 640."""
    args = [[5, 128], [5, 128], []]
    types = ["float", "float", "Scalar"]
    assert _cost("aten::mse_loss", args, types, ["", "", "1"]) == (1_920, 5_124)
    assert _cost("aten::mse_loss", args, types, ["", "", "0"]) == (1_920, 7_680)


def test_reductions_write_their_output() -> None:
    # a 0-d float summed: read 4 B, write 4 B
    assert _cost("aten::sum", [[], []], ["float", "ScalarType"], ["", ""])[1] == 8
    # (5, 128) float over dim 1: 2,560 read, 5 · 4 written
    assert _cost(
        "aten::sum", [[5, 128], [], [], []], ["float", "", "Scalar", ""], ["", "[1]", "False", ""]
    ) == (640, 2_580)
    # the whole of it: one element written
    assert _cost("aten::sum", [[5, 128], []], ["float", ""], ["", ""])[1] == 2_564
    # a mean over dims (0, 1) of (4, 8, 16): 512 · 4 read, 16 · 4 written
    assert (
        _cost(
            "aten::mean",
            [[4, 8, 16], [], [], []],
            ["float", "", "Scalar", ""],
            ["", "[0, 1]", "False", ""],
        )[1]
        == 2_112
    )
    # 100 bools summed: read 100 B, an int64 written
    assert _cost("aten::sum", [[100], []], ["bool", ""], ["", ""])[1] == 108


def test_layer_norm_writes_its_mean_and_rstd() -> None:
    """[8, 512] float, weight and bias [512]: x read 16,384 B, γ and β 4,096 B, y written
    16,384 B, and mean and rstd, one float each per row: 2 · 8 · 4 = 64 B."""
    dims = [[8, 512], [], [512], [512], []]
    types = ["float", "", "float", "float", "Scalar"]
    flops, moved = _cost("aten::native_layer_norm", dims, types, ["", "[512]", "", "", "1e-05"])
    assert moved == 16_384 + 4_096 + 16_384 + 64
    assert flops == 7 * 8 * 512


def test_silu_is_four_flops_an_element() -> None:
    """x / (1 + exp(-x)): neg, exp, add, div."""
    assert _cost("aten::silu", [[1000]], ["float"], [""]) == (4_000, 8_000)


def test_inductor_kernel_writing_over_an_input() -> None:
    """TraceLens's compiled trace's triton_poi_fused__unsafe_view_mul_silu_2: silu(a)·b on
    two 268,435,456-element bf16 tensors, the product written over one (in_out_ptr0):
    2 reads + 1 write = 3 · 536.9 MB = 1,610.6 MB; (mul 1 + silu 4) FLOP per element."""
    elements = 268_435_456
    flops, moved = _cost(
        "triton_poi_fused__unsafe_view_mul_silu_2",
        [[8, 4096, 8192], [32768, 8192], []],
        ["c10::BFloat16", "c10::BFloat16", "Scalar"],
        ["", "", str(elements)],
    )
    assert moved == 3 * elements * 2 == 1_610_612_736
    assert flops == 5 * elements
    # a constant multiplier is inlined: one op, in and out, each moved once
    assert (
        _cost(
            "triton_poi_fused_mul_0",
            [[1024], [1024], []],
            ["float", "float", "Scalar"],
            ["", "", "1024"],
        )[1]
        == 8_192
    )


def test_an_op_above_the_memory_roof_is_labelled_an_upper_bound(tmp_path: object) -> None:
    """add of two [1024, 1024] float tensors: 3 · 4 MiB = 12,582,912 B by its shapes, in a
    4 µs kernel on an A100 40GB (1,555 GB/s): 3.15 TB/s, 202 % of the memory roof. The
    trace has no strides (one input may be a broadcast view): the row says its bytes are an
    upper bound, and a finding says why."""
    from pathlib import Path

    from generator.summaries.trace import summarize_trace
    from tests.trace_helpers import A100_PROPERTIES, kernel, launch, op, write_trace

    events = [
        op("aten::add", 0, 20, [[1024, 1024], [1024, 1024], []]),
        launch(1, 1),
        kernel("vectorized_elementwise_add", 10, 4, 1),
    ]
    path = write_trace(Path(str(tmp_path)) / "t.json", events, deviceProperties=A100_PROPERTIES)
    summary = summarize_trace(path, None)
    (row,) = summary["by_op"]
    assert row["bytes"] == 12_582_912
    assert round(row["efficiency"], 2) == round(12_582_912 / 4e-6 / 1555e9, 2) == 2.02
    ids = [f["id"] for f in summary["findings"]]
    assert "bytes-upper-bound" in ids
    from generator.analysis.trace_analysis import analyze_trace

    by_op = analyze_trace(path).by_op.row(0, named=True)
    assert by_op["counted_as"] == "costed (bytes an upper bound)"


def test_a_cat_takes_its_dtype_from_the_ops_beside_it(tmp_path: object) -> None:
    """Qwen's rotary cat: [[16, 16, 559, 32], [16, 16, 559, 32]] as a TensorList (no dtype)
    between bf16 ops: both read and the output written, 2 · 2 · 16·16·559·32 · 2 B =
    36,634,624 B, 0 FLOP; bounded, since the dtype is inferred."""
    from pathlib import Path

    from generator.summaries.trace import summarize_trace
    from tests.trace_helpers import A100_PROPERTIES, kernel, launch, op, write_trace

    shape = [16, 16, 559, 32]
    neg = op("aten::neg", 0, 10, [shape])
    neg["args"]["Input type"] = ["c10::BFloat16"]
    cat = op("aten::cat", 20, 10, [[shape, shape], []])
    cat["args"]["Input type"] = ["TensorList", "Scalar"]
    mul = op("aten::mul", 40, 10, [shape, shape])
    mul["args"]["Input type"] = ["c10::BFloat16", "c10::BFloat16"]
    events = [neg, cat, launch(21, 1), kernel("CatArrayBatchedCopy", 25, 5, 1), mul]
    path = write_trace(Path(str(tmp_path)) / "cat.json", events, deviceProperties=A100_PROPERTIES)
    summary = summarize_trace(path, None)
    (row,) = summary["by_op"]
    assert (row["op"], row["flops"], row["bytes"]) == ("aten::cat", 0, 36_634_624)
    assert summary["bounded_share"] == 1.0 and summary["modelled_share"] == 0.0


def test_a_launch_less_fused_adam_is_bounded_by_its_grid() -> None:
    """HTA's control trace: apex's FusedAdam launches
    `multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, ...>` from no op,
    8 launches an iteration, grids of 89, 36, 36, 39, 104, 299, 61 and 303 blocks (967), 6
    iterations. One block per chunk of 65,536 elements, at most 36 tensors per launch, only
    a tensor's last chunk partial: a launch of G blocks updates between
    (G - min(G, 36)) · 65,536 + min(G, 36) and G · 65,536 parameters. Full chunks at the low
    end: 53 + 0 + 0 + 3 + 68 + 263 + 25 + 267 = 679 an iteration; 13 FLOPs and 7 fp32
    accesses (read p, g, m, v; write p, m, v) each."""
    import polars as pl

    from generator.ingest.trace.attribute import attribute
    from generator.ingest.trace.multi_tensor import BY_GRID, adam_kernel_cost
    from generator.ingest.trace.read import read_trace
    from generator.summaries.trace import summarize_trace
    from tests.trace_helpers import REAL_TRACES

    low = 6 * (679 * 65_536 + 8 * 36)
    high = 6 * 967 * 65_536
    assert (low, high) == (266_995_392, 380_239_872)
    control = REAL_TRACES / "hta__trace_diff_control__a100.json.gz"
    adam = attribute(read_trace(control)).instances.filter(pl.col("op") == BY_GRID)
    assert adam.height == 48 and adam["bounded"].all()
    assert adam["flops"].sum() == 13 * low and adam["flops_upper"].sum() == 13 * high
    assert adam["bytes"].sum() == 28 * low and adam["bytes_upper"].sum() == 28 * high
    # its time (1.52 % of the GPU's busy time) is bounded, and no kernel is left without an op
    summary = summarize_trace(control, None)
    row = next(r for r in summary["by_op"] if r["op"] == BY_GRID)
    assert row["cause"] is None and row["share"] == pytest.approx(0.0152, abs=0.0001)
    assert summary["uncounted_by_cause"]["no op"] == 0
    # a kernel of another functor, or one with no grid recorded, has no such cost
    name = "void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float>"
    assert adam_kernel_cost(name, None) is None
    sgd = "void multi_tensor_apply_kernel<TensorListMetadata<3>, SGDFunctor<float>, float>"
    assert adam_kernel_cost(sgd, "[89,1,1]|[512,1,1]|32|0") is None
    cost = adam_kernel_cost(name, "[320,1,1]|[512,1,1]|48|0")
    assert cost is not None and cost.flops == 13 * (284 * 65_536 + 36)


def test_a_foreach_op_whose_lists_the_trace_left_out_is_not_one_flop(tmp_path: object) -> None:
    """SGD's `aten::_foreach_mul_(params, 0.9)` over ResNet-18's 62 tensors: the profiler
    recorded the list as `[]` (no shapes) between fp32 ops. It costs one FLOP per element of
    every tensor in the list, which the trace does not give: "no usable shapes", not a
    0-d tensor's 1 FLOP and 8 B. With the list's shapes recorded, every element counts."""
    from pathlib import Path

    from generator.analysis.trace_analysis import analyze_trace
    from tests.trace_helpers import A100_PROPERTIES, kernel, launch, op, write_trace

    def analysed(dims: list[object]) -> dict[str, object]:
        before = op("aten::add_", 0, 10, [[64, 64], [64, 64]])
        mul = op("aten::_foreach_mul_", 20, 10, [dims, []])
        mul["args"]["Input type"] = ["TensorList", "Scalar"]
        after = op("aten::add_", 40, 10, [[64, 64], [64, 64]])
        foreach = "multi_tensor_apply_kernel<TensorListMetadata<1>, BinaryOpScalarFunctor>"
        events = [before, mul, launch(21, 1), kernel(foreach, 25, 5, 1), after]
        path = Path(str(tmp_path)) / "sgd.json"
        write_trace(path, events, deviceProperties=A100_PROPERTIES)
        by_op = analyze_trace(path).by_op
        return by_op.filter(by_op["op"] == "aten::_foreach_mul_").row(0, named=True)

    left_out = analysed([])
    assert left_out["counted_as"] == "no usable shapes" and left_out["flops"] is None
    recorded = analysed([[64, 3, 7, 7], [64]])
    assert recorded["counted_as"] == "costed" and recorded["flops"] == 64 * 3 * 7 * 7 + 64
