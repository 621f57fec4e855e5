"""The Complexity page's per-layer formulas (complexity/formula_text.py), each evaluated by hand
for one layer and compared with what the counter (complexity/layer_formulas.py) gives that
layer; and seed 003's footprint intensity (complexity-tables' seed_footprint.csv) by hand."""

from __future__ import annotations

import importlib

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from generator.complexity.costs import LayerCost  # noqa: E402
from generator.complexity.formula_text import LAYER_RULES, STEP_FORMULA  # noqa: E402
from generator.complexity.walk import walk  # noqa: E402
from tests.helpers import REPO  # noqa: E402


def _one_layer(
    module: nn.Module, shape: tuple[int, ...], training: bool = True, input_grad: bool = True
) -> LayerCost:
    """The counter's row for `module` alone, on a meta input of `shape`."""
    model = nn.Sequential(module).to("meta")
    x = torch.empty(shape, device="meta", requires_grad=input_grad)
    layers, _, _ = walk(model, x, training)
    (layer,) = layers
    return layer


@pytest.mark.parametrize("groups", [1, 64])
@pytest.mark.parametrize("bias", [False, True])
def test_a_3x3_convolution_64_to_64_on_56x56(groups: int, bias: bool) -> None:
    """MACs = N · Cout · Ho·Wo · (Cin/g) · kh·kw; FLOPs = 2 MACs + b · N·Cout·Ho·Wo; the
    input gradient 2 MACs, the weight gradient 2 MACs + b · N·Cout·Ho·Wo. Groups 64 is the
    depthwise case: N · C · Ho·Wo · kh·kw."""
    n, c_in, c_out, h_o, w_o, k_h, k_w = 1, 64, 64, 56, 56, 3, 3
    b = 1 if bias else 0
    layer = _one_layer(
        nn.Conv2d(c_in, c_out, 3, padding=1, groups=groups, bias=bias), (1, 64, 56, 56)
    )
    macs = n * c_out * h_o * w_o * (c_in // groups) * k_h * k_w
    assert macs == {1: 115_605_504, 64: 1_806_336}[groups]
    outputs = n * c_out * h_o * w_o
    assert layer.forward_macs == macs
    assert layer.forward_flops == 2 * macs + b * outputs
    assert layer.backward_input_flops == 2 * macs
    assert layer.backward_weight_flops == 2 * macs + b * outputs
    assert layer.params == c_out * (c_in // groups) * k_h * k_w + b * c_out


def test_the_first_layer_has_no_input_gradient() -> None:
    layer = _one_layer(nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False), (1, 3, 224, 224),
                       input_grad=False)  # fmt: skip
    macs = 1 * 64 * 112 * 112 * 3 * 7 * 7
    assert layer.backward_input_flops == 0
    assert layer.backward_weight_flops == 2 * macs


def test_a_transposed_convolution_scatters_each_input() -> None:
    """MACs = N · Cin · H·W · (Cout/g) · kh·kw, over the input's spatial size."""
    layer = _one_layer(nn.ConvTranspose2d(32, 16, 2, stride=2, bias=False), (2, 32, 14, 14))
    macs = 2 * 32 * 14 * 14 * 16 * 2 * 2
    assert layer.forward_macs == macs and layer.forward_flops == 2 * macs


def test_a_linear_layer_on_tokens() -> None:
    """MACs = R · n_in · n_out with R = batch × tokens; FLOPs = 2 MACs + b · R · n_out."""
    r, n_in, n_out = 2 * 128, 768, 3072
    layer = _one_layer(nn.Linear(n_in, n_out), (2, 128, n_in))
    macs = r * n_in * n_out
    assert layer.forward_flops == 2 * macs + r * n_out
    assert layer.backward_input_flops == 2 * macs
    assert layer.backward_weight_flops == 2 * macs + r * n_out


def test_pooling() -> None:
    """Max: (kh·kw - 1) compares per output, backward one per output; average: kh·kw per
    output both ways; adaptive average: one per input element both ways."""
    outputs = 1 * 64 * 56 * 56
    max_pool = _one_layer(nn.MaxPool2d(3, stride=2, padding=1), (1, 64, 112, 112))
    assert max_pool.forward_flops == (3 * 3 - 1) * outputs
    assert max_pool.backward_input_flops == outputs
    average = _one_layer(nn.AvgPool2d(2), (1, 64, 112, 112))
    assert average.forward_flops == 2 * 2 * outputs
    assert average.backward_input_flops == 2 * 2 * outputs
    adaptive = _one_layer(nn.AdaptiveAvgPool2d(1), (1, 512, 7, 7))
    assert adaptive.forward_flops == adaptive.backward_input_flops == 512 * 7 * 7


def test_batch_norm_and_activations() -> None:
    """Batch norm: 6 n training, 2 n inference, input gradient 7 n, γ and β 3 n; ReLU 1 n
    and 1 n; GELU 5 n and 9 n (n output elements)."""
    n = 1 * 64 * 56 * 56
    train = _one_layer(nn.BatchNorm2d(64), (1, 64, 56, 56))
    assert (train.forward_flops, train.backward_input_flops, train.backward_weight_flops) == (
        6 * n,
        7 * n,
        3 * n,
    )
    assert _one_layer(nn.BatchNorm2d(64), (1, 64, 56, 56), training=False).forward_flops == 2 * n
    relu = _one_layer(nn.ReLU(), (1, 64, 56, 56))
    assert (relu.forward_flops, relu.backward_input_flops) == (n, n)
    gelu = _one_layer(nn.GELU(), (1, 64, 56, 56))
    assert (gelu.forward_flops, gelu.backward_input_flops) == (5 * n, 9 * n)


def test_each_formula_names_functions_that_exist() -> None:
    for rule in LAYER_RULES:
        for name in rule.implemented_by.split("(")[0].split(","):
            module, function = name.strip().split(".")
            found = importlib.import_module(f"generator.complexity.{module}")
            assert hasattr(found, function), rule.implemented_by


def test_the_complexity_page_shows_each_formula_beside_its_function() -> None:
    pytest.importorskip("altair")
    from markupsafe import Markup, escape

    from generator.pages.complexity import complexity_page
    from generator.records.complexity_tables import read_tables

    page = complexity_page(read_tables(REPO / "measurements" / "complexity"))
    assert page is not None
    md = page.markdown
    assert "## How each layer is counted" in md
    assert "assets/mathjax/MathJax.js" in md  # the page loads MathJax for its formulas
    for rule in LAYER_RULES:
        forward = escape(rule.forward) + Markup("\\)</td><td>\\(") + escape(rule.backward_input)
        assert forward + Markup("\\)</td><td>\\(") + escape(rule.backward_weight) in md
        if rule.macs:
            row = escape(rule.layer) + Markup("</td><td>\\(") + escape(rule.macs)
            assert row + Markup("\\)<br>\\(") + forward in md, rule.layer
        assert Markup("<code>") + escape(rule.implemented_by) in md
        if rule.seed_000:
            seed = escape(rule.seed_000) + Markup("\\)</td><td>") + escape(rule.difference)
            assert seed in md, rule.layer
    assert f"\\({STEP_FORMULA}\\)" in md


def test_seed_003s_footprint_intensity_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """ResNet-18 at batch 1, inference: 11,689,512 fp32 parameters (46.76 MB), a 3×224×224
    fp32 input (602,112 B) and every layer's output once; seed 003's intensity divides the
    forward FLOPs by their sum, ours by the pass's minimal traffic."""
    from generator.complexity import tables
    from generator.complexity.analyze import analyze

    monkeypatch.setattr(tables, "SEED_003_MODELS", ("resnet18",))
    one, sixty_four, _ = tables.seed_footprint_rows()
    assert (one["model"], one["batch"]) == ("resnet18", 1)
    assert one["parameter_bytes"] == 11_689_512 * 4
    assert one["input_bytes"] == 3 * 224 * 224 * 4
    inference = analyze("resnet18", (3, 224, 224), 1, 1000, training=False)
    outputs = sum(layer.output_elements for layer in inference.layers if layer.saves_activation)
    assert one["activation_bytes"] == 4 * outputs
    footprint = 11_689_512 * 4 + 3 * 224 * 224 * 4 + 4 * outputs
    assert one["footprint_bytes"] == footprint
    assert one["footprint_intensity"] == pytest.approx(inference.forward_flops / footprint)
    assert one["min_traffic_intensity"] == pytest.approx(
        inference.forward_flops / inference.min_traffic_bytes
    )
    assert one["footprint_intensity"] > one["min_traffic_intensity"]  # each tensor once
    # the parameters do not grow with the batch; the input and activations do, 64 times
    assert sixty_four["parameter_bytes"] == one["parameter_bytes"]
    assert sixty_four["input_bytes"] == 64 * one["input_bytes"]
    assert sixty_four["activation_bytes"] == 64 * one["activation_bytes"]


def test_the_complexity_page_shows_seed_003s_ten_models() -> None:
    pytest.importorskip("altair")
    from generator.complexity.tables import MODEL_TABLE_BATCHES, SEED_003_MODELS
    from generator.formatting import number
    from generator.pages.complexity import complexity_page
    from generator.records.complexity_tables import read_tables

    tables = read_tables(REPO / "measurements" / "complexity")
    frame = tables.frames["seed_footprint.csv"]
    assert sorted(zip(frame["model"], frame["batch"], strict=True)) == sorted(
        (m, b) for m in SEED_003_MODELS for b in MODEL_TABLE_BATCHES
    )
    page = complexity_page(tables)
    assert page is not None
    assert "## Seed 003's footprint intensity" in page.markdown
    vgg = frame.filter((frame["model"] == "vgg16") & (frame["batch"] == 64)).to_dicts()[0]
    parts = vgg["parameter_bytes"] + vgg["input_bytes"] + vgg["activation_bytes"]
    assert vgg["footprint_bytes"] == parts
    assert vgg["footprint_intensity"] == pytest.approx(vgg["forward_flops"] / parts)
    cells = "</td><td>".join(
        [number(vgg["footprint_intensity"], 3), number(vgg["min_traffic_intensity"], 3)]
    )
    assert "<td>vgg16</td><td>64</td>" in page.markdown and cells in page.markdown
