"""One cost model per op family, pinned on real traces against counts derived by hand from
the recorded shapes, and the same shapes through the trace path and the complexity walk.

Real traces: TraceLens's H100 Qwen1.5-0.5B and bert-small traces
(tests/data/traces/PROVENANCE.md) and a CPU trace of SDPA forward and backward recorded
here by tests/data/traces/sdpa_cpu/record.py. Every expected number below is written out
from the shapes the trace records (quoted beside it), not computed by the code under test.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from generator.catalog import find_device
from generator.complexity.costs import LayerCost
from generator.complexity.op_models import attended_pairs
from generator.complexity.walk import walk
from generator.ingest.trace.events import OpArgs
from generator.ingest.trace.op_table import op_cost
from generator.ingest.trace.read import read_trace
from generator.summaries.trace import summarize_trace
from tests.trace_helpers import REAL_TRACES

QWEN = REAL_TRACES / "tracelens__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
BERT = REAL_TRACES / "tracelens__h100__gaunernst_bert-small-uncased__1016001.json.gz"
SDPA_CPU = REAL_TRACES / "sdpa_cpu" / "trace.json.gz"
SCALED_MM_CPU = REAL_TRACES / "scaled_mm_cpu" / "trace.json.gz"


def ops_named(path: Path, name: str) -> list[OpArgs]:
    trace = read_trace(path)
    found = [a for n, a in zip(trace.ops.name, trace.ops.args, strict=True) if n == name]
    assert found, name
    return [a for a in found if a is not None]


def costs(path: Path, name: str) -> list[tuple[float, float]]:
    out = []
    for args in ops_named(path, name):
        cost = op_cost(name, args)
        assert cost is not None, args
        out.append((cost.flops, cost.bytes))
    return out


# --- attention ---------------------------------------------------------------------------


def brute_pairs(q: int, k: int, causal: bool, left: int | None, right: int | None, br: bool) -> int:
    offset = k - q if br else 0
    kept = 0
    for i, j in itertools.product(range(q), range(k)):
        lo = -(10**9) if left is None or left < 0 else i + offset - left
        hi = i + offset if causal else 10**9 if right is None or right < 0 else i + offset + right
        kept += lo <= j <= hi
    return kept


@pytest.mark.parametrize(("queries", "keys"), [(1, 1), (7, 7), (5, 9), (9, 5), (16, 16), (3, 40)])
@pytest.mark.parametrize(
    ("causal", "left", "right", "bottom_right"),
    [
        (False, None, None, False),
        (True, None, None, False),
        (True, None, None, True),
        (True, 3, 0, True),
        (False, 2, 1, True),
        (False, 4, -1, True),
        (True, -1, -1, True),
    ],
)
def test_attended_pairs_is_the_count_of_kept_pairs(
    queries: int, keys: int, causal: bool, left: int | None, right: int | None, bottom_right: bool
) -> None:
    expected = brute_pairs(queries, keys, causal, left, right, bottom_right)
    assert attended_pairs(queries, keys, causal, left, right, bottom_right) == expected


def test_qwen_causal_sdpa_counts_the_lower_triangle() -> None:
    """24 calls of _scaled_dot_product_flash_attention on q, k, v (16, 16, 559, 64) bf16,
    is_causal = True: 4·B·H·E per kept pair, 559·560/2 pairs per head."""
    found = costs(QWEN, "aten::_scaled_dot_product_flash_attention")
    assert len(found) == 24
    per_call = 4 * 16 * 16 * (559 * 560 // 2) * 64
    assert {flops for flops, _ in found} == {per_call}
    # read q, k, v and write out: 4 tensors of 16·16·559·64 bf16
    assert {moved for _, moved in found} == {4 * 16 * 16 * 559 * 64 * 2}
    summary = summarize_trace(QWEN, None)
    row = next(
        r for r in summary["by_op"] if r["op"] == "aten::_scaled_dot_product_flash_attention"
    )
    assert row["flops"] == pytest.approx(246.2e9, rel=0.001)
    assert row["flops"] == 24 * per_call
    # FlopCounterMode's full square, shown beside it
    assert row["full_square_flops"] == 24 * 4 * 16 * 16 * 559 * 559 * 64


def _record(module: nn.Module, inputs: torch.Tensor) -> list[LayerCost]:
    rows, _, uncounted = walk(module, inputs, training=True)
    assert uncounted == {}
    return rows


class _Sdpa(nn.Module):
    def __init__(self, k: torch.Tensor, v: torch.Tensor, causal: bool) -> None:
        super().__init__()
        self.k, self.v, self.causal = nn.Parameter(k), nn.Parameter(v), causal
        self.inner = nn.Identity()  # not a leaf: the walk costs the functional call itself

    def forward(self, q: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(self.inner(q), self.k, self.v, is_causal=self.causal)


def test_sdpa_trace_and_walk_agree_forward_and_backward() -> None:
    """The real CPU trace: a causal (2, 4, 64, 16) call and an unmasked one with 48 queries
    over 64 keys, each forward and backward. By hand: forward 2·B·H·pairs·(E + Ev), backward
    2·B·H·pairs·(3E + 2Ev) (scores recomputed, dV, dP, dQ, dK)."""
    forward = costs(SDPA_CPU, "aten::_scaled_dot_product_flash_attention_for_cpu")
    backward = costs(SDPA_CPU, "aten::_scaled_dot_product_flash_attention_for_cpu_backward")
    causal_pairs, rectangular_pairs = 64 * 65 // 2, 48 * 64
    assert [f for f, _ in forward] == [
        2 * 2 * 4 * causal_pairs * 32,
        2 * 2 * 4 * rectangular_pairs * 32,
    ]
    assert sorted(f for f, _ in backward) == sorted(
        [2 * 2 * 4 * causal_pairs * 80, 2 * 2 * 4 * rectangular_pairs * 80]
    )
    meta = torch.device("meta")
    for queries, causal in ((64, True), (48, False)):
        kv = torch.empty(2, 4, 64, 16, device=meta)
        q = torch.empty(2, 4, queries, 16, device=meta, requires_grad=True)
        (row,) = [r for r in _record(_Sdpa(kv, kv.clone(), causal), q) if r.family == "attention"]
        pairs = causal_pairs if causal else rectangular_pairs
        assert (row.forward_flops, row.backward_flops) == (
            2 * 2 * 4 * pairs * 32,
            2 * 2 * 4 * pairs * 80,
        )
        assert row.forward_flops in [f for f, _ in forward]
        assert row.backward_flops in [f for f, _ in backward]


def _sdpa_args(schema: str, q: list[int], kv: list[int], causal: bool) -> OpArgs:
    """Arguments as Kineto records them for each entry point (native_functions.yaml)."""
    bf16 = "c10::BFloat16"
    flag = str(causal)
    layouts: dict[str, tuple[list[Any], list[str]]] = {
        "aten::_scaled_dot_product_efficient_attention": (
            [q, kv, kv, [], [], [], [], []],
            ["", "", "", "", "False", "0.", flag, ""],
        ),
        "aten::_scaled_dot_product_cudnn_attention_backward": (
            [q, q, kv, kv, q, q[:3], [], [], [], [], [], [], [], [], [], []],
            ["", "", "", "", "", "", "", "", "", "", "", "0", "0", "0.", flag, ""],
        ),
        "aten::_efficient_attention_backward": (
            [q, q, kv, kv, [], q, [], [], [], [], q[:3], [], [], [], [], [], []],
            [
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "0.",
                "",
                "",
                "1" if causal else "0",
                "False",
                "",
            ],
        ),
    }
    dims, concrete = layouts[schema]
    types = [bf16 if d else "Scalar" for d in dims]
    return OpArgs(dims, types, concrete)


def test_every_attention_entry_point_reads_its_mask() -> None:
    """GQA: 32 query heads over 8 key/value heads do 32 heads of products."""
    b, h, hkv, length, e = 2, 32, 8, 100, 128
    pairs = 100 * 101 // 2
    q, kv = [b, h, length, e], [b, hkv, length, e]
    efficient = op_cost(
        "aten::_scaled_dot_product_efficient_attention",
        _sdpa_args("aten::_scaled_dot_product_efficient_attention", q, kv, True),
    )
    assert efficient is not None and efficient.flops == 2 * b * h * pairs * 2 * e
    cudnn = op_cost(
        "aten::_scaled_dot_product_cudnn_attention_backward",
        _sdpa_args("aten::_scaled_dot_product_cudnn_attention_backward", q, kv, True),
    )
    assert cudnn is not None and cudnn.flops == 2 * b * h * pairs * 5 * e
    # efficient attention's own layout is [B, L, H, E]; mask type 1 is causal
    q_blhe, kv_blhe = [b, length, h, e], [b, length, hkv, e]
    raw = op_cost(
        "aten::_efficient_attention_backward",
        _sdpa_args("aten::_efficient_attention_backward", q_blhe, kv_blhe, True),
    )
    assert raw is not None and raw.flops == 2 * b * h * pairs * 5 * e
    # the full square beside each
    assert cudnn.full_square_flops == 2 * b * h * length * length * 5 * e


def test_flash_window_is_counted_bottom_right() -> None:
    """_flash_attention_forward(q, k, v, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p,
    is_causal, return_debug_mask, scale, window_size_left, window_size_right, ...):
    a causal sliding window of 4 over 10 tokens keeps 1 + 2 + 3 + 4 + 5·6 = 40 pairs."""
    q = [1, 10, 2, 8]
    args = OpArgs(
        [q, q, q, [], [], [], [], [], [], [], [], [], [], [], []],
        ["c10::Half"] * 3
        + [
            "",
            "",
            "Scalar",
            "Scalar",
            "Scalar",
            "Scalar",
            "Scalar",
            "",
            "Scalar",
            "Scalar",
            "",
            "",
        ],
        ["", "", "", "", "", "10", "10", "0.", "True", "False", "", "4", "0", "", ""],
    )
    cost = op_cost("aten::_flash_attention_forward", args)
    assert cost is not None and cost.flops == 2 * 2 * (1 + 2 + 3 + 4 + 5 * 6) * 16


def test_fp8_scaled_mm_counts_its_bias_and_scales() -> None:
    """The real CPU trace of torch._scaled_mm on float8_e4m3fn a [32, 64], b [64, 48],
    tensor-wise scales (0-d float), out_dtype 15 (bfloat16), the second call with a bf16
    bias [48]: 2·M·K·N + one scale multiply per output (+ one bias add); bytes: a and b at
    1 byte, the scales at 4, the bias at 2, the output at 2."""
    found = costs(SCALED_MM_CPU, "aten::_scaled_mm")
    product, outputs = 2 * 32 * 64 * 48, 32 * 48
    moved = 32 * 64 + 64 * 48 + 2 * 4 + outputs * 2
    assert found == [(product + outputs, moved), (product + 2 * outputs, moved + 48 * 2)]
    summary = summarize_trace(SCALED_MM_CPU, "h100-sxm")
    row = next(r for r in summary["by_op"] if r["op"] == "aten::_scaled_mm")
    assert row["path"] == "fp8_tensor"


# --- bytes ---------------------------------------------------------------------------------


def test_copy_writes_its_destination_without_reading_it() -> None:
    """Qwen's float ← bf16 copy_ of [16, 559, 1024] (9,158,656 elements): read 2 bytes and
    write 4 per element, 54.95 MB, not the 91.59 MB of reading the destination too."""
    found = ops_named(QWEN, "aten::copy_")
    widening = [
        a
        for a in found
        if a.dims[0] == [16, 559, 1024] and a.types[:2] == ["float", "c10::BFloat16"]
    ]
    assert widening
    for args in widening:
        cost = op_cost("aten::copy_", args)
        assert cost is not None and (cost.flops, cost.bytes) == (0, 9_158_656 * (2 + 4))


def test_out_destination_is_written_not_read() -> None:
    """mul(a, b, out=c) records a, b, c: read a and b, write c; mul_(a, b) reads a."""
    shape = [1024, 1024]
    out = op_cost("aten::mul", OpArgs([shape, shape, shape], ["float"] * 3, []))
    assert out is not None and out.bytes == 3 * 1024 * 1024 * 4
    inplace = op_cost("aten::mul_", OpArgs([shape, shape], ["float"] * 2, []))
    assert inplace is not None and inplace.bytes == 3 * 1024 * 1024 * 4
    add = op_cost(
        "aten::add", OpArgs([shape, shape, []], ["float", "float", "Scalar"], ["", "", "1"])
    )
    assert add is not None and add.bytes == 3 * 1024 * 1024 * 4
    fill = op_cost("aten::fill_", OpArgs([shape, []], ["c10::Half", "Scalar"], ["", "0"]))
    assert fill is not None and fill.bytes == 1024 * 1024 * 2


def test_embedding_moves_the_rows_it_gathers_not_the_table() -> None:
    """bert-small's three lookups, 141 indices (int64) each, bf16 rows of 512: the word
    table (30522 rows) and the position table (512) give 141 rows read and 141 written;
    the token-type table has 2 rows, read once each, 141 written."""
    found = sorted(costs(BERT, "aten::embedding"), key=lambda c: c[1])
    row, indices = 512 * 2, 141 * 8
    assert found == [
        (0.0, (2 + 141) * row + indices),
        (0.0, (141 + 141) * row + indices),
        (0.0, (141 + 141) * row + indices),
    ]
    word = (141 + 141) * row + indices
    assert word <= 0.6e6  # the word lookup: was 63.57 MB with its table
    summary = summarize_trace(BERT, None)
    total = next(r for r in summary["by_op"] if r["op"] == "aten::embedding")["bytes"]
    assert total == pytest.approx(sum(b for _, b in found))


def test_embedding_bytes_agree_in_both_paths() -> None:
    """bert-small's word lookup through the walk: nn.Embedding(30522, 512) on [1, 141]
    indices at 2 bytes per value moves what the trace path says it moves."""
    word = max(costs(BERT, "aten::embedding"), key=lambda c: c[1])
    meta = torch.device("meta")
    table = nn.Embedding(30522, 512).to(meta)
    rows, _, _ = walk(table, torch.zeros(1, 141, dtype=torch.long, device=meta), training=True)
    (layer,) = rows
    assert layer.forward_bytes(2) == word[1] == (141 + 141) * 512 * 2 + 141 * 8


def test_memory_ops_get_a_bandwidth_bound_and_an_efficiency() -> None:
    summary = summarize_trace(QWEN, None)
    row = next(r for r in summary["by_op"] if r["op"] == "aten::copy_")
    assert row["flops"] == 0 and row["bound"] == "memory"
    assert summary["device_name"] == "NVIDIA H100 SXM"
    bandwidth = find_device("NVIDIA H100 SXM").bandwidth_bytes_per_s
    assert row["efficiency"] == pytest.approx(row["bytes"] / row["time_s"] / bandwidth)


# --- one model per family: trace path and complexity walk --------------------------------


def _walk_one(module: nn.Module, shape: tuple[int, ...]) -> LayerCost:
    meta = module.to("meta")
    rows = _record(meta, torch.empty(shape, device="meta", requires_grad=True))
    assert len(rows) == 1
    return rows[0]


def test_addmm_counts_its_bias_in_both_paths() -> None:
    """Qwen's q/k/v projection: addmm([1024], [8944, 1024], [1024, 1024]), beta = 1:
    2·M·K·N + M·N."""
    args = next(a for a in ops_named(QWEN, "aten::addmm") if a.dims[1] == [8944, 1024])
    cost = op_cost("aten::addmm", args)
    expected = 2 * 8944 * 1024 * 1024 + 8944 * 1024
    assert cost is not None and cost.flops == expected
    linear = _walk_one(nn.Linear(1024, 1024), (8944, 1024))
    assert linear.forward_flops == expected


def test_layer_norm_at_its_derived_count_in_both_paths() -> None:
    """bert-small: native_layer_norm on [1, 141, 512]: mean 1 + variance 3 + normalise 1 +
    affine 2 = 7 FLOP per element."""
    found = costs(BERT, "aten::native_layer_norm")
    assert {f for f, _ in found} == {7 * 141 * 512}
    norm = _walk_one(nn.LayerNorm(512), (1, 141, 512))
    assert norm.forward_flops == 7 * 141 * 512


def test_batch_norm_at_its_derived_count_in_both_paths() -> None:
    """Training batch norm on [8, 16, 10, 10]: mean 1 + variance 3 + one fma 2 = 6."""
    x = [8, 16, 10, 10]
    args = OpArgs(
        [x, [16], [16], [16], [16], [], [], []],
        ["float"] * 5 + ["Scalar"] * 3,
        ["", "", "", "", "", "True", "0.1", "1e-05"],
    )
    cost = op_cost("aten::native_batch_norm", args)
    assert cost is not None and cost.flops == 6 * 8 * 16 * 10 * 10
    norm = _walk_one(nn.BatchNorm2d(16), (8, 16, 10, 10))
    assert norm.forward_flops == cost.flops


def test_conv_with_bias_in_both_paths() -> None:
    """conv2d 3→8, 3×3, padding 1 on [2, 3, 16, 16] with a bias: 2 · 2·8·16·16 · 3·9 MACs
    + one add per output."""
    x, w = [2, 3, 16, 16], [8, 3, 3, 3]
    args = OpArgs(
        [x, w, [8], [], [], [], [], [], []],
        ["float"] * 3 + ["ScalarList"] * 3 + ["Scalar", "ScalarList", "Scalar"],
        ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"],
    )
    outputs = 2 * 8 * 16 * 16
    cost = op_cost("aten::convolution", args)
    assert cost is not None and cost.flops == 2 * outputs * 27 + outputs
    conv = _walk_one(nn.Conv2d(3, 8, 3, padding=1), (2, 3, 16, 16))
    assert conv.forward_flops == cost.flops
    backward = OpArgs(
        [[2, 8, 16, 16], x, w, [], [], [], [], [], [], [], []],
        ["float"] * 3 + ["ScalarList"] * 7 + ["ScalarList"],
        [
            "",
            "",
            "",
            "[8]",
            "[1, 1]",
            "[1, 1]",
            "[1, 1]",
            "False",
            "[0, 0]",
            "1",
            "[True, True, True]",
        ],
    )
    grads = op_cost("aten::convolution_backward", backward)
    assert grads is not None and grads.flops == conv.backward_flops
