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


@dataclass(frozen=True)
class TableBatch:
    """One pooled embedding lookup, as plain sizes: FBGEMM's table-batched embedding (TBE)
    bag, or aten's embedding_bag (one table). `lookups` indices (L) into `bags` bags (B·T:
    B samples × T tables), `offsets` offsets recorded (B·T, or B·T + 1 with the last), each
    row `width` (D) wide, `table_rows` (H) rows over all tables; element sizes of the
    weights, indices, offsets, the pooled output and the per-sample weights (0: none);
    `mean`: the bags are averaged, not summed.

    Tables of mixed widths (FBGEMM records only their sum): the element counts the models
    read are given apart, each at one end of its interval (tbe.py), and `width` is unused:
    `lookup_elements` Σ L_t·D_t, `row_elements` the rows touched times their widths,
    `bag_elements` B·Σ D_t."""

    lookups: int
    bags: int
    offsets: int
    width: int
    table_rows: int
    weight_size: int
    index_size: int
    offset_size: int
    output_size: int
    sample_weight_size: int
    mean: bool = False
    lookup_elements: int | None = None
    row_elements: int | None = None
    bag_elements: int | None = None

    @property
    def weighted(self) -> bool:
        return self.sample_weight_size > 0

    @property
    def looked_up(self) -> int:
        """Elements read through the indices: L·D (Σ L_t·D_t)."""
        return self.lookups * self.width if self.lookup_elements is None else self.lookup_elements

    @property
    def touched(self) -> int:
        """Elements of the rows touched (rows_touched · D)."""
        return self.rows_touched * self.width if self.row_elements is None else self.row_elements

    @property
    def pooled(self) -> int:
        """Elements of the pooled output (B·T bags of D: B · total D)."""
        return self.bags * self.width if self.bag_elements is None else self.bag_elements

    @property
    def rows_touched(self) -> int:
        """Rows gathered (forward) or updated (backward): one per index, each at most once,
        so never more than the tables hold (the trace does not record how many indices are
        distinct: this is gather_bytes' convention)."""
        return min(self.lookups, self.table_rows)

    def _inputs(self) -> int:
        """The indices, the offsets and the per-sample weights, read once."""
        return self.lookups * (self.index_size + self.sample_weight_size) + (
            self.offsets * self.offset_size
        )


# The fused optimizer of a TBE backward, per FBGEMM's generated update (codegen/genscript/
# optimizers.py): (FLOPs per gradient element, FLOPs per row, optimizer-state elements per
# row as a multiple of 1 or of D). `rowwise_adagrad`: Σg² (2 per element), the row's mean,
# the momentum's add, a sqrt, the eps add and the lr divide (5 per row), w -= m·g (2 per
# element); one float of momentum per row. `adagrad`: m += g² (2), w -= lr·g/(√m + eps)
# (sqrt, add, divide, multiply, subtract: 5) per element; D floats of momentum per row.
# `dense` (FBGEMM's dense TBE, no optimizer): the gradient is written as a dense tensor.
TBE_OPTIMIZERS: dict[str, tuple[float, float, bool]] = {
    "rowwise_adagrad": (4.0, 5.0, False),
    "adagrad": (7.0, 0.0, True),
    "dense": (0.0, 0.0, False),
}


def tbe_forward(batch: TableBatch) -> tuple[float, float]:
    """FLOPs and minimal bytes of a pooled lookup's forward (a TBE's, or embedding_bag's):
    each index's row of D added into its bag (L·D adds, or compares for a max bag; a
    per-sample weight one multiply more per element; a mean one divide per output
    element); the rows gathered read once, the indices, offsets and weights read, B·T
    pooled rows of D written."""
    flops = batch.looked_up * (2 if batch.weighted else 1)
    flops += batch.pooled if batch.mean else 0
    gathered = batch.touched * batch.weight_size
    written = batch.pooled * batch.output_size
    return float(flops), float(gathered + batch._inputs() + written)


def tbe_backward(
    batch: TableBatch, optimizer: str, state_size: int, all_weights: int
) -> tuple[float, float]:
    """FLOPs and minimal bytes of a TBE backward with its fused optimizer (TBE_OPTIMIZERS):
    each index's gradient row (its bag's row of grad_output, times its weight when weighted)
    added into its table row's gradient (L·D; one multiply per element more weighted, and
    one more for a mean bag's 1 / size); a weighted call's
    per-sample weight gradient, a dot product of each index's row with its bag's gradient
    (2·L·D FLOPs, L floats written); then the optimizer on each row touched, which reads and
    writes the row and its optimizer state (`state_size` bytes per element). grad_output is
    read once, the indices, offsets and weights once. `dense` writes the gradient of all
    `all_weights` elements instead. The sort that groups indices by row is not minimal
    traffic and is not counted: bytes are a lower bound, as everywhere."""
    per_element, per_row, state_per_element = TBE_OPTIMIZERS[optimizer]
    rows, touched = batch.rows_touched, batch.touched
    # a mean bag's gradient is scaled by 1 / its size: one multiply per element more
    flops = float(batch.looked_up * (1 + batch.weighted + batch.mean))
    moved = batch.pooled * batch.output_size + batch._inputs()
    if batch.weighted:
        flops += 2 * batch.looked_up
        moved += batch.lookups * batch.sample_weight_size
    if optimizer == "dense":  # the rows are read only for a weighted call's dot products
        read = touched * batch.weight_size if batch.weighted else 0
        return flops, float(moved + read + all_weights * batch.weight_size)
    # the update reads and writes each row (the weighted dot products read the same rows)
    flops += per_element * touched + per_row * rows
    state = (touched if state_per_element else rows) * state_size
    moved += 2 * (touched * batch.weight_size + state)
    return flops, float(moved)
