"""FLOPs and minimal bytes of an aten op from the shapes and dtypes record_shapes wrote.

Conventions and the arithmetic of each family are the complexity counter's
(generator.complexity.conventions, generator.complexity.op_models): this module only reads
the arguments of each aten schema. A matmul is 2·M·K·N plus M·N for a bias, a convolution
2 · its MACs, attention the products over the pairs its mask keeps, everything else its
per-element constants. Minimal bytes are every input tensor read once and every output
written once, at the recorded dtype: a lower bound on the traffic, so AI is an upper bound.
A destination (copy_'s self, an `out=` tensor) is written, not read; a lookup moves the rows
it gathers, not its table. An op whose shapes do not fit its formula gets no cost (it is
reported as uncounted), never 0.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from generator.complexity.op_models import (
    attended_pairs,
    attention_work,
    matmul_flops,
)
from generator.ingest.trace.events import OpArgs

DTYPE_BYTES: dict[str, int] = {
    "double": 8,
    "float": 4,
    "c10::Half": 2,
    "c10::BFloat16": 2,
    "long": 8,
    "long int": 8,  # torch >= 2.5 writes C++ type names
    "long long": 8,
    "int": 4,
    "unsigned int": 4,
    "short": 2,
    "bool": 1,
    "unsigned char": 1,
    "signed char": 1,
    "c10::Float8_e4m3fn": 1,
    "c10::Float8_e5m2": 1,
}
FLOAT_DTYPES = ("double", "float", "c10::Half", "c10::BFloat16")


@dataclass(frozen=True)
class Cost:
    flops: float
    bytes: float
    family: str  # matmul, conv, attention, norm, softmax, elementwise, reduction, ...
    dtype: str  # the op's float dtype as the trace names it ("float", "c10::BFloat16")
    # attention: the FLOPs of the whole L×S square, FlopCounterMode's convention, for MFU
    full_square_flops: float | None = None
    # the cost rests on a value the trace lacks, taken at its lower end (a cat's dtype from
    # the ops beside it): counted apart from exact costs (trace_roofline.BOUNDED)
    bounded: bool = False
    # a bounded cost's upper end where the trace bounds it (a TBE over tables of mixed
    # widths); None: not known, or the cost is exact
    flops_upper: float | None = None
    bytes_upper: float | None = None


def _numel(shape: Any) -> int:
    if not isinstance(shape, list) or not all(isinstance(d, int) for d in shape):
        return 0
    return math.prod(shape)


def _is_tensor(shape: Any) -> bool:
    return isinstance(shape, list) and all(isinstance(d, int) for d in shape) and shape != []


def _tensors(args: OpArgs) -> list[list[int]]:
    """The tensor inputs' shapes: a [] is a 0-d tensor when its type is a dtype (numel 1),
    a Scalar or None otherwise."""
    shapes = []
    for i, shape in enumerate(args.dims):
        if _is_tensor(shape):
            shapes.append(shape)
        elif shape == [] and i < len(args.types) and args.types[i] in DTYPE_BYTES:
            shapes.append([])
    return shapes


def _dtype(args: OpArgs) -> str:
    return next((t for t in args.types if t in FLOAT_DTYPES), "float")


def _size(args: OpArgs, index: int) -> int:
    kind = args.types[index] if index < len(args.types) else ""
    return DTYPE_BYTES.get(kind, DTYPE_BYTES[_dtype(args)])


def _tensor_bytes(args: OpArgs) -> float:
    """Bytes of every tensor input (tensor lists included)."""
    total = 0.0
    for i, shape in enumerate(args.dims):
        is_zero_d = shape == [] and i < len(args.types) and args.types[i] in DTYPE_BYTES
        if _is_tensor(shape) or is_zero_d:
            total += _numel(shape) * _size(args, i)
        elif isinstance(shape, list) and shape and all(isinstance(s, list) for s in shape):
            total += sum(_numel(s) for s in shape) * DTYPE_BYTES[_dtype(args)]
    return total


def _concrete(args: OpArgs, index: int) -> Any:
    if index >= len(args.concrete) or not args.concrete[index]:
        return None
    try:
        return ast.literal_eval(args.concrete[index])
    except (ValueError, SyntaxError):
        return None


def _broadcast(shapes: list[list[int]]) -> list[int] | None:
    rank = max(len(s) for s in shapes)
    if rank == 0:
        return []
    out = []
    for axis in range(rank):
        sizes = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0} - {1}
        if len(sizes) > 1:
            return None
        out.append(sizes.pop() if sizes else 1)
    return out


Formula = Callable[[OpArgs], Cost | None]


def matmul(batched: bool, first: int) -> Formula:
    """mm(a, b) / addmm(c, a, b) / bmm / baddbmm: operands start at `first`; an op with a
    bias (`first` = 1: addmm, baddbmm) adds it once per output unless beta is 0. A tensor
    past the functional arguments (mm(a, b, out=c), addmm(c, a, b, beta, alpha, out=d)) is
    the destination: written, not read."""
    arity = 2 if first == 0 else 5

    def cost(args: OpArgs) -> Cost | None:
        if len(args.dims) > arity and _is_tensor(args.dims[arity]):
            args = OpArgs(args.dims[:arity], args.types[:arity], args.concrete[:arity])
        if len(args.dims) < first + 2:
            return None
        a, b = args.dims[first], args.dims[first + 1]
        rank = 3 if batched else 2
        if not (_is_tensor(a) and _is_tensor(b)) or len(a) != rank or len(b) != rank:
            return None
        m, k, n = a[-2], a[-1], b[-1]
        batch = a[0] if batched else 1
        bias = first == 1 and _concrete(args, first + 2) not in (0, 0.0)
        size = DTYPE_BYTES[_dtype(args)]
        inputs = _tensor_bytes(args)
        flops = matmul_flops(batch, m, k, n, bias)
        return Cost(flops, inputs + batch * m * n * size, "matmul", _dtype(args))

    return cost


# c10::ScalarType codes a trace records for a dtype argument (out_dtype): the ones a
# matmul output takes (this repository's _scaled_mm and _to_copy traces record 6, 15, 24)
SCALAR_TYPE_BYTES = {5: 2, 6: 4, 7: 8, 15: 2, 23: 1, 24: 1}


def scaled_mm(args: OpArgs) -> Cost | None:
    """_scaled_mm(a [M, K], b [K, N], scale_a, scale_b, bias, scale_result, out_dtype, ...):
    the FP8 product 2·M·K·N, the bias once per output, and the scales per output: one
    multiply by scale_a·scale_b when both are tensor-wise, two for row- or column-wise
    scales. Bytes: the operands, scales and bias at their dtypes, the output at out_dtype
    (the operands' when none is recorded)."""
    if len(args.dims) < 4 or not (_is_tensor(args.dims[0]) and _is_tensor(args.dims[1])):
        return None
    (m, k), n = args.dims[0], args.dims[1][-1]
    tensorwise = _numel(args.dims[2]) == 1 and _numel(args.dims[3]) == 1
    bias = len(args.dims) > 4 and _is_tensor(args.dims[4])
    flops = matmul_flops(1, m, k, n, bias) + (1 if tensorwise else 2) * m * n
    out_dtype = _concrete(args, 6)
    out_size = (
        SCALAR_TYPE_BYTES.get(out_dtype, _size(args, 0))
        if isinstance(out_dtype, int)
        else _size(args, 0)
    )
    dtype = args.types[0] if args.types else "float"
    return Cost(flops, _tensor_bytes(args) + m * n * out_size, "matmul", dtype)


def _conv_out(size: int, kernel: int, stride: int, pad: int, dilation: int) -> int:
    return (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1


def _listed(value: Any, rank: int) -> list[int] | None:
    if isinstance(value, int):
        return [value] * rank
    if isinstance(value, list | tuple) and len(value) in (1, rank):
        values = [int(v) for v in value]
        return values * rank if len(values) == 1 else values
    return None


def conv_forward(args: OpArgs) -> Cost | None:
    """input, weight, bias, stride, padding, dilation, transposed, output_padding, groups."""
    if len(args.dims) < 2 or not (_is_tensor(args.dims[0]) and _is_tensor(args.dims[1])):
        return None
    x, w = args.dims[0], args.dims[1]
    rank = len(x) - 2
    stride, pad, dilation = (_listed(_concrete(args, i), rank) for i in (3, 4, 5))
    transposed = _concrete(args, 6)
    if rank < 1 or len(w) != rank + 2 or not (stride and pad and dilation) or transposed:
        return None  # without the stride and padding the output size is unknown
    spatial = [_conv_out(x[2 + d], w[2 + d], stride[d], pad[d], dilation[d]) for d in range(rank)]
    out = [x[0], w[0], *spatial]
    macs = _numel(out) * w[1] * math.prod(w[2:])
    bias = _numel(out) if len(args.dims) > 2 and _is_tensor(args.dims[2]) else 0
    size = DTYPE_BYTES[_dtype(args)]
    flops = 2.0 * macs + bias  # one add per output for the bias, as costs.mac_layer
    return Cost(flops, _tensor_bytes(args) + _numel(out) * size, "conv", _dtype(args))


def conv_backward(args: OpArgs) -> Cost | None:
    """convolution_backward(grad_output, input, weight, bias_sizes, ..., output_mask): the
    grad_output gives the output size; the mask (when recorded) says which gradients ran."""
    if len(args.dims) < 3 or not all(_is_tensor(args.dims[i]) for i in range(3)):
        return None
    grad, w = args.dims[0], args.dims[2]
    macs = _numel(grad) * w[1] * math.prod(w[2:])
    mask = _concrete(args, len(args.dims) - 1)
    grads = (
        [bool(m) for m in mask[:3]]
        if isinstance(mask, list | tuple) and len(mask) >= 3
        else [True, True, False]  # not recorded: input and weight gradients assumed
    )
    size = DTYPE_BYTES[_dtype(args)]
    written = (_numel(args.dims[1]) if grads[0] else 0) + (_numel(w) if grads[1] else 0)
    # the bias gradient sums grad_output over all but the channel: one add per element
    flops = 2.0 * macs * sum(grads[:2]) + (_numel(grad) if grads[2] else 0)
    written += w[0] if grads[2] else 0
    return Cost(flops, _tensor_bytes(args) + written * size, "conv", _dtype(args))


@dataclass(frozen=True)
class AttentionSchema:
    """Where one attention entry point keeps what its cost needs (argument indices)."""

    backward: bool
    heads_first: bool  # [B, H, L, E] (the SDPA ops) or [B, L, H, E] (flash/efficient)
    causal_at: int | None = None  # a bool `is_causal`
    mask_type_at: int | None = None  # efficient attention: 0 none, 1 top-left, 2 bottom-right
    window_at: tuple[int, int] | None = None  # flash: window_size_left, window_size_right


def attention(schema: AttentionSchema) -> Formula:
    """q [B, H, L, E], k [B, Hkv, S, E], v [B, Hkv, S, Ev] (or heads third): every query
    head does its own products, so grouped-query (Hkv < H) attention costs as many FLOPs as
    H heads and moves only Hkv heads of K and V. The mask sets the pairs (op_models)."""
    first = 1 if schema.backward else 0  # backward: grad_out comes first

    def cost(args: OpArgs) -> Cost | None:
        if len(args.dims) < first + 3:
            return None
        q, k, v = (args.dims[first + i] for i in range(3))
        if not all(_is_tensor(d) and len(d) == 4 for d in (q, k, v)):
            return None  # variable length ([total, H, E] with cumulative lengths): unknown
        if schema.heads_first:
            (b, h, length, e), s, ev = q, k[2], v[3]
        else:
            (b, length, h, e), s, ev = q, k[1], v[3]
        causal = schema.causal_at is not None and _concrete(args, schema.causal_at) is True
        bottom_right = False
        if schema.mask_type_at is not None:
            mask_type = _concrete(args, schema.mask_type_at)
            causal, bottom_right = mask_type in (1, 2), mask_type == 2
        left = right = None
        if schema.window_at is not None:
            left, right = (_concrete(args, i) for i in schema.window_at)
            bottom_right = True  # flash-attention aligns its windows bottom-right
        pairs = attended_pairs(length, s, causal, left, right, bottom_right)
        work = attention_work(b * h, length, s, e, ev, pairs, schema.backward)
        size = DTYPE_BYTES[_dtype(args)]
        qkv = (_numel(q) + _numel(k) + _numel(v)) * size
        out = b * h * length * ev * size
        # backward: read q, k, v, dO, O and the fp32 log-sum-exp; write dq, dk, dv
        moved = 2 * qkv + 2 * out + b * h * length * 4 if schema.backward else qkv + out
        return Cost(work.flops, moved, "attention", _dtype(args), work.full_square_flops)

    return cost


def per_element(
    flops_per: float,
    family: str,
    writes: int = 1,
    arity: int | None = None,
    overwrites: bool = False,
    out_size: int | None = None,
) -> Formula:
    """Elementwise and reductions: FLOPs per element of the largest (broadcast) input.

    `arity`: the functional schema's argument count; a tensor recorded past it is the
    `out=` destination (mul(a, b, out=c) records a, b, c), written and not read.
    `overwrites`: the first argument is a destination the op only writes (copy_, fill_,
    zero_): its old contents are never read. `out_size`: bytes per output element when the
    output's dtype is not the inputs' (a comparison writes bool, 1 B)."""

    def cost(args: OpArgs) -> Cost | None:
        dims = args.dims
        out_at = (
            arity if arity is not None and len(dims) > arity and _is_tensor(dims[arity]) else None
        )
        if out_at is not None or overwrites:
            # the destination's bytes are its write; the other arguments are read
            at = 0 if overwrites else out_at
            assert at is not None
            written = _numel(dims[at]) * _size(args, at)
            rest = OpArgs(dims[:at] + dims[at + 1 :], args.types[:at] + args.types[at + 1 :], [])
            elements = _numel(dims[at]) if overwrites else _elements(rest, family)
            if elements is None:
                return None
            return Cost(flops_per * elements, _tensor_bytes(rest) + written, family, _dtype(args))
        elements = _elements(args, family)
        if elements is None:
            return None
        size = out_size or DTYPE_BYTES[_dtype(args)]
        out_bytes = elements * size * writes if family != "reduction" else 0
        return Cost(flops_per * elements, _tensor_bytes(args) + out_bytes, family, _dtype(args))

    return cost


def _elements(args: OpArgs, family: str) -> int | None:
    """The elements an elementwise op or reduction works on: the broadcast shape of its
    tensors (the largest for a reduction), or the first list's total for `_foreach_*`."""
    tensors = _tensors(args)
    lists = [
        s for d in args.dims if isinstance(d, list) and d and isinstance(d[0], list) for s in d
    ]
    if lists:  # _foreach_* ops: one tensor list per operand; the first is the output
        return sum(_numel(s) for s in args.dims[0] if isinstance(s, list))
    if family == "optimizer":  # a list op whose lists' shapes were not recorded
        return None
    if not tensors:
        return None
    shape = _broadcast(tensors) if family == "elementwise" else max(tensors, key=_numel)
    return _numel(shape) if shape is not None else max(_numel(t) for t in tensors)


def free(args: OpArgs) -> Cost:
    return Cost(0.0, 0.0, "view/alloc", _dtype(args))
