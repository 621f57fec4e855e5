"""Every kernel attributed to an op, or named with its cause: kernels with no launch event
and CUDA graph replays take the op of an identical kernel (same name, grid, block,
registers, shared memory); what stays without a model says why.

The Qwen numbers are counted with plain `json` over the trace's events in
`_unlaunched_by_json`, not with the code under test."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from generator.summaries.trace import summarize_trace
from tests.trace_helpers import A100_PROPERTIES, REAL_TRACES, launch, op, write_trace

QWEN = REAL_TRACES / "tracelens__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
IDENTITY = ("grid", "block", "registers per thread", "shared memory")


def _unlaunched_by_json(path: Path) -> tuple[int, int, float, float]:
    """Kernels whose correlation id no runtime event carries; of those, how many have an
    identical kernel that one did carry; their time and the whole kernel time (µs)."""
    with gzip.open(path) as text:
        events = json.load(text)["traceEvents"]
    runtime = {
        e["args"].get("correlation")
        for e in events
        if e.get("cat") in ("cuda_runtime", "cuda_driver")
    }
    kernels = [e for e in events if e.get("cat") == "kernel"]

    def key(e: dict[str, Any]) -> str:
        return json.dumps([e["name"], *(e["args"].get(k) for k in IDENTITY)])

    launched = {key(e) for e in kernels if e["args"].get("correlation") in runtime}
    missing = [e for e in kernels if e["args"].get("correlation") not in runtime]
    matched = [e for e in missing if key(e) in launched]
    total = sum(e["dur"] for e in kernels)
    return len(missing), len(matched), sum(e["dur"] for e in missing), total


def test_qwen_kernels_without_launch_take_an_identical_kernels_op() -> None:
    missing, matched, missing_us, total_us = _unlaunched_by_json(QWEN)
    assert (missing, matched) == (436, 436)
    assert missing_us / total_us == pytest.approx(0.301, abs=0.001)  # was "(no op)": 30.1 %
    summary = summarize_trace(QWEN, None)
    assert summary["kernels_by_identity"] == matched
    causes = summary["uncounted_by_cause"]
    assert causes["no op"] == 0
    # what stays without a model: four tiny ops with no formula (aten::cat is bounded now);
    # at most 10 % of the GPU's busy time
    assert summary["uncounted_time_share"] <= 0.10
    assert causes["no formula"] == pytest.approx(summary["uncounted_time_share"])
    rows = {r["op"]: r for r in summary["by_op"]}
    # cat's tensor list records no dtype: taken from the ops beside it, a bounded cost
    assert rows["aten::cat"]["cause"] is None and rows["aten::cat"]["bytes"] > 0
    assert summary["bounded_share"] == pytest.approx(0.0625, abs=0.001)
    # the 10 flash-attention kernels without a launch event: each the cost of one of the
    # 24 recorded causal calls, 4·16·16·(559·560/2)·64 FLOP, on their own row
    per_call = 4 * 16 * 16 * (559 * 560 // 2) * 64
    sdpa = "aten::_scaled_dot_product_flash_attention"
    assert rows[sdpa]["flops"] == 24 * per_call
    assert rows[sdpa + " (by identity)"]["flops"] == pytest.approx(10 * per_call)


def _graph_kernel(ts: float, correlation: int) -> dict[str, Any]:
    return {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_64x64_nn", "pid": 0, "tid": 7,
            "ts": ts, "dur": 10, "args": {"correlation": correlation, "device": 0,
            "grid": [4, 4, 1], "block": [256, 1, 1], "registers per thread": 64,
            "shared memory": 8192}}  # fmt: skip


def test_graph_replay_kernels_are_expanded_by_identity(tmp_path: Path) -> None:
    """An mm launched eagerly (captured into the graph), then one cudaGraphLaunch whose two
    kernels are the same GEMM: each replayed kernel is that mm's work once more."""
    replay = {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1,
              "ts": 100, "dur": 5, "args": {"correlation": 9}}  # fmt: skip
    other = {
        **_graph_kernel(300, 11),
        "args": {**_graph_kernel(300, 11)["args"], "grid": [8, 4, 1]},
    }
    events = [
        op("aten::mm", 0, 50, [[64, 32], [32, 64]]),
        launch(1, 1),
        _graph_kernel(60, 1),
        replay,
        _graph_kernel(110, 9),
        _graph_kernel(130, 9),
        other,  # a different grid and no launch: no identical kernel, "no op"
    ]
    path = write_trace(tmp_path / "graph.json", events, deviceProperties=A100_PROPERTIES)
    summary = summarize_trace(path, None)
    assert summary["kernels_by_identity"] == 2
    rows = {r["op"]: r for r in summary["by_op"]}
    assert rows["aten::mm"]["flops"] == 2 * 64 * 32 * 64
    assert rows["aten::mm (by identity)"]["flops"] == 2 * (2 * 64 * 32 * 64)
    assert rows["aten::mm (by identity)"]["time_s"] == pytest.approx(20e-6)
    assert summary["uncounted_by_cause"]["no op"] == pytest.approx(10 / 40)
    assert rows["(no op: gemm)"]["cause"] == "no op"  # named by its kernel's family


COMPILED = REAL_TRACES / "tracelens__torch_compile_triton.json.gz"


def test_compiled_pointwise_kernels_are_costed_and_reductions_named() -> None:
    """TraceLens's torch.compile trace (MI300X, bf16): inductor records each Triton launch
    as an op with its tensors and xnumel. By hand from the recorded arguments:
    - triton_poi_fused__unsafe_view_mul_silu_2: [8, 4096, 8192] and [32768, 8192] bf16,
      xnumel 268,435,456: (view 0 + mul 1 + silu 4) per element; the product written over
      one input (test_hand_counts.py): 2 reads + 1 write;
    - triton_poi_fused__unsafe_view_add_3: three 8·4096·2048 bf16 tensors, xnumel
      67,108,864: add 1 per element;
    - the two triton_red_* kernels: no formula (their names do not say which ops run per
      element and which per row);
    - aten::mm with an out= tensor: read a and b, write out, once."""
    summary = summarize_trace(COMPILED, None)
    rows = {r["op"]: r for r in summary["by_op"]}
    silu = rows["triton_poi_fused__unsafe_view_mul_silu_2"]
    assert (silu["flops"], silu["bytes"]) == (5 * 268_435_456, 3 * 268_435_456 * 2)
    add = rows["triton_poi_fused__unsafe_view_add_3"]
    assert (add["flops"], add["bytes"]) == (67_108_864, 3 * 67_108_864 * 2)
    for name in ("triton_red_fused_add_mean_mul_pow_rsqrt_0",
                 "triton_red_fused__unsafe_view_add_mean_mul_pow_rsqrt_1"):  # fmt: skip
        assert rows[name]["flops"] is None and rows[name]["cause"] == "no formula"
    m, k = 32768, 2048
    square = 2 * m * k * 2 + k * k * 2  # [m, k] read and [m, k] written, [k, k] read
    wide = m * k * 2 + k * 8192 * 2 + m * 8192 * 2
    assert rows["aten::mm"]["bytes"] == 4 * square + 3 * wide
