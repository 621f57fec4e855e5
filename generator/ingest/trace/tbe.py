"""FBGEMM's table-batched embeddings (TBE) from what a trace records of them.

The forward is one op, `fbgemm::split_embedding_codegen_lookup_<optimizer>_function` (or
`fbgemm::dense_embedding_codegen_lookup_function`), which records the weights, the
per-table offsets, the indices, the offsets and the per-sample weights, but not the output
width: `total_D` and `max_D` are scalars, and a trace without Concrete Inputs keeps no
scalar. The backward, with the optimizer fused into it, is the autograd node
`torch::autograd::CppNode<SplitLookupFunction_<optimizer>_Op>`, which records only
grad_output [B, total_D]. Neither alone says enough, so each backward node is paired with
its forward op by `Sequence number`: a custom autograd function records none on its own
op, but its node takes the sequence number the ops just before it on the thread recorded
(checked on HTA's and param's traces: every forward op pairs with exactly one node). Both
then cost from the pair (`pair_args`: the forward's arguments, grad_output appended).

Per-table widths are not recorded, only their sum: every table is taken as D = total_D / T
wide. A row-wise optimizer records one momentum value per row, so the weights' elements over
the rows give a second, row-weighted mean width: the call is costed exactly where both means
agree. Where they differ (or total_D / T is no whole number) the tables' widths are mixed
and the cost is an interval, labelled bounded (`_mixed`): each table between 1 and what the
others leave of total_D wide, at most as wide as the forward kernel's template allows
(`kernel_width_cap`), the lookups' rows read at the narrowest and at the widest width, the
rows touched never holding more than the weights' elements. The lower end is the cost, the
upper beside it. A full-width optimizer records no row count: mixed widths there stay
without a cost ("no usable shapes"); uniform ones take the table as weights / D rows, which
must divide evenly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from generator.complexity.op_models import (
    TBE_OPTIMIZERS,
    TableBatch,
    tbe_backward,
    tbe_forward,
)
from generator.ingest.trace.events import OpArgs
from generator.ingest.trace.formulas import DTYPE_BYTES, Cost, _concrete, _is_tensor, _numel
from generator.ingest.trace.read import Events

FORWARD = re.compile(
    r"fbgemm::(?:split_embedding_codegen_lookup_(\w+?)|dense_embedding_codegen_lookup)_function$"
)
BACKWARD = re.compile(r"torch::autograd::CppNode<SplitLookupFunction_(\w+?)_Op>$")
# FBGEMM's pooled forward kernel and its template arguments (types, then kMaxVecsPerThread
# and, since 2023, kThreadGroupSize)
FORWARD_KERNEL = re.compile(
    r"(?:void )?(?:split|dense)_embedding_codegen_forward_(?:un)?weighted_kernel<([^<>]*)>"
)
FLOAT_WEIGHTS = ("float", "c10::Half", "c10::BFloat16")


@dataclass(frozen=True)
class Layout:
    """Where a lookup op keeps its tensors (FBGEMM's lookup function, 2023)."""

    weights: tuple[int, ...]  # dev_weights (and uvm_weights): one is empty
    weights_offsets: int
    indices: int
    offsets: int
    pooling_mode: int  # a scalar: 0 sum, 1 mean (FBGEMM's PoolingMode)
    indice_weights: int
    momentum: int | None  # momentum1_dev: the optimizer state


SPLIT = Layout((1, 2), 5, 11, 12, 13, 14, 20)
DENSE = Layout((0,), 1, 7, 8, 9, 10, None)


def optimizer_of(name: str) -> str | None:
    """The optimizer a TBE op or node runs ("dense" for the dense TBE), or None."""
    found = FORWARD.match(name) or BACKWARD.match(name)
    if found is None:
        return None
    return (found.group(1) or "dense").lower()


def is_tbe(name: str) -> bool:
    """A TBE op or node whose optimizer has a model (TBE_OPTIMIZERS)."""
    return optimizer_of(name) in TBE_OPTIMIZERS


@dataclass(frozen=True)
class Call:
    """A TBE call's sizes at both ends of what the trace allows: one batch where every
    table's width is known (`low is high`), an interval where the widths are mixed."""

    low: TableBatch
    high: TableBatch
    layout: Layout
    all_weights: int

    @property
    def bounded(self) -> bool:
        return self.low != self.high


def kernel_width_cap(kernel: str) -> int | None:
    """The widest table a TBE forward kernel can pool, from its template: it holds
    kMaxVecsPerThread vectors of 4 elements in each of kThreadGroupSize lanes (32, a warp,
    where the template has no group size), and FBGEMM picks it by max_D (its dispatch:
    `max_D <= 4 · kMaxVecsPerThread · kThreadGroupSize`). None for another kernel."""
    found = FORWARD_KERNEL.match(kernel)
    if found is None:
        return None
    numbers = [int(a.rstrip("ul")) for a in found.group(1).split(", ") if a.rstrip("ul").isdigit()]
    if not numbers or len(numbers) > 2:
        return None
    vectors, group = (numbers[0], 32) if len(numbers) == 1 else (numbers[0], numbers[1])
    return 4 * vectors * group


def width_caps(
    paired: dict[int, OpArgs], kernels: Iterable[tuple[int, str | None]]
) -> dict[int, int]:
    """The widest-table bound of each paired op (pair_args), from the forward kernels its
    forward op launched (instance, kernel name): both ops of a pair share pair_args' one
    OpArgs, so the backward node takes its forward's bound."""
    own: dict[int, int] = {}
    for instance, kernel in kernels:
        cap = kernel_width_cap(kernel) if kernel and instance in paired else None
        if cap is not None:
            own[instance] = min(own.get(instance, cap), cap)
    pairs: dict[int, list[int]] = {}
    for op, args in paired.items():
        pairs.setdefault(id(args), []).append(op)
    caps: dict[int, int] = {}
    for members in pairs.values():
        found = [own[op] for op in members if op in own]
        caps.update(dict.fromkeys(members, min(found)) if found else {})
    return caps


def _table_batch(args: OpArgs, optimizer: str, width_cap: int | None = None) -> Call | None:
    """The call's sizes from a paired forward's arguments (grad_output appended last);
    None where the recorded shapes do not say enough."""
    layout = DENSE if optimizer == "dense" else SPLIT
    dims, types = args.dims, args.types
    grad = dims[-1]
    if len(dims) <= max(layout.indice_weights, layout.momentum or 0) + 1 or not (
        _is_tensor(grad) and len(grad) == 2
    ):
        return None
    tables = _numel(dims[layout.weights_offsets])
    lookups, bags = _numel(dims[layout.indices]), _numel(dims[layout.offsets]) - 1
    kinds = {types[i] for i in layout.weights if _numel(dims[i])}
    all_weights = sum(_numel(dims[i]) for i in layout.weights)
    samples, total_width = grad
    if tables < 1 or bags != samples * tables or len(kinds) != 1:
        return None  # a pooled call writes [B, total_D] for B·T bags
    (kind,) = kinds
    if kind not in FLOAT_WEIGHTS or total_width < tables:
        return None  # quantized rows
    weighted = _is_tensor(dims[layout.indice_weights])
    sizes = {
        "lookups": lookups,
        "bags": bags,
        "offsets": bags + 1,
        "weight_size": DTYPE_BYTES[kind],
        "index_size": DTYPE_BYTES.get(types[layout.indices], 8),
        "offset_size": DTYPE_BYTES.get(types[layout.offsets], 8),
        "output_size": DTYPE_BYTES.get(types[-1], 4),
        "sample_weight_size": DTYPE_BYTES.get(types[layout.indice_weights], 4) if weighted else 0,
        "mean": _concrete(args, layout.pooling_mode) == 1,  # recorded with Concrete Inputs only
    }
    width = total_width // tables
    rows = all_weights // width
    # one momentum value per row (rowwise): the rows H are recorded, and their mean width
    rowwise = optimizer == "rowwise_adagrad"
    momentum = _numel(dims[layout.momentum]) if rowwise and layout.momentum is not None else None
    if total_width % tables == 0 and all_weights % width == 0 and momentum in (None, rows):
        batch = TableBatch(width=width, table_rows=rows, **sizes)
        return Call(batch, batch, layout, all_weights)
    if momentum is None or momentum < tables:
        return None  # mixed widths and no row count: the rows touched are not bounded
    return _mixed(sizes, samples, total_width, tables, momentum, all_weights, width_cap, layout)


def _mixed(
    sizes: dict[str, int | bool],
    samples: int,
    total_width: int,
    tables: int,
    rows: int,
    all_weights: int,
    width_cap: int | None,
    layout: Layout,
) -> Call | None:
    """Tables of mixed widths: each is at least 1 wide and at most what the others leave
    of the sum (or the forward kernel's cap); each lookup reads a row of one of them, and
    the rows touched (min(L, H), the models' convention) hold between the narrowest and the
    widest such rows' elements, never more than the H rows' W elements: all of them where
    L >= H."""
    widest = total_width - (tables - 1)
    widest = min(widest, width_cap) if width_cap is not None else widest
    narrowest = max(1, total_width - (tables - 1) * widest)
    if not narrowest * rows <= all_weights <= widest * rows:
        return None  # the recorded sizes contradict each other
    lookups = int(sizes["lookups"])
    touched = min(lookups, rows)
    untouched = rows - touched
    touched_elements = (
        max(touched * narrowest, all_weights - untouched * widest),
        min(touched * widest, all_weights - untouched * narrowest),
    )
    ends = [
        TableBatch(
            width=width,
            table_rows=rows,
            lookup_elements=lookups * width,
            row_elements=elements,
            bag_elements=samples * total_width,
            **sizes,  # type: ignore[arg-type]
        )
        for width, elements in zip((narrowest, widest), touched_elements, strict=True)
    ]
    return Call(ends[0], ends[1], layout, all_weights)


def lookup_cost(name: str, args: OpArgs, width_cap: int | None = None) -> Cost | None:
    """A paired TBE forward op or backward node (pair_args), by TableBatch's model; over
    tables of mixed widths a bounded cost, its lower end the cost's, its upper end beside."""
    optimizer = optimizer_of(name)
    found = _table_batch(args, optimizer, width_cap) if optimizer in TBE_OPTIMIZERS else None
    if optimizer is None or found is None:
        return None
    layout = found.layout

    def model(batch: TableBatch) -> tuple[float, float]:
        if FORWARD.match(name):
            return tbe_forward(batch)
        state = args.types[layout.momentum] if layout.momentum is not None else "float"
        return tbe_backward(batch, optimizer, DTYPE_BYTES.get(state, 4), found.all_weights)

    flops, moved = model(found.low)
    kind = next(args.types[i] for i in layout.weights if _numel(args.dims[i]))
    if not found.bounded:
        return Cost(flops, moved, "embedding", kind)
    flops_upper, bytes_upper = model(found.high)
    return Cost(
        flops,
        moved,
        "embedding",
        kind,
        bounded=True,
        flops_upper=flops_upper,
        bytes_upper=bytes_upper,
    )


def _kind(name: str) -> str:
    """A TBE forward op, a TBE node, autograd's own (whose sequence numbers are a backward
    node's), or an op whose sequence number counts."""
    if FORWARD.match(name):
        return "forward"
    if BACKWARD.match(name):
        return "node"
    return "skip" if "autograd" in name or "Backward" in name else "op"


def pair_args(ops: Events) -> dict[int, OpArgs]:
    """Each TBE forward op and backward node that pair, with the forward's arguments and
    grad_output appended. A forward op pairs with the node whose sequence number the last
    op before it on its thread recorded (ops with no sequence number, autograd nodes and
    the engine's wrappers aside); a pair whose optimizers differ is not one."""
    names, tids, sequence, args = ops.name, ops.tid, ops.sequence, ops.args
    kind = {name: _kind(name) for name in set(names)}  # each distinct name once
    last: dict[str, int] = {}
    forwards: dict[tuple[str, int], int] = {}
    backwards: list[int] = []
    for i in sorted(range(len(names)), key=ops.ts.__getitem__):
        found = kind[names[i]]
        if found == "op":
            if sequence[i] is not None:
                last[tids[i]] = sequence[i]  # type: ignore[assignment]
        elif found == "forward":
            seen = last.get(tids[i])
            if seen is not None:
                forwards[(optimizer_of(names[i]) or "", seen)] = i
        elif found == "node":
            backwards.append(i)
    paired: dict[int, OpArgs] = {}
    for node in backwards:
        seq, grad = sequence[node], args[node]
        forward = forwards.get((optimizer_of(names[node]) or "", seq)) if seq is not None else None
        given = args[forward] if forward is not None else None
        if forward is None or given is None or grad is None or not grad.dims:
            continue
        both = OpArgs(
            [*given.dims, grad.dims[0]],
            [*given.types, grad.types[0] if grad.types else "float"],
            list(given.concrete),
        )
        paired[forward] = paired[node] = both
    return paired
