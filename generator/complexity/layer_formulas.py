"""Analytic cost of one leaf module from its real input and output shapes."""

from __future__ import annotations

from math import prod
from typing import Any

from torch import nn

from generator.complexity.conventions import ELEMENTWISE
from generator.complexity.costs import LayerCost, mac_layer, numel

# Class name → ELEMENTWISE key. Subclasses come before their bases (ReLU6 is a Hardtanh).
_ACTIVATIONS: list[tuple[type[nn.Module], str]] = [
    (nn.ReLU6, "relu6"),
    (nn.ReLU, "relu"),
    (nn.Hardtanh, "hardtanh"),
    (nn.Hardswish, "hardswish"),
    (nn.Hardsigmoid, "hardsigmoid"),
    (nn.Sigmoid, "sigmoid"),
    (nn.SiLU, "silu"),
    (nn.Tanh, "tanh"),
    (nn.GELU, "gelu"),
    (nn.Softmax, "softmax"),
    (nn.LogSoftmax, "log_softmax"),
]
_RESHAPES = ("Flatten", "Unflatten", "Identity", "Permute")


def _own_params(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters(recurse=False))


def elementwise(cost: LayerCost, key: str, training: bool) -> LayerCost:
    rule = ELEMENTWISE[key]
    elements = cost.input_elements if rule.per == "input element" else cost.output_elements
    per_forward = rule.forward if training or rule.forward_eval is None else rule.forward_eval
    cost.forward_flops = per_forward * elements
    if cost.needs_input_grad:
        cost.backward_input_flops = rule.backward_input * elements
    if cost.params:
        cost.backward_weight_flops = rule.backward_weight * elements
    cost.formula = f"{key}: {per_forward:g} FLOP per {rule.per}"
    return cost


def _kernel_volume(size: Any, dims: int) -> int:
    if isinstance(size, int):
        return int(size**dims)
    return prod(int(s) for s in size)


def _conv(cost: LayerCost, module: nn.modules.conv._ConvNd) -> LayerCost:
    # weight: (Cout, Cin/g, *k), or (Cin, Cout/g, *k) when transposed
    _, per_group, *kernel = (int(d) for d in module.weight.shape)
    groups = module.groups
    bias = module.bias is not None
    # every parameter, so that a weight-normed conv counts its g and v, not the weight
    cost.params = sum(int(p.numel()) for p in module.parameters())
    window = prod(kernel)
    if module.transposed:
        # Every input element scatters into Cout/g · k outputs.
        macs = cost.input_elements * per_group * window
    else:
        macs = cost.output_elements * per_group * window
    cost.family = "conv"
    cost.formula = (
        f"MACs = N·Cout·H'W'·(Cin/g)·k, groups={groups}, k={'x'.join(map(str, kernel))}"
        + (", bias" if bias else "")
    )
    return mac_layer(cost, macs, cost.output_elements if bias else 0, weight_grad=True)


def _linear(cost: LayerCost, module: nn.Module) -> LayerCost:
    """nn.Linear, and transformers' Conv1D (GPT-2): the same product, weight transposed."""
    bias = getattr(module, "bias", None) is not None
    if isinstance(module, nn.Linear):
        in_features, out_features = module.in_features, module.out_features
    else:
        in_features, out_features = (int(d) for d in module.weight.shape)
    cost.params = in_features * out_features + (out_features if bias else 0)
    macs = cost.output_elements * in_features
    cost.family = "linear"
    cost.formula = "MACs = rows·in·out" + (", bias" if bias else "")
    return mac_layer(cost, macs, cost.output_elements if bias else 0, weight_grad=True)


def _attention(cost: LayerCost, module: nn.MultiheadAttention, args: tuple[Any, ...]) -> LayerCost:
    """Projections (q, k, v, out) plus Q·Kᵀ and P·V, softmax over every score."""
    query, key = args[0], args[1]
    embed, heads = module.embed_dim, module.num_heads
    if module.batch_first:
        batch, target, _ = query.shape
        source = key.shape[1]
    else:
        target, batch, _ = query.shape
        source = key.shape[0]
    kdim, vdim = module.kdim, module.vdim
    projection_macs = batch * (target * embed * embed + source * embed * (kdim + vdim))
    out_macs = batch * target * embed * embed
    score_macs = batch * target * source * embed  # Q·Kᵀ summed over heads
    mix_macs = batch * target * source * embed  # P·V
    scores = batch * heads * target * source
    biases = (batch * (target + 2 * source) * embed if module.in_proj_bias is not None else 0) + (
        batch * target * embed if module.out_proj.bias is not None else 0
    )
    softmax = ELEMENTWISE["softmax"]
    dropout = module.dropout > 0 and module.training
    cost.params = _own_params(module) + _own_params(module.out_proj)
    cost.family = "attention"
    cost.formula = "MACs = q,k,v,out projections + L·S·E (Q·Kᵀ) + L·S·E (P·V); softmax per score"
    cost.forward_macs = projection_macs + out_macs + score_macs + mix_macs
    cost.forward_flops = (
        2 * cost.forward_macs
        + softmax.forward * scores
        + batch * target * embed  # the 1/√d scaling of q
        + biases
        + (scores if dropout else 0)
    )
    # Q·Kᵀ and P·V need gradients for both operands; every projection needs its dgrad
    # only if its input needs one.
    input_side = projection_macs if cost.needs_input_grad else 0
    cost.backward_input_macs = input_side + out_macs + 2 * (score_macs + mix_macs)
    cost.backward_input_flops = (
        2 * cost.backward_input_macs + softmax.backward_input * scores + (scores if dropout else 0)
    )
    cost.backward_weight_macs = projection_macs + out_macs
    cost.backward_weight_flops = 2 * cost.backward_weight_macs + biases
    return cost


def _pool(cost: LayerCost, module: nn.Module) -> LayerCost:
    name = type(module).__name__
    cost.family = "pool"
    if name.startswith("Adaptive"):
        return elementwise(
            cost, "adaptive_avg_pool" if "Avg" in name else "adaptive_max_pool", True
        )
    dims = len(cost.output_shape) - 2
    window = _kernel_volume(module.kernel_size, dims)  # type: ignore[arg-type]
    if "Max" in name:
        cost.forward_flops = (window - 1) * cost.output_elements
        backward = cost.output_elements
        cost.formula = f"max over a {window}-element window: {window - 1} compares per output"
    else:
        cost.forward_flops = window * cost.output_elements
        backward = window * cost.output_elements
        cost.formula = f"mean of a {window}-element window: {window} FLOP per output"
    cost.backward_input_flops = backward if cost.needs_input_grad else 0
    return cost


def module_cost(
    cost: LayerCost, module: nn.Module, args: tuple[Any, ...], training: bool
) -> LayerCost:
    """Fill `cost` (shapes already set) for a leaf module; unknown types keep zero FLOPs
    and say so in their notes."""
    if isinstance(module, nn.modules.conv._ConvNd):
        return _conv(cost, module)
    if isinstance(module, nn.Linear) or _is_conv1d(module):
        return _linear(cost, module)
    if isinstance(module, nn.MultiheadAttention):
        return _attention(cost, module, args)
    cost.params = _own_params(module)
    if isinstance(module, nn.modules.batchnorm._BatchNorm):
        cost.family = "norm"
        use_batch_stats = training or not module.track_running_stats
        return elementwise(cost, "batch_norm", use_batch_stats)
    if isinstance(module, nn.LayerNorm):
        cost.family = "norm"
        return elementwise(cost, "layer_norm", True)
    if isinstance(module, nn.GroupNorm):
        cost.family = "norm"
        return elementwise(cost, "group_norm", True)
    for activation, key in _ACTIVATIONS:
        if isinstance(module, activation):
            cost.family = "activation"
            if getattr(module, "inplace", False):
                cost.saves_activation = False
            return elementwise(cost, key, training)
    if isinstance(module, nn.modules.dropout._DropoutNd):
        cost.family = "dropout"
        return elementwise(cost, "dropout", training)
    if type(module).__name__ == "StochasticDepth":
        cost.family = "dropout"
        return elementwise(cost, "stochastic_depth", training)
    if isinstance(module, nn.modules.pooling._MaxPoolNd | nn.modules.pooling._AvgPoolNd) or type(
        module
    ).__name__.startswith("Adaptive"):
        return _pool(cost, module)
    if isinstance(module, nn.Embedding):
        cost.family = "embedding"
        cost.needs_input_grad = False  # indices have no gradient
        return elementwise(cost, "embedding", training)
    if type(module).__name__ in _RESHAPES:
        cost.family = "reshape"
        cost.saves_activation = False
        cost.formula = "moves or views data: 0 FLOP"
        return cost
    cost.family = "other"
    cost.notes.append(f"no formula for {type(module).__name__}: counted as 0 FLOP")
    return cost


def _is_conv1d(module: nn.Module) -> bool:
    """transformers' Conv1D: a linear layer with a (in, out) weight, despite the name."""
    return type(module).__name__ == "Conv1D" and hasattr(module, "nf")


_FORMULA_TYPES: tuple[type[nn.Module], ...] = (
    nn.modules.conv._ConvNd,
    nn.Linear,
    nn.MultiheadAttention,
    nn.modules.batchnorm._BatchNorm,
    nn.LayerNorm,
    nn.GroupNorm,
    *(activation for activation, _ in _ACTIVATIONS),
    nn.modules.dropout._DropoutNd,
    nn.modules.pooling._MaxPoolNd,
    nn.modules.pooling._AvgPoolNd,
    nn.Embedding,
)


def has_formula(module: nn.Module) -> bool:
    """Whether module_cost has a formula for this leaf (else it counts 0 FLOP)."""
    name = type(module).__name__
    return (
        isinstance(module, _FORMULA_TYPES)
        or _is_conv1d(module)
        or name in (*_RESHAPES, "StochasticDepth")
        or name.startswith("Adaptive")
    )


def shape_of(value: Any) -> tuple[int, ...]:
    shape = getattr(value, "shape", None)
    return tuple(int(s) for s in shape) if shape is not None else ()


def elements_of(value: Any) -> int:
    return numel(shape_of(value)) if hasattr(value, "shape") else 0
