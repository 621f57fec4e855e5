"""One cost model per op family, on plain sizes: the trace path (an op's recorded shapes,
generator.ingest.trace.formulas) and the complexity walk (a module's or function's real
tensors, generator.complexity.*_formulas) both call these, so the two cannot disagree.

No torch here: the site build reads traces without it.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.complexity.conventions import ELEMENTWISE

# A window wider than any sequence: "no limit on this side".
UNBOUNDED = 1 << 62


def _clipped_sum(start: int, count: int, limit: int) -> int:
    """Σ clip(x, 0, limit) for x = start … start + count - 1, in closed form."""

    def below(n: int) -> int:  # Σ clip(x, 0, limit) for x = 0 … n - 1 (n ≥ 0)
        ramp = min(n, limit + 1)
        return ramp * (ramp - 1) // 2 + (n - ramp) * limit

    return below(max(start + count, 0)) - below(max(start, 0))


def attended_pairs(
    queries: int,
    keys: int,
    causal: bool = False,
    window_left: int | None = None,
    window_right: int | None = None,
    bottom_right: bool = False,
) -> int:
    """Query-key pairs a mask keeps: query i sees key j when
    i + offset - left ≤ j ≤ i + offset + right, clipped to the keys. The offset is 0 for a
    top-left aligned mask (SDPA's `is_causal`) and keys - queries for a bottom-right one
    (flash-attention's windows, efficient attention's mask type 2). Causal is right = 0.
    Work per row i: the count of kept keys, so the sum over rows is exact, not an estimate."""
    if not causal and window_left is None and window_right is None:
        return queries * keys
    offset = keys - queries if bottom_right else 0
    left = UNBOUNDED if window_left is None or window_left < 0 else window_left
    right = 0 if causal else UNBOUNDED if window_right is None or window_right < 0 else window_right
    left, right = min(left, queries + keys), min(right, queries + keys)
    # kept keys of row i = #{j < i + offset + right + 1} - #{j < i + offset - left}
    return _clipped_sum(offset + right + 1, queries, keys) - _clipped_sum(
        offset - left, queries, keys
    )


@dataclass(frozen=True)
class AttentionWork:
    """FLOPs of Q·Kᵀ and P·V over the pairs the mask keeps (softmax's per-score work is not
    counted, as FlopCounterMode and the flash-attention papers do not), and the full-square
    count FlopCounterMode reports, for MFU comparisons."""

    flops: float
    full_square_flops: float


def attention_work(
    batch_heads: int,
    queries: int,
    keys: int,
    depth: int,
    value_depth: int,
    pairs: int,
    backward: bool,
) -> AttentionWork:
    """Forward: Q·Kᵀ (pairs·E MACs) and P·V (pairs·Ev). Backward: the scores recomputed
    (pairs·E; flash, efficient and cuDNN kernels keep no P), dV = Pᵀ·dO and dP = dO·Vᵀ
    (pairs·Ev each), dQ = dS·K and dK = dSᵀ·Q (pairs·E each): pairs·(3E + 2Ev) MACs,
    2.5 × the forward when E = Ev, as FlopCounterMode's SDPA backward counts it."""
    per_pair = 3 * depth + 2 * value_depth if backward else depth + value_depth
    return AttentionWork(
        2.0 * batch_heads * pairs * per_pair,
        2.0 * batch_heads * queries * keys * per_pair,
    )


def matmul_flops(batch: int, rows: int, inner: int, columns: int, bias: bool) -> float:
    """2·M·K·N per product, and one add per output for a bias (addmm, baddbmm, a linear
    layer's bias): 2·M·K·N + M·N."""
    return batch * (2.0 * rows * inner * columns + (rows * columns if bias else 0))


def norm_flops(kind: str, elements: int, backward: bool, batch_statistics: bool = True) -> float:
    """The per-element constants of conventions.ELEMENTWISE (derived there), per element."""
    rule = ELEMENTWISE[kind]
    if backward:
        return (rule.backward_input + rule.backward_weight) * elements
    eval_mode = not batch_statistics and rule.forward_eval is not None
    return (rule.forward_eval if eval_mode else rule.forward) * elements  # type: ignore[operator]


def gather_bytes(
    rows: int, table_rows: int, row_elements: int, value_size: int, index_bytes: int
) -> float:
    """An embedding lookup or index_select: the rows gathered written once; read once each,
    so never more of them than the table holds (bert's token-type table has 2 rows, looked
    up 141 times); and the indices. The table itself is never read whole."""
    read = min(rows, table_rows)
    return float((read + rows) * row_elements * value_size + index_bytes)
