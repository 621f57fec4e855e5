"""FLOPs and minimal bytes of the ops that reduce (sum, mean, amax, a loss) or normalise,
read from their recorded arguments by formulas.py's conventions: every input read once,
the output written once, its size from the dims the op reduces away."""

from __future__ import annotations

import math

from generator.complexity.op_models import norm_flops
from generator.ingest.trace.events import OpArgs
from generator.ingest.trace.formulas import (
    DTYPE_BYTES,
    Cost,
    Formula,
    _concrete,
    _dtype,
    _elements,
    _is_tensor,
    _numel,
    _size,
    _tensor_bytes,
    per_element,
)

INTEGRAL = ("long", "long int", "long long", "int", "unsigned int", "short", "bool",
            "unsigned char", "signed char")  # fmt: skip


def reduction(dim_at: int, promotes: bool = False) -> Formula:
    """sum, mean, amax, amin, linalg_vector_norm: 1 FLOP per input element; bytes the input
    read and the output written: the input with the dims at argument `dim_at` (a list or
    one int) reduced away; one element where the op reduces every dim (no dim argument,
    or None) or the trace did not record which (a lower bound). `promotes`: an integral
    or bool input sums to int64 (8 B) unless a dtype is given."""
    read = per_element(1, "reduction")

    def cost(args: OpArgs) -> Cost | None:
        moved = read(args)
        if moved is None or not args.dims or not isinstance(args.dims[0], list):
            return None
        shape = args.dims[0]
        by_dim = len(args.dims) >= dim_at + 2  # sum(self, dim, keepdim, ...), not sum(self, dtype)
        dims = _concrete(args, dim_at) if by_dim else None
        if isinstance(dims, int):
            dims = [dims]
        kept = 1
        if isinstance(dims, list | tuple) and dims and shape:
            axes = {int(d) % len(shape) for d in dims}
            kept = math.prod(n for i, n in enumerate(shape) if i not in axes)
        dtype_at = dim_at + 2 if by_dim else 1
        size = _size(args, 0)
        if promotes and args.types and args.types[0] in INTEGRAL:
            size = 8 if _concrete(args, dtype_at) is None else size
        return Cost(moved.flops, moved.bytes + kept * size, "reduction", moved.dtype)

    return cost


def mse_loss(args: OpArgs) -> Cost | None:
    """mse_loss(self, target, reduction): (x - y)² summed: sub, square, add, 3 FLOP per
    element; both inputs read once and the output written: one element for a mean or sum
    (reduction 1 or 2, the default mean), every element for none (0)."""
    if len(args.dims) < 2 or not (_is_tensor(args.dims[0]) or args.dims[0] == []):
        return None
    elements = _elements(OpArgs(args.dims[:2], args.types[:2], []), "elementwise")
    if elements is None:
        return None
    reduced = _concrete(args, 2)
    size = DTYPE_BYTES[_dtype(args)]
    written = elements * size if reduced == 0 else size
    inputs = _tensor_bytes(OpArgs(args.dims[:2], args.types[:2], []))
    return Cost(3.0 * elements, inputs + written, "loss", _dtype(args))


def nll_loss(backward: bool) -> Formula:
    """nll_loss gathers one log-probability per target and averages them (forward), or writes
    one gradient per target into a zeroed [N, C] (backward): FLOPs by the targets, not by the
    [N, C] input it indexes and never reads whole (a GPT-2 loss over 50,257 classes counted
    per element ran at 274 GFLOP/s on 2 CPU cores)."""

    def cost(args: OpArgs) -> Cost | None:
        at = 2 if backward else 1  # (grad_output,) self, target, weight, ...
        if len(args.dims) <= at or not _is_tensor(args.dims[at]):
            return None
        targets = _numel(args.dims[at])
        size, dtype = DTYPE_BYTES[_dtype(args)], _dtype(args)
        if backward:
            written = _numel(args.dims[1]) * size if _is_tensor(args.dims[1]) else 0
            return Cost(float(targets), written + targets * _size(args, at), "loss", dtype)
        return Cost(float(targets), targets * (size + _size(args, at)) + size, "loss", dtype)

    return cost


def norm(kind: str, backward: bool, batch_statistics: bool = True) -> Formula:
    """The normalised input's elements at op_models' per-element count; minimal bytes as
    an elementwise op's, and a layer norm forward's two per-row statistics written (mean,
    rstd: float32, float64 for a double input; one per row of the normalized shape)."""
    elementwise = per_element(0, "norm")

    def cost(args: OpArgs) -> Cost | None:
        moved = elementwise(args)
        if moved is None:
            return None
        elements = _numel(args.dims[1] if backward else args.dims[0])
        flops = norm_flops(kind, elements, backward, batch_statistics)
        statistics = 0.0
        if kind == "layer_norm" and not backward:
            # the normalized shape, or the weight's (a trace with no concrete inputs)
            normalized = _concrete(args, 1)
            width = math.prod(normalized) if isinstance(normalized, list | tuple) else 0
            if not width and len(args.dims) > 2 and _is_tensor(args.dims[2]):
                width = _numel(args.dims[2])
            if width:  # else not known: left out, a lower bound
                statistics = 2 * (elements // width) * (8 if moved.dtype == "double" else 4)
        return Cost(flops, moved.bytes + statistics, "norm", moved.dtype)

    return cost


def cat(args: OpArgs) -> Cost | None:
    """cat(tensors, dim): each input read and the output written, no arithmetic. A tensor
    list records no dtype: attribute.py passes the one the ops beside it record (the
    smaller where they differ), so the bytes are a lower bound and the cost is bounded."""
    if not args.dims or not isinstance(args.dims[0], list):
        return None
    shapes = [s for s in args.dims[0] if isinstance(s, list)]
    dtype = args.types[0] if args.types else ""
    if not shapes or dtype not in DTYPE_BYTES:
        return None
    elements = sum(_numel(shape) for shape in shapes)
    return Cost(0.0, 2.0 * elements * DTYPE_BYTES[dtype], "memory", dtype, bounded=True)
