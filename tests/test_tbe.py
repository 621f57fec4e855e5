"""FBGEMM's table-batched embeddings (TBE) on real recommendation-model traces, and the
modelled share of each production trace's non-communication kernel time.

Every expected number is derived by hand from the arguments the trace records (quoted
beside it), with the model of docs/methodology.md ("FBGEMM's table-batched embeddings"):
forward L·D FLOPs (2·L·D weighted), rows gathered (at most the tables' rows) + indices +
offsets + per-sample weights + the pooled output; backward the same gradient work, a
weighted call's dot products, and the fused optimizer on each row touched.
"""

from __future__ import annotations

import polars as pl
import pytest

from generator.analysis.trace_analysis import analyze_trace
from generator.analysis.trace_roofline import UNCOUNTED_CAUSES
from generator.ingest.trace.attribute import attribute
from generator.ingest.trace.read import read_trace
from generator.ingest.trace.tbe import kernel_width_cap, pair_args
from generator.summaries.trace import summarize_trace
from tests.trace_helpers import REAL_TRACES

SAMPLED = REAL_TRACES / "hta__trace_filter_sampled_rank-0.json.gz"
CONTROL = REAL_TRACES / "hta__trace_diff_control__a100.json.gz"
DLRM = REAL_TRACES / "param__dlrm_kineto_worker0__v100.json.gz"
FORWARD = "fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function"
BACKWARD = "torch::autograd::CppNode<SplitLookupFunction_rowwise_adagrad_Op>"


def _costs(path: object, op: str) -> set[tuple[float, float]]:
    instances = attribute(read_trace(path)).instances  # type: ignore[arg-type]
    rows = instances.filter(pl.col("op") == op).select("flops", "bytes").rows()
    return {(f, b) for f, b in rows}


def test_each_tbe_backward_node_pairs_with_its_forward_by_sequence_number() -> None:
    """The sampled trace: two iterations of two TBEs. The nodes record grad_output
    [262144, 1440] and [262144, 160]; their forward ops 9 tables (weights_offsets [9],
    offsets [2359297] = 262144·9 + 1) and 1 table (offsets [262145])."""
    ops = read_trace(SAMPLED).ops
    paired = pair_args(ops)
    assert sorted(ops.name[i] for i in paired) == [FORWARD] * 4 + [BACKWARD] * 4
    for args in paired.values():
        tables, bags = args.dims[5][0], args.dims[12][0] - 1
        samples, total_width = args.dims[-1]
        assert (samples, total_width) in {(262144, 1440), (262144, 160)}
        assert bags == samples * tables and total_width == 160 * tables


def test_tbe_costs_from_the_recorded_arguments() -> None:
    """Iteration 1 of the sampled trace, rowwise adagrad, fp16 weights (c10::Half), fp32
    output (the nodes' grad_output is float), int64 indices and offsets.

    Nine tables, unweighted: indices [30111429], offsets [2359297], dev_weights
    [7722480160], momentum1_dev [48265501] (one per row: H = 48,265,501 rows, and
    7,722,480,160 / 48,265,501 = 160 = 1440 / 9, so every table is D = 160 wide); L < H, so
    all 30,111,429 rows gathered are counted."""
    lookups, rows, width, bags = 30_111_429, 30_111_429, 160, 2_359_296
    inputs = lookups * 8 + (bags + 1) * 8
    forward = (lookups * width, rows * width * 2 + inputs + bags * width * 4)
    assert forward == (4_817_828_640, 11_405_372_528)
    # backward: L·D gradient adds, then per row Σg² (2D), w -= m·g (2D) and 5 for the
    # momentum; grad_output read, each row and its one float of momentum read and written
    backward = (
        lookups * width + rows * (4 * width + 5),
        bags * width * 4 + inputs + 2 * (rows * width * 2 + rows * 4),
    )
    assert backward == (24_239_700_345, 21_281_921_240)
    # One table, weighted (indice_weights [8856548] float): offsets [262145], dev_weights
    # [279988640], momentum1_dev [1749929]: H = 1,749,929 rows of 160 (279,988,640 / 160),
    # fewer than the 8,856,548 lookups, so 1,749,929 rows are counted.
    lookups, rows, bags = 8_856_548, 1_749_929, 262_144
    inputs = lookups * 8 + (bags + 1) * 8 + lookups * 4
    weighted_forward = (2 * lookups * width, rows * width * 2 + inputs + bags * width * 4)
    assert weighted_forward == (2_834_095_360, 836_125_176)
    # backward: 2·L·D gradient (weight × row, add), 2·L·D for the per-sample weights'
    # gradient (a dot product per index), the optimizer per row; L floats written more
    weighted_backward = (
        4 * lookups * width + rows * (4 * width + 5),
        bags * width * 4 + inputs + lookups * 4 + 2 * (rows * width * 2 + rows * 4),
    )
    assert weighted_backward == (6_796_894_925, 1_445_528_080)
    forwards, backwards = _costs(SAMPLED, FORWARD), _costs(SAMPLED, BACKWARD)
    assert {forward, weighted_forward} <= forwards and len(forwards) == 4
    assert {backward, weighted_backward} <= backwards and len(backwards) == 4


def test_full_adagrad_and_dense_tbe_on_params_dlrm_trace() -> None:
    """param's DLRM, rank 0: adagrad over 3 tables (weights_offsets [3]), indices [768],
    offsets [385] (B = 384 / 3 = 128), dev_weights [640649648] float, the node's
    grad_output [128, 48]: D = 16, H = 640,649,648 / 16 = 40,040,603 rows, all 768 lookups
    counted; adagrad keeps D floats of momentum per row and costs 7 FLOPs per element.
    The dense TBE: 2 tables, dev_weights [112] (7 rows of 16), indices [32], offsets
    [33], grad_output [16, 32]."""
    lookups, width, bags = 768, 16, 384
    inputs = lookups * 8 + (bags + 1) * 8
    assert _costs(DLRM, "fbgemm::split_embedding_codegen_lookup_adagrad_function") == {
        (lookups * width, lookups * width * 4 + inputs + bags * width * 4)  # (12288, 82952)
    }
    assert _costs(DLRM, "torch::autograd::CppNode<SplitLookupFunction_adagrad_Op>") == {
        (
            lookups * width + lookups * 7 * width,
            bags * width * 4 + inputs + 2 * (lookups * width * 4 + lookups * width * 4),
        )
    }
    lookups, rows, bags = 32, 7, 32
    inputs = lookups * 8 + (bags + 1) * 8
    assert _costs(DLRM, "fbgemm::dense_embedding_codegen_lookup_function") == {
        (lookups * width, rows * width * 4 + inputs + bags * width * 4)
    }
    # the dense backward writes the gradient of all 112 weights
    assert _costs(DLRM, "torch::autograd::CppNode<SplitLookupFunction_Dense_Op>") == {
        (lookups * width, bags * width * 4 + inputs + 112 * 4)
    }


def _intervals(path: object, op: str) -> set[tuple[float, float, float, float, bool]]:
    instances = attribute(read_trace(path)).instances  # type: ignore[arg-type]
    columns = ("flops", "flops_upper", "bytes", "bytes_upper", "bounded")
    return set(instances.filter(pl.col("op") == op).select(columns).rows())


def test_forward_kernel_templates_cap_the_widest_table() -> None:
    """kMaxVecsPerThread vectors of 4 in each of kThreadGroupSize lanes (a warp of 32 where
    the template has no group size): the control trace's `<float, float, float, long, 2ul>`
    holds 256, HTA's rank-1 `<c10::Half, c10::Half, float, false, long, 2ul, 32ul>` 256, a
    16-lane `<..., 1ul, 16ul>` 64; a backward kernel says nothing here."""
    assert (
        kernel_width_cap(
            "void split_embedding_codegen_forward_unweighted_kernel<float, float, float, long, 2ul>"
            "(at::GenericPackedTensorAccessor<float, 1ul, at::RestrictPtrTraits, long>)"
        )
        == 256
    )
    assert (
        kernel_width_cap(
            "void split_embedding_codegen_forward_unweighted_kernel<c10::Half, c10::Half, float, "
            "false, long, 2ul, 32ul>(at::GenericPackedTensorAccessor<c10::Half, 1ul>)"
        )
        == 256
    )
    assert (
        kernel_width_cap(
            "split_embedding_codegen_forward_weighted_kernel<float, float, float, false, long, 1ul, 16ul>"
        )
        == 64
    )
    assert (
        kernel_width_cap(
            "split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1"
            "<float, float, float, 2ul>"
        )
        is None
    )


def test_tables_of_mixed_widths_get_a_bounded_cost() -> None:
    """The control trace's second TBE, first call: 122 tables (weights_offsets [122]),
    grad_output [8192, 8720]: 8720 / 122 = 71.5 is no whole width, and the row-weighted mean
    (7,487,072 weights / 90,837 momentum rows = 82.4) differs: the widths are mixed, and the
    trace does not say how many of the 15,807,216 lookups (indices) each table took.

    Each table is 1 to 256 wide: its forward kernel
    `split_embedding_codegen_forward_unweighted_kernel<float, float, float, long, 2ul>`
    holds 2 vectors of 4 floats in each of 32 lanes (the others leave it up to 8720 - 121 =
    8599), so the lookups read between L·1 and L·256 elements. L > H: every row is touched
    (the models' convention), so the rows read and updated are all W = 7,487,072 elements
    at either end, and the bytes are exact; only the FLOPs span an interval."""
    lookups, rows, weights, samples, total_width = 15_807_216, 90_837, 7_487_072, 8192, 8720
    inputs = lookups * 8 + (samples * 122 + 1) * 8  # indices, offsets [999425]: int64
    pooled = samples * total_width * 4  # the fp32 output written (backward: read)
    forward_bytes = weights * 4 + inputs + pooled
    assert forward_bytes == 450_138_376
    forward = (lookups * 1, lookups * 256, forward_bytes, forward_bytes, True)
    assert forward[:2] == (15_807_216, 4_046_647_296)
    # backward: the gradient added per lookup (L·D), Σg² and the update per element of each
    # row (4·W), 5 per row; each row and its one float of momentum read and written
    backward_bytes = pooled + inputs + 2 * (weights * 4 + rows * 4)
    assert backward_bytes == 480_813_360
    backward = (
        lookups * 1 + 4 * weights + 5 * rows,
        lookups * 256 + 4 * weights + 5 * rows,
        backward_bytes,
        backward_bytes,
        True,
    )
    assert backward[:2] == (46_209_689, 4_077_049_769)
    assert forward in _intervals(CONTROL, FORWARD)
    assert backward in _intervals(CONTROL, BACKWARD)
    summary = summarize_trace(CONTROL, None)
    rows_by_op = {r["op"]: r for r in summary["by_op"]}
    assert rows_by_op[FORWARD]["cause"] is None  # costed, bounded: no cause left
    # the two TBE rows' time (14.85 % of the GPU's busy time, memcpy 10.9 % of it) is now
    # bounded, not uncounted; aten::cat, whose list has no shapes here, stays (3.2 %)
    tbe = sum(r["share"] for r in summary["by_op"] if "rowwise_adagrad" in r["op"])
    assert tbe == pytest.approx(0.1485, abs=0.001)
    # bounded: the TBE rows' 14.53 % beside the launch-less fused Adam's 1.52 %
    # (test_hand_counts.test_a_launch_less_fused_adam_is_bounded_by_its_grid)
    assert summary["bounded_share"] == pytest.approx(0.1453 + 0.0152, abs=0.001)
    assert summary["uncounted_by_cause"]["no usable shapes"] == pytest.approx(0.0317, abs=0.001)
    # the totals' upper ends hold each bounded cost at the top of its interval
    assert summary["flops_upper"] > summary["flops"] and summary["bytes_upper"] >= summary["bytes"]
    # its one-table sibling is exact: dev_weights [96000] float, momentum1_dev [1000]
    # (1000 rows of 96, grad_output [8192, 96]), weighted, indices [61072], offsets [8193]
    lookups, rows, width, bags = 61_072, 1_000, 96, 8_192
    inputs = lookups * 8 + (bags + 1) * 8 + lookups * 4
    exact = (2 * lookups * width, rows * width * 4 + inputs + bags * width * 4)
    assert exact == (11_725_824, 4_328_136)
    assert (*exact[:1], None, *exact[1:], None, False) in {
        (f, fu, b, bu, bounded) for f, fu, b, bu, bounded in _intervals(CONTROL, FORWARD)
    }


@pytest.mark.parametrize(
    ("path", "whole", "share"),
    # measured with `summarize --json`; of the kernels that are not communication, before
    # TBE had a model: 0.372, 0.586 and 0.711
    [(SAMPLED, 0.264, 0.763), (CONTROL, 0.334, 0.591), (DLRM, 0.129, 0.856)],
)
def test_production_traces_have_half_their_non_communication_time_modelled(
    path: object, whole: float, share: float
) -> None:
    """HTA's and param's recommendation-model traces: at least half of the kernel time that
    is not communication has a model, and every kernel without one has a cause."""
    summary = summarize_trace(path, None)  # type: ignore[arg-type]
    modelled = summary["modelled_share"]  # of the GPU's busy time, NCCL and copies in it
    assert modelled == pytest.approx(whole, abs=0.001)
    communication = summary["communication_time_share"]
    uncounted = summary["uncounted_time_share"]
    computation = 1 - communication - summary["copies_time_share"]
    assert modelled / computation == pytest.approx(share, abs=0.001) and share >= 0.5
    assert modelled + summary["bounded_share"] == pytest.approx(computation - uncounted)
    points = analyze_trace(path).work.points  # type: ignore[arg-type]
    uncounted_rows = points.filter(pl.col("uncounted") | pl.col("communication"))
    assert uncounted_rows["cause"].null_count() == 0
    assert set(uncounted_rows["cause"]) <= set(UNCOUNTED_CAUSES)
    causes = summary["uncounted_by_cause"]
    assert sum(causes.values()) == pytest.approx(uncounted + communication)


def test_embedding_bag_is_the_same_pooled_lookup_model() -> None:
    """aten's embedding_bag is a one-table TBE forward (op_models.tbe_forward). The CPU
    trace recorded here (embedding_bag_cpu/record.py): weight [1000, 16] float, indices [40]
    and offsets [8] int64 (8 bags); the second call with per_sample_weights [40] float; the
    third a mean (mode 1) with include_last_offset (offsets [9], 8 bags)."""
    trace = REAL_TRACES / "embedding_bag_cpu" / "trace.json.gz"
    rows, width, bags = 40, 16, 8  # 40 indices < 1000 rows: all 40 rows read
    moved = rows * width * 4 + rows * 8 + bags * width * 4
    expected = {
        (rows * width, moved + 8 * 8),  # (640, 3456)
        (2 * rows * width, moved + 8 * 8 + rows * 4),  # (1280, 3616)
        (rows * width + bags * width, moved + 9 * 8),  # the mean's 128 divides: (768, 3464)
    }
    assert expected == {(640, 3456), (1280, 3616), (768, 3464)}
    assert _costs(trace, "aten::embedding_bag") == expected
