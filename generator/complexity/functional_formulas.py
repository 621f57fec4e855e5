"""Analytic cost of functional ops called outside leaf modules (residual adds, F.relu,
adaptive pooling in DenseNet and MobileNetV2, matmul and scaled-dot-product attention)."""

from __future__ import annotations

from typing import Any

from generator.complexity.conventions import ELEMENTWISE
from generator.complexity.costs import LayerCost, numel
from generator.complexity.layer_formulas import elementwise, shape_of
from generator.complexity.op_models import attended_pairs, attention_work, matmul_flops

_ELEMENTWISE_FUNCTIONS: dict[str, tuple[str, str]] = {
    # function name → (ELEMENTWISE key, family)
    **{
        n: ("add", "elementwise")
        for n in ("add", "__add__", "__radd__", "sub", "__sub__", "__rsub__")
    },
    **{n: ("mul", "elementwise") for n in ("mul", "__mul__", "__rmul__", "pow", "__pow__")},
    **{n: ("div", "elementwise") for n in ("div", "__truediv__", "__rtruediv__")},
    **{
        n: (n, "activation")
        for n in ("relu", "relu6", "gelu", "silu", "hardswish", "sigmoid", "tanh", "softmax")
    },
    "log_softmax": ("log_softmax", "activation"),
    "hardtanh": ("hardtanh", "activation"),
    "dropout": ("dropout", "dropout"),
    "layer_norm": ("layer_norm", "norm"),
    "batch_norm": ("batch_norm", "norm"),
    "group_norm": ("group_norm", "norm"),
    **{f"adaptive_avg_pool{d}d": ("adaptive_avg_pool", "pool") for d in (1, 2, 3)},
    **{f"adaptive_max_pool{d}d": ("adaptive_max_pool", "pool") for d in (1, 2, 3)},
}
_MATMULS = {"matmul", "__matmul__", "mm", "bmm", "addmm", "baddbmm"}
_ATTENTION = {"scaled_dot_product_attention"}

# Functions that only view, move or allocate data: 0 FLOP, nothing to record.
FREE_FUNCTIONS = frozenset(
    {
        "cat", "concat", "stack", "flatten", "reshape", "view", "view_as", "permute",
        "transpose", "t", "expand", "expand_as", "contiguous", "__getitem__", "chunk",
        "split", "unbind", "unsqueeze", "squeeze", "to", "clone", "detach", "narrow",
        "select", "repeat", "zeros_like", "ones_like", "empty_like", "__setitem__",
        "masked_fill", "pad", "type_as", "float", "half", "bfloat16", "unflatten", "tensor",
        "rand", "randn", "rand_like",
    }
)  # fmt: skip


def canonical_name(func: Any) -> str:
    name = str(getattr(func, "__name__", repr(func)))
    if name.startswith("__i") and name.endswith("__"):  # __iadd__ → __add__
        return "__" + name[3:]
    return name.rstrip("_") if not name.endswith("__") else name


def is_inplace(func: Any) -> bool:
    name = str(getattr(func, "__name__", ""))
    return (name.endswith("_") and not name.endswith("__")) or name.startswith("__i")


def function_cost(
    cost: LayerCost,
    name: str,
    args: tuple[Any, ...],
    training: bool,
    kwargs: dict[str, Any] | None = None,
) -> bool:
    """Fill `cost` for a known function; False when there is no formula for it."""
    if name == "interpolate":
        mode = (kwargs or {}).get("mode", args[3] if len(args) > 3 else "nearest")
        cost.family = "resample"
        if mode == "nearest":
            cost.formula = "nearest-neighbour copy: 0 FLOP"
            return True
        elementwise(cost, "interpolate", training)
        cost.formula += f" ({mode}, counted as bilinear)" if mode != "bilinear" else ""
        return True
    if name in _ELEMENTWISE_FUNCTIONS:
        key, family = _ELEMENTWISE_FUNCTIONS[name]
        cost.family = family
        elementwise(cost, key, training)
        if key in ("mul", "div"):
            needing = sum(1 for a in args if getattr(a, "requires_grad", False))
            cost.backward_input_flops = (
                ELEMENTWISE[key].backward_input * cost.output_elements * needing
            )
        return True
    if name in _MATMULS:
        left = args[1] if name in ("addmm", "baddbmm") else args[0]
        inner = shape_of(left)[-1]
        rows_columns = cost.output_elements  # batch · M · N
        # op_models counts the bias add of addmm and baddbmm (beta = 0 drops it)
        bias = name in ("addmm", "baddbmm") and (kwargs or {}).get("beta", 1) != 0
        cost.family = "matmul"
        cost.formula = "MACs = output elements · inner dimension" + (" + bias" if bias else "")
        cost.forward_macs = rows_columns * inner
        cost.forward_flops = matmul_flops(1, rows_columns, inner, 1, bias)
        needing = sum(1 for a in args[-2:] if getattr(a, "requires_grad", False))
        cost.backward_input_macs = cost.forward_macs * needing
        cost.backward_input_flops = matmul_flops(1, rows_columns, inner, 1, False) * needing
        return True
    if name in _ATTENTION:
        query, key_, value = (shape_of(a) for a in args[:3])
        options = kwargs or {}
        causal = bool(options.get("is_causal", args[5] if len(args) > 5 else False))
        heads_batch = numel(query[:-2])  # query heads: grouped-query K and V serve several
        target, depth = query[-2], query[-1]
        source, value_depth = key_[-2], value[-1]
        pairs = attended_pairs(target, source, causal)
        forward = attention_work(heads_batch, target, source, depth, value_depth, pairs, False)
        backward = attention_work(heads_batch, target, source, depth, value_depth, pairs, True)
        cost.family = "attention"
        cost.formula = "MACs = B·h·pairs·(E + Ev), pairs = L·S" + (
            " less the causal mask's" if causal else ""
        )
        cost.forward_macs = heads_batch * pairs * (depth + value_depth)
        cost.forward_flops = forward.flops
        cost.backward_input_macs = heads_batch * pairs * (3 * depth + 2 * value_depth)
        cost.backward_input_flops = backward.flops
        return True
    return False
