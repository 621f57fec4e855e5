"""Which aten op gets which formula: the table the attribution rule consults.

An op missing here has no formula: its time is reported as uncounted, never as zero FLOPs.
Views and allocations are here with a zero cost, so they are counted (as nothing) rather
than reported.
"""

from __future__ import annotations

import functools
import math

from generator.complexity.conventions import ELEMENTWISE
from generator.ingest.trace.compiled import pointwise_kernel
from generator.ingest.trace.events import OpArgs
from generator.ingest.trace.formulas import (
    AttentionSchema,
    Cost,
    Formula,
    attention,
    conv_backward,
    conv_forward,
    free,
    matmul,
    per_element,
    scaled_mm,
)
from generator.ingest.trace.lookups import (
    embedding,
    embedding_backward,
    embedding_bag,
    index_select,
)
from generator.ingest.trace.reductions import cat, mse_loss, nll_loss, norm, reduction
from generator.ingest.trace.tbe import is_tbe, lookup_cost

MATMUL = {
    "aten::mm": matmul(False, 0),
    "aten::addmm": matmul(False, 1),
    "aten::bmm": matmul(True, 0),
    "aten::baddbmm": matmul(True, 1),
    "aten::_addmm_activation": matmul(False, 1),
    "aten::_scaled_mm": scaled_mm,
}
CONV = {
    name: conv_forward
    for name in (
        "aten::convolution",
        "aten::_convolution",
        "aten::cudnn_convolution",
        "aten::mkldnn_convolution",
        "aten::miopen_convolution",
        "aten::convolution_overrideable",
        "aten::_slow_conv2d_forward",
        "aten::thnn_conv2d",
    )
} | {
    name: conv_backward
    for name in (
        "aten::convolution_backward",
        "aten::convolution_backward_overrideable",
        "aten::mkldnn_convolution_backward",
    )
}
# Each entry point's arguments (aten's native_functions.yaml): where q, k, v sit and what
# says which pairs the mask keeps.
_SDPA = True  # [B, H, L, E]
_FLASH = False  # [B, L, H, E]
ATTENTION = {
    name: attention(schema)
    for name, schema in {
        "aten::_scaled_dot_product_flash_attention": AttentionSchema(False, _SDPA, causal_at=4),
        "aten::_scaled_dot_product_flash_attention_for_cpu": AttentionSchema(
            False, _SDPA, causal_at=4
        ),
        "aten::_scaled_dot_product_efficient_attention": AttentionSchema(False, _SDPA, causal_at=6),
        "aten::_scaled_dot_product_cudnn_attention": AttentionSchema(False, _SDPA, causal_at=6),
        "aten::_flash_attention_forward": AttentionSchema(
            False, _FLASH, causal_at=8, window_at=(11, 12)
        ),
        "aten::_efficient_attention_forward": AttentionSchema(False, _FLASH, mask_type_at=9),
        "flash_attn::_flash_attn_forward": AttentionSchema(
            False, _FLASH, causal_at=5, window_at=(6, 7)
        ),
        "aten::_scaled_dot_product_flash_attention_backward": AttentionSchema(
            True, _SDPA, causal_at=11
        ),
        "aten::_scaled_dot_product_flash_attention_for_cpu_backward": AttentionSchema(
            True, _SDPA, causal_at=7
        ),
        "aten::_scaled_dot_product_efficient_attention_backward": AttentionSchema(
            True, _SDPA, causal_at=11
        ),
        "aten::_scaled_dot_product_cudnn_attention_backward": AttentionSchema(
            True, _SDPA, causal_at=14
        ),
        "aten::_flash_attention_backward": AttentionSchema(
            True, _FLASH, causal_at=11, window_at=(15, 16)
        ),
        "aten::_efficient_attention_backward": AttentionSchema(True, _FLASH, mask_type_at=14),
        "flash_attn::_flash_attn_backward": AttentionSchema(
            True, _FLASH, causal_at=11, window_at=(12, 13)
        ),
    }.items()
}
NORMS = {
    "aten::native_batch_norm": norm("batch_norm", False),
    "aten::_native_batch_norm_legit": norm("batch_norm", False),
    "aten::_native_batch_norm_legit_no_training": norm("batch_norm", False, False),
    "aten::cudnn_batch_norm": norm("batch_norm", False),
    "aten::miopen_batch_norm": norm("batch_norm", False),
    "aten::native_layer_norm": norm("layer_norm", False),
    "aten::native_group_norm": norm("group_norm", False),
    "aten::native_batch_norm_backward": norm("batch_norm", True),
    "aten::cudnn_batch_norm_backward": norm("batch_norm", True),
    "aten::miopen_batch_norm_backward": norm("batch_norm", True),
    "aten::native_layer_norm_backward": norm("layer_norm", True),
    "aten::native_group_norm_backward": norm("group_norm", True),
}
SOFTMAX = {
    "aten::_softmax": per_element(ELEMENTWISE["softmax"].forward, "softmax"),
    "aten::_log_softmax": per_element(ELEMENTWISE["log_softmax"].forward, "softmax"),
    "aten::_softmax_backward_data": per_element(ELEMENTWISE["softmax"].backward_input, "softmax"),
    "aten::_log_softmax_backward_data": per_element(
        ELEMENTWISE["log_softmax"].backward_input, "softmax"
    ),
}
EMBEDDING = {
    "aten::embedding": embedding,
    "aten::embedding_dense_backward": embedding_backward,
    "aten::index_select": index_select,
    "aten::_embedding_bag": embedding_bag,
    "aten::_embedding_bag_forward_only": embedding_bag,
    "aten::embedding_bag": embedding_bag,
}
LOSS = {
    "aten::mse_loss": mse_loss,
    "aten::mse_loss_backward": per_element(3, "loss"),
    "aten::nll_loss_forward": nll_loss(backward=False),
    "aten::nll_loss_backward": nll_loss(backward=True),
    "aten::nll_loss2d_forward": nll_loss(backward=False),
}
# name: (FLOPs per element, the functional schema's argument count: a tensor past it is
# an `out=` destination)
ELEMENTWISE_OPS = (
    {
        f"aten::{name}{suffix}": per_element(flops, "elementwise", arity=arity)
        for name, (flops, arity) in {
            "add": (1, 3),
            "sub": (1, 3),
            "rsub": (1, 3),
            "mul": (1, 2),
            "div": (1, 2),
            "neg": (1, 1),
            "abs": (1, 1),
            "relu": (ELEMENTWISE["relu"].forward, 1),
            "clamp": (2, 3),
            "clamp_min": (1, 2),
            "clamp_max": (1, 2),
            "hardtanh": (ELEMENTWISE["hardtanh"].forward, 3),
            "threshold_backward": (ELEMENTWISE["relu"].backward_input, 3),
            "hardtanh_backward": (ELEMENTWISE["hardtanh"].backward_input, 4),
            "sigmoid": (ELEMENTWISE["sigmoid"].forward, 1),
            "sigmoid_backward": (ELEMENTWISE["sigmoid"].backward_input, 2),
            "tanh": (ELEMENTWISE["tanh"].forward, 1),
            "tanh_backward": (ELEMENTWISE["tanh"].backward_input, 2),
            "gelu": (ELEMENTWISE["gelu"].forward, 2),
            "gelu_backward": (ELEMENTWISE["gelu"].backward_input, 3),
            "silu": (ELEMENTWISE["silu"].forward, 1),
            "silu_backward": (ELEMENTWISE["silu"].backward_input, 2),
            "hardswish": (ELEMENTWISE["hardswish"].forward, 1),
            "hardswish_backward": (ELEMENTWISE["hardswish"].backward_input, 2),
            "exp": (1, 1),
            "log": (1, 1),
            "sqrt": (1, 1),
            "rsqrt": (1, 1),
            "pow": (1, 2),
            "reciprocal": (1, 1),
            "addcmul": (2, 4),
            "addcdiv": (2, 4),
            "lerp": (2, 3),
            "where": (1, 3),
            "native_dropout": (ELEMENTWISE["dropout"].forward, 3),
            "native_dropout_backward": (ELEMENTWISE["dropout"].backward_input, 3),
            "masked_fill": (0, 3),
            "nan_to_num": (1, 4),
        }.items()
        for suffix in ("", "_")
    }
    | {
        # comparisons write bool, 1 B an element (in place, `eq_`, the input's dtype)
        f"aten::{name}": per_element(1, "elementwise", arity=2, out_size=1)
        for name in ("eq", "ne", "lt", "gt", "le", "ge")
    }
    | {
        f"aten::{name}_": per_element(1, "elementwise", arity=2)
        for name in ("eq", "ne", "lt", "gt", "le", "ge")
    }
)
# Memory ops: no FLOP, a known volume, so a bandwidth bound. copy_, fill_ and zero_ only
# write their destination; clone reads its input and writes a copy.
MEMORY = {
    "aten::copy_": per_element(0, "memory", overwrites=True),
    "aten::fill_": per_element(0, "memory", overwrites=True),
    "aten::zero_": per_element(0, "memory", overwrites=True),
    "aten::clone": per_element(0, "memory", arity=2),
    "aten::cat": cat,  # its dtype from the ops beside it (attribute.list_dtype)
}
REDUCTIONS = {
    # the output counted: the input with the dims at the argument given reduced away
    "aten::sum": reduction(1, promotes=True),
    "aten::mean": reduction(1),
    "aten::amax": reduction(1),
    "aten::amin": reduction(1),
    "aten::linalg_vector_norm": reduction(2),
} | {
    f"aten::{name}": per_element(1, "reduction")
    for name in (
        "max",
        "min",
        "norm",
        "cumsum",
        "var",
        "std",
        "var_mean",
        "argmax",
        "max_pool2d_with_indices",
        "avg_pool2d",
        "adaptive_avg_pool2d",
        "_adaptive_avg_pool2d",
        "_adaptive_avg_pool2d_backward",
        "max_pool2d_with_indices_backward",
        "avg_pool2d_backward",
    )
}
FOREACH = {
    f"aten::_foreach_{name}{suffix}": per_element(flops, "optimizer")
    for name, flops in {
        "add": 1,
        "sub": 1,
        "mul": 1,
        "div": 1,
        "addcmul": 2,
        "addcdiv": 2,
        "lerp": 2,
        "sqrt": 1,
        "neg": 1,
        "maximum": 1,
        "copy": 0,
        "zero": 0,
    }.items()
    for suffix in ("", "_")
} | {
    "aten::_fused_adam_": per_element(13, "optimizer"),
    "aten::_fused_adamw_": per_element(14, "optimizer"),
    "aten::_fused_sgd_": per_element(2, "optimizer"),
}
FREE = {
    f"aten::{name}": free
    for name in (
        "empty",
        "empty_strided",
        "empty_like",
        "zeros",
        "as_strided",
        "view",
        "_reshape_alias",
        "t",
        "transpose",
        "permute",
        "expand",
        "slice",
        "select",
        "unsqueeze",
        "squeeze",
        "detach",
        "alias",
        "resize_",
        "result_type",
        "lift_fresh",
        "unbind",
        "split",
        "chunk",
        "narrow",
        "numpy_T",
        "_unsafe_view",
        "set_",
        "record_stream",
    )
}

FORMULAS: dict[str, Formula] = (
    (MATMUL | CONV | ATTENTION | NORMS | SOFTMAX | EMBEDDING | LOSS)
    | ELEMENTWISE_OPS
    | MEMORY
    | REDUCTIONS
    | FOREACH
    | FREE
)
COMPILED_POINTWISE = "triton_poi_fused_"  # compiled.py: costed from their recorded arguments
# The families whose work runs on tensor cores when the GPU path allows it.
TENSOR_FAMILIES = frozenset({"matmul", "conv", "attention"})


def has_formula(name: str) -> bool:
    """Whether the op has a formula: in the table, an inductor pointwise kernel, or an
    FBGEMM table-batched embedding (tbe.py) whose optimizer has a model."""
    return name in FORMULAS or name.startswith(COMPILED_POINTWISE) or is_tbe(name)


def op_cost(name: str, args: OpArgs | None, tbe_width_cap: int | None = None) -> Cost | None:
    """The op's cost, or None when the table has no formula or the shapes do not fit it.
    A TBE op's `args` are its pair's (tbe.pair_args), `tbe_width_cap` its widest table's
    bound (tbe.width_caps)."""
    formula = FORMULAS.get(name)
    if formula is None and is_tbe(name):
        formula = functools.partial(lookup_cost, name, width_cap=tbe_width_cap)
    if args is None or (formula is None and not name.startswith(COMPILED_POINTWISE)):
        return None
    try:
        cost = formula(args) if formula is not None else pointwise_kernel(name, args)
    except (TypeError, ValueError, IndexError, KeyError, OverflowError, ZeroDivisionError):
        return None  # shapes of an unexpected form: uncounted, reported as such
    if cost is not None and not (math.isfinite(cost.flops) and math.isfinite(cost.bytes)):
        return None  # sizes beyond any real tensor
    return cost
