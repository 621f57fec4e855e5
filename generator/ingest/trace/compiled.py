"""Inductor's pointwise Triton kernels (`triton_poi_fused_<ops>_<n>`), costed from what the
trace records of them (PyTorch 2.4 and later record a compiled kernel's launch as an op with
its tensor arguments and, as its last concrete argument, `xnumel`: the elements it runs on).

A pointwise kernel applies each fused op once per element, so its FLOPs are the sum of the
ops' per-element constants (conventions.ELEMENTWISE and the op table's) times xnumel; its
name lists each op once, so an op the graph applies twice counts once: a lower bound. Its
minimal bytes are every tensor argument moved once (in_ptr read, out_ptr written), and
once more where the kernel must have written over an input (inductor's in_out_ptr): two
tensors of one size, a binary op among two or more that compute (`mul_silu`: silu(a)·b
needs both as inputs, so the product went over one: 2 reads + 1 write). A kernel
multiplying by a constant inlines it, so `mul` alone is not taken for that. Reduction kernels (`triton_red_*`,
`triton_per_*`) are not costed: their names do not say which ops run per element and which
per row.
"""

from __future__ import annotations

import re

from generator.complexity.conventions import ELEMENTWISE
from generator.ingest.trace.events import OpArgs
from generator.ingest.trace.formulas import DTYPE_BYTES, Cost, _concrete, _dtype, _is_tensor, _numel

POINTWISE = re.compile(r"triton_poi_fused_(.+)_\d+$")
# FLOPs per element of each op inductor names in a fused kernel; 0: data movement
FUSED_OP_FLOPS: dict[str, float] = {
    **dict.fromkeys(
        ("add", "sub", "rsub", "mul", "div", "neg", "abs", "exp", "exp2", "log", "log2",
         "sqrt", "rsqrt", "pow", "reciprocal", "sin", "cos", "eq", "ne", "lt", "gt", "le",
         "ge", "where", "maximum", "minimum", "clamp_min", "clamp_max", "sign", "floor",
         "ceil", "round", "bitwise_and", "bitwise_or", "bitwise_not", "logical_not",
         "logical_and", "logical_or", "remainder", "fmod", "erf", "lerp", "masked_fill"),
        1.0,
    ),
    "clamp": 2.0,
    **{name: ELEMENTWISE[name].forward for name in ("relu", "sigmoid", "tanh", "gelu", "silu", "hardtanh", "hardswish", "hardsigmoid")},
    "threshold_backward": ELEMENTWISE["relu"].backward_input,
    "sigmoid_backward": ELEMENTWISE["sigmoid"].backward_input,
    "tanh_backward": ELEMENTWISE["tanh"].backward_input,
    "gelu_backward": ELEMENTWISE["gelu"].backward_input,
    "silu_backward": ELEMENTWISE["silu"].backward_input,
    "native_dropout": ELEMENTWISE["dropout"].forward,
    **dict.fromkeys(
        ("view", "unsafe_view", "clone", "copy", "to_copy", "expand", "permute", "transpose",
         "t", "squeeze", "unsqueeze", "slice", "select", "cat", "stack", "embedding", "index",
         "full", "zeros", "ones", "fill", "constant_pad_nd", "lift_fresh", "split", "reshape",
         "alias", "scalar_tensor", "convert_element_type", "new_zeros", "empty", "arange",
         "iota", "split_with_sizes", "as_strided", "slice_scatter", "select_scatter",
         "view_as_real", "view_as_complex", "unbind", "detach", "zero"),
        0.0,
    ),
}  # fmt: skip
# ops that read two tensors when neither operand is a constant
BINARY = frozenset({"add", "sub", "rsub", "mul", "div", "maximum", "minimum", "pow", "where",
                    "lerp", "remainder", "fmod", "bitwise_and", "bitwise_or", "logical_and",
                    "logical_or"})  # fmt: skip
_LONGEST = max(name.count("_") + 1 for name in FUSED_OP_FLOPS)


def fused_ops(name: str) -> list[str] | None:
    """The ops a pointwise kernel's name lists (`_unsafe_view_add_mul_silu`), split into
    known names, longest first; None when the name is not a pointwise kernel's or holds an
    op with no per-element count."""
    match = POINTWISE.match(name)
    if match is None:
        return None
    tokens = [t for t in match.group(1).split("_") if t]
    found: list[str] = []
    at = 0
    while at < len(tokens):
        for width in range(min(_LONGEST, len(tokens) - at), 0, -1):
            candidate = "_".join(tokens[at : at + width])
            if candidate in FUSED_OP_FLOPS:
                found.append(candidate)
                at += width
                break
        else:
            return None  # an op we have no count for: uncounted, never guessed
    return found


def pointwise_kernel(name: str, args: OpArgs) -> Cost | None:
    ops = fused_ops(name)
    if ops is None:
        return None
    scalars = [_concrete(args, i) for i, d in enumerate(args.dims) if not _is_tensor(d)]
    xnumel = next((v for v in reversed(scalars) if isinstance(v, int)), None)
    tensors = [
        (d, args.types[i] if i < len(args.types) else "")
        for i, d in enumerate(args.dims)
        if _is_tensor(d)
    ]
    if xnumel is None or not tensors:
        return None
    sizes = [_numel(d) * DTYPE_BYTES.get(kind, DTYPE_BYTES[_dtype(args)]) for d, kind in tensors]
    moved = sum(sizes)
    computing = [op for op in ops if FUSED_OP_FLOPS[op] > 0]
    if (
        len(tensors) == 2
        and len({_numel(d) for d, _ in tensors}) == 1
        and len(computing) >= 2
        and any(op in BINARY for op in computing)
    ):
        moved += sizes[0]  # in_out_ptr0: read, then written over
    flops = sum(FUSED_OP_FLOPS[op] for op in ops) * xnumel
    return Cost(float(flops), float(moved), "compiled", _dtype(args))
