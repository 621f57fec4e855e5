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
the rows give a second, row-weighted mean width: the call is costed only where both means
agree (a mix of widths would show as a difference), and otherwise left without a cost
("no usable shapes"). A full-width optimizer gives no such check (the table is then taken
as weights / D rows, which must divide evenly).
"""

from __future__ import annotations

import re
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


def _table_batch(args: OpArgs, optimizer: str) -> tuple[TableBatch, Layout, int] | None:
    """The call's sizes from a paired forward's arguments (grad_output appended last), and
    the weights' element count; None where the recorded shapes do not say enough."""
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
    if tables < 1 or bags != samples * tables or total_width % tables or len(kinds) != 1:
        return None  # a pooled call writes [B, total_D] for B·T bags
    (kind,) = kinds
    width = total_width // tables
    if kind not in FLOAT_WEIGHTS or width < 1 or all_weights % width:
        return None  # quantized rows, or widths that cannot all be D
    rows = all_weights // width
    if optimizer == "rowwise_adagrad":  # one momentum value per row: H recorded
        assert layout.momentum is not None
        if _numel(dims[layout.momentum]) != rows:
            return None  # the row-weighted mean width differs: the tables' widths differ
    weighted = _is_tensor(dims[layout.indice_weights])
    batch = TableBatch(
        lookups=lookups,
        bags=bags,
        offsets=bags + 1,
        width=width,
        table_rows=rows,
        weight_size=DTYPE_BYTES[kind],
        index_size=DTYPE_BYTES.get(types[layout.indices], 8),
        offset_size=DTYPE_BYTES.get(types[layout.offsets], 8),
        output_size=DTYPE_BYTES.get(types[-1], 4),
        sample_weight_size=DTYPE_BYTES.get(types[layout.indice_weights], 4) if weighted else 0,
        mean=_concrete(args, layout.pooling_mode) == 1,  # recorded with Concrete Inputs only
    )
    return batch, layout, all_weights


def lookup_cost(name: str, args: OpArgs) -> Cost | None:
    """A paired TBE forward op or backward node (pair_args), by TableBatch's model."""
    optimizer = optimizer_of(name)
    found = _table_batch(args, optimizer) if optimizer in TBE_OPTIMIZERS else None
    if optimizer is None or found is None:
        return None
    batch, layout, all_weights = found
    if FORWARD.match(name):
        flops, moved = tbe_forward(batch)
    else:
        state = args.types[layout.momentum] if layout.momentum is not None else "float"
        flops, moved = tbe_backward(batch, optimizer, DTYPE_BYTES.get(state, 4), all_weights)
    kind = next(args.types[i] for i in layout.weights if _numel(args.dims[i]))
    return Cost(flops, moved, "embedding", kind)


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
