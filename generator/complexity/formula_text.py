"""The per-layer counting formulas as this project implements them, in TeX (MathJax on the
Complexity page), each beside the function that implements it and beside seed 000's Big-O
(§III.i) where the seed gives one. Data only, no torch: the page reads it without the counter.

tests/test_complexity_formulas.py evaluates each formula by hand for one layer and compares
it with the counter's output for that layer, so a change to layer_formulas.py or costs.py that
this text does not follow fails there.

Symbols: N batch; C, C_in, C_out channels; H × W an input's spatial size, H_o × W_o an
output's; k_h × k_w a kernel or window; g groups; b = 1 with a bias, else 0; R the rows of a
linear layer's input (batch × tokens); n_in, n_out its features; n a layer's output elements.
"""

from __future__ import annotations

from dataclasses import dataclass

OUTPUTS = r"N C_{out} H_o W_o"


@dataclass(frozen=True)
class LayerRule:
    """One layer type's FLOPs: forward, the input gradient and the weight gradient."""

    layer: str
    macs: str  # TeX, without delimiters; "" for a layer without multiply-accumulates
    forward: str
    backward_input: str
    backward_weight: str
    implemented_by: str  # module.function in generator/complexity/
    seed_000: str = ""  # seed 000's formula (TeX); "" where it gives none
    difference: str = ""  # how ours differs from it, in words


LAYER_RULES: tuple[LayerRule, ...] = (
    LayerRule(
        "Convolution (groups g)",
        r"\mathrm{MACs} = N \cdot C_{out} \cdot H_o W_o \cdot \frac{C_{in}}{g} \cdot k_h k_w",
        rf"2\,\mathrm{{MACs}} + b\,{OUTPUTS}",
        r"2\,\mathrm{MACs}",
        rf"2\,\mathrm{{MACs}} + b\,{OUTPUTS}",
        "layer_formulas._conv, costs.mac_layer",
        r"\Theta(B \times H_o \times W_o \times C_{out} \times (K^2 \times C_{in} / g))",
        "the same MACs, as an order of growth; ours counts 2 FLOPs per MAC, the bias, and "
        "kh·kw for a non-square kernel",
    ),
    LayerRule(
        "Depthwise convolution (g = Cin = Cout = C)",
        r"\mathrm{MACs} = N \cdot C \cdot H_o W_o \cdot k_h k_w",
        r"2\,\mathrm{MACs} + b\,N C H_o W_o",
        r"2\,\mathrm{MACs}",
        r"2\,\mathrm{MACs} + b\,N C H_o W_o",
        "layer_formulas._conv (the same formula at g = C)",
        r"\Theta(B \times H_o \times W_o \times C_{out} \times K^2)",
        "the seed's formula at g = Cin: the same MACs",
    ),
    LayerRule(
        "Transposed convolution",
        r"\mathrm{MACs} = N \cdot C_{in} \cdot H W \cdot \frac{C_{out}}{g} \cdot k_h k_w",
        rf"2\,\mathrm{{MACs}} + b\,{OUTPUTS}",
        r"2\,\mathrm{MACs}",
        rf"2\,\mathrm{{MACs}} + b\,{OUTPUTS}",
        "layer_formulas._conv (transposed: each input element scatters)",
    ),
    LayerRule(
        "Linear (fully connected)",
        r"\mathrm{MACs} = R \cdot n_{in} \cdot n_{out}",
        r"2\,\mathrm{MACs} + b\,R\,n_{out}",
        r"2\,\mathrm{MACs}",
        r"2\,\mathrm{MACs} + b\,R\,n_{out}",
        "layer_formulas._linear, costs.mac_layer",
        r"\Theta(B \times N_{in} \times N_{out})",
        "the same MACs with R = B; ours counts 2 FLOPs per MAC and the bias, and R = batch × "
        "tokens for a transformer",
    ),
    LayerRule(
        "Max pooling (kh × kw window)",
        "",
        r"(k_h k_w - 1) \cdot N C H_o W_o \text{ compares}",
        r"N C H_o W_o \text{ (each gradient to its maximum)}",
        "0",
        "layer_formulas._pool",
        r"\Theta(B \times H_o \times W_o \times C \times K^2)",
        "ours counts kh·kw − 1 compares per output (the first element needs none), and the "
        "backward pass",
    ),
    LayerRule(
        "Average pooling (kh × kw window)",
        "",
        r"k_h k_w \cdot N C H_o W_o",
        r"k_h k_w \cdot N C H_o W_o",
        "0",
        "layer_formulas._pool",
        r"\Theta(B \times H_o \times W_o \times C \times K^2)",
        "the same count, as an order of growth; ours adds the backward pass",
    ),
    LayerRule(
        "Adaptive average / max pooling",
        "",
        r"N C H W \text{ (each input element once)}",
        r"N C H W \text{ (average)},\quad 0 \text{ (max)}",
        "0",
        "layer_formulas._pool, layer_formulas.elementwise",
    ),
    LayerRule(
        "Batch norm",
        "",
        r"6\,n \text{ (training)},\quad 2\,n \text{ (inference: } x s + t\text{)}",
        r"7\,n",
        r"3\,n \text{ (}\gamma, \beta\text{)}",
        "layer_formulas.module_cost, layer_formulas.elementwise (conventions.ELEMENTWISE)",
    ),
    LayerRule(
        "Activation (ReLU, GELU, SiLU, …)",
        "",
        r"c_f \cdot n \text{ (ReLU } c_f = 1\text{, GELU 5)}",
        r"c_b \cdot n \text{ (ReLU } c_b = 1\text{, GELU 9)}",
        "0",
        "layer_formulas.elementwise (constants: conventions.ELEMENTWISE, table below)",
    ),
)

STEP_FORMULA = r"\text{step} = \sum_{\text{layers}} (F + B_{in} + B_{w}) + \text{loss} + u \cdot P"
STEP_SEED_000 = r"\text{step} \approx 3 \times \text{forward}"
