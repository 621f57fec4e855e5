"""FLOPs and minimal bytes of an aten op from the shapes and dtypes record_shapes wrote.

Conventions are the complexity counter's (generator.complexity.conventions): a matmul is
2·M·K·N (bias and alpha/beta not counted), a convolution 2 · its MACs, everything else its
per-element constants. Minimal bytes are every input tensor read once and every output
written once, at the recorded dtype: a lower bound on the traffic, so AI is an upper bound.
An op whose shapes do not fit its formula gets no cost (it is reported as uncounted), never 0.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from generator.complexity.conventions import ELEMENTWISE
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
    """mm(a, b) / addmm(c, a, b) / bmm / baddbmm: operands start at `first`."""

    def cost(args: OpArgs) -> Cost | None:
        if len(args.dims) < first + 2:
            return None
        a, b = args.dims[first], args.dims[first + 1]
        rank = 3 if batched else 2
        if not (_is_tensor(a) and _is_tensor(b)) or len(a) != rank or len(b) != rank:
            return None
        m, k, n = a[-2], a[-1], b[-1]
        batch = a[0] if batched else 1
        size = DTYPE_BYTES[_dtype(args)]
        inputs = _tensor_bytes(args)
        return Cost(2.0 * batch * m * k * n, inputs + batch * m * n * size, "matmul", _dtype(args))

    return cost


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
    size = DTYPE_BYTES[_dtype(args)]
    return Cost(2.0 * macs, _tensor_bytes(args) + _numel(out) * size, "conv", _dtype(args))


def conv_backward(args: OpArgs) -> Cost | None:
    """convolution_backward(grad_output, input, weight, bias_sizes, ..., output_mask): the
    grad_output gives the output size; the mask (when recorded) says which gradients ran."""
    if len(args.dims) < 3 or not all(_is_tensor(args.dims[i]) for i in range(3)):
        return None
    grad, w = args.dims[0], args.dims[2]
    macs = _numel(grad) * w[1] * math.prod(w[2:])
    mask = _concrete(args, len(args.dims) - 1)
    grads = (
        [bool(m) for m in mask[:2]]
        if isinstance(mask, list | tuple) and len(mask) >= 2
        else [True, True]  # not recorded: input and weight gradients both assumed
    )
    size = DTYPE_BYTES[_dtype(args)]
    written = (_numel(args.dims[1]) if grads[0] else 0) + (_numel(w) if grads[1] else 0)
    return Cost(2.0 * macs * sum(grads), _tensor_bytes(args) + written * size, "conv", _dtype(args))


def attention(factor: float) -> Formula:
    """q [B, H, L, E], k [B, H, S, E], v [B, H, S, Ev]: QKᵀ and PV, 2·B·H·L·S·(E + Ev);
    backward recomputes P and forms four products: 2.5 × the forward."""

    def cost(args: OpArgs) -> Cost | None:
        if len(args.dims) < 3 or not all(_is_tensor(d) and len(d) == 4 for d in args.dims[:3]):
            return None
        first = 1 if factor > 1 else 0  # backward: grad_out comes first
        q, k, v = (args.dims[first + i] for i in range(3))
        if not all(_is_tensor(d) and len(d) == 4 for d in (q, k, v)):
            return None
        b, h, length, e = q
        s, ev = k[2], v[3]
        flops = factor * 2.0 * b * h * length * s * (e + ev)
        size = DTYPE_BYTES[_dtype(args)]
        out = b * h * length * ev * size
        return Cost(flops, _tensor_bytes(args) + out, "attention", _dtype(args))

    return cost


def per_element(flops_per: float, family: str, writes: int = 1) -> Formula:
    """Elementwise and reductions: FLOPs per element of the largest (broadcast) input."""

    def cost(args: OpArgs) -> Cost | None:
        tensors = _tensors(args)
        lists = [
            s for d in args.dims if isinstance(d, list) and d and isinstance(d[0], list) for s in d
        ]
        if lists:  # _foreach_* ops: one tensor list per operand; the first is the output
            elements = sum(_numel(s) for s in args.dims[0] if isinstance(s, list))
        elif tensors:
            shape = _broadcast(tensors) if family == "elementwise" else max(tensors, key=_numel)
            elements = _numel(shape) if shape is not None else max(_numel(t) for t in tensors)
        else:
            return None
        size = DTYPE_BYTES[_dtype(args)]
        out_bytes = elements * size * writes if family != "reduction" else 0
        return Cost(flops_per * elements, _tensor_bytes(args) + out_bytes, family, _dtype(args))

    return cost


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


def free(args: OpArgs) -> Cost:
    return Cost(0.0, 0.0, "view/alloc", _dtype(args))


def norm(kind: str, backward: bool) -> Formula:
    constants = ELEMENTWISE[kind]
    per = constants.backward_input + constants.backward_weight if backward else constants.forward
    return per_element(per, "norm")
