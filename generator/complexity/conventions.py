"""What counts as a FLOP: the project's conventions, as data (the methodology page prints them).

Multiply-accumulate layers (convolution, linear, matmul, attention) count MACs, and
FLOPs = 2 · MACs. Everything else counts one FLOP per arithmetic operation of the
textbook algorithm per element (add, multiply, divide, compare, and one per
transcendental such as exp, erf, sqrt), as fvcore and ptflops do in spirit; their exact
constants differ (fvcore counts a training-mode norm as 5 per element), which is why the
constants are printed with every report rather than hidden.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ElementwiseCost:
    """FLOPs per element (of the output unless `per` says otherwise)."""

    forward: float
    backward_input: float
    backward_weight: float = 0.0
    forward_eval: float | None = None  # when inference differs from training
    per: str = "output element"
    basis: str = ""


ELEMENTWISE: dict[str, ElementwiseCost] = {
    "batch_norm": ElementwiseCost(
        6,
        7,
        3,
        forward_eval=2,
        basis="train, two passes over the channel: mean 1 (add) + variance 3 (sub, square, add); "
        "then γ·(x - μ)/σ + β folds per channel into one scale and shift, x·s + t: 2 (one fma). "
        "Eval uses the running statistics: x·s + t, 2. Backward: x̂ 2 + two reductions 2 + "
        "combine 3; dγ, dβ 3",
    ),
    "layer_norm": ElementwiseCost(
        7,
        7,
        3,
        basis="mean 1 + variance 3 (sub, square, add) as batch norm; the statistics are per row "
        "and γ, β per feature, so they do not fold: x̂ = d·(1/σ) 1 (d = x - μ kept from the "
        "variance pass) + γ·x̂ + β 2 (one fma)",
    ),
    "group_norm": ElementwiseCost(
        7, 7, 3, basis="as layer norm (statistics per group, γ, β per channel)"
    ),
    "relu": ElementwiseCost(1, 1, basis="max(x, 0); backward: mask"),
    "relu6": ElementwiseCost(2, 1, basis="min(max(x, 0), 6); backward: mask"),
    "hardtanh": ElementwiseCost(2, 1, basis="two clamps; backward: mask"),
    "hardswish": ElementwiseCost(5, 4, basis="x · clamp(x + 3, 0, 6) / 6: add, 2 clamps, mul, div"),
    "hardsigmoid": ElementwiseCost(4, 1, basis="clamp(x + 3, 0, 6) / 6"),
    "sigmoid": ElementwiseCost(4, 2, basis="neg, exp, add, div; backward y(1-y)"),
    "silu": ElementwiseCost(4, 7, basis="x / (1 + exp(-x)): neg, exp, add, div (the minimum)"),
    "tanh": ElementwiseCost(1, 2, basis="one transcendental; backward 1 - y²"),
    "gelu": ElementwiseCost(
        5, 9, basis="x · Φ(x): scale, erf, add, mul, mul; backward recomputes Φ and φ"
    ),
    "softmax": ElementwiseCost(5, 4, basis="max, sub, exp, sum, div; backward y(dy - Σ y dy)"),
    "log_softmax": ElementwiseCost(5, 3, basis="max, sub, exp, sum, log-sub"),
    "dropout": ElementwiseCost(
        1, 1, forward_eval=0, basis="multiply by the scaled mask (training only)"
    ),
    "stochastic_depth": ElementwiseCost(
        1, 1, forward_eval=0, basis="multiply by a per-sample mask (training only)"
    ),
    "add": ElementwiseCost(1, 0, basis="one add; the gradient passes through unchanged"),
    "mul": ElementwiseCost(1, 1, basis="one multiply; backward one multiply per operand"),
    "div": ElementwiseCost(1, 2, basis="one divide; backward: two ops per operand"),
    "adaptive_avg_pool": ElementwiseCost(
        1, 1, per="input element", basis="sum every input element, divide per output"
    ),
    "adaptive_max_pool": ElementwiseCost(1, 0, per="input element", basis="compare"),
    "cross_entropy": ElementwiseCost(
        6, 2, per="logit", basis="log-softmax 5 + pick/negate 1; backward softmax - one-hot"
    ),
    "embedding": ElementwiseCost(0, 0, 1, basis="a lookup; backward scatter-adds rows"),
    "interpolate": ElementwiseCost(
        7,
        8,
        basis="bilinear: 4 weighted neighbours (4 mul + 3 add); backward scatters 4 weighted "
        "gradients (4 mul + 4 add)",
    ),
}


@dataclass(frozen=True)
class OptimizerCost:
    flops_per_param: int
    accesses_per_param: int  # parameter-sized fp32 reads + writes
    basis: str


OPTIMIZERS: dict[str, OptimizerCost] = {
    "sgd": OptimizerCost(2, 3, "p -= lr·g: mul, sub; read p, g, write p"),
    "sgd-momentum": OptimizerCost(4, 5, "b = μ·b + g; p -= lr·b: 2 + 2; read p, g, b, write p, b"),
    "adam": OptimizerCost(
        13,
        7,
        "m: 3, v: 4, denominator √v̂ + ε: 3, p -= lr·m̂/denominator: 3; "
        "read p, g, m, v, write p, m, v",
    ),
}

BYTES_PER_ELEMENT: dict[str, int] = {
    "fp32": 4,
    "tf32": 4,
    "bf16-amp": 2,
    "fp16-amp": 2,
}
