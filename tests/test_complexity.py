"""Analytic complexity against torchvision's published numbers, FlopCounterMode and a
brute-force count."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
import torch
import torchvision.models as tvm
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from generator.cli import main
from generator.complexity import analyze
from generator.complexity.flop_counter import corrected_conv_backward, flop_counter_summary
from generator.complexity.probes import flop_counter_probes
from generator.complexity.shortcuts import shortcut_rows
from generator.errors import UserError
from generator.models import DATASETS, MODELS
from tests.helpers import REPO

# torchvision's documentation, per weight: num_params and "GFLOPS" (which are GMACs) at 224.
PUBLISHED = {
    "resnet18": ("ResNet18_Weights", 11_689_512, 1.814),
    "resnet34": ("ResNet34_Weights", 21_797_672, 3.664),
    "resnet50": ("ResNet50_Weights", 25_557_032, 4.089),
    "mobilenet_v2": ("MobileNet_V2_Weights", 3_504_872, 0.301),
    "vit_b_16": ("ViT_B_16_Weights", 86_567_656, 17.564),
    "vgg16": ("VGG16_Weights", 138_357_544, 15.47),
    "alexnet": ("AlexNet_Weights", 61_100_840, 0.714),
    "densenet121": ("DenseNet121_Weights", 7_978_856, 2.834),
    "convnext_tiny": ("ConvNeXt_Tiny_Weights", 28_589_128, 4.456),
}


@pytest.mark.parametrize("model", PUBLISHED)
def test_published_table_is_torchvisions_own(model: str) -> None:
    weights, params, gmacs = PUBLISHED[model]
    meta = getattr(tvm, weights).DEFAULT.meta
    assert (meta["num_params"], meta["_ops"]) == (params, gmacs)


@pytest.mark.parametrize("model", PUBLISHED)
def test_params_exact_and_forward_macs_within_half_percent(model: str) -> None:
    _, params, gmacs = PUBLISHED[model]
    result = analyze(model, (3, 224, 224), 1, 1000)
    assert result.params == params
    assert result.forward_macs / 1e9 == pytest.approx(gmacs, rel=0.005)
    assert result.uncounted_functions == {}
    assert not [layer.name for layer in result.layers if layer.family == "other"]


@pytest.mark.parametrize("model", PUBLISHED)
def test_backward_over_forward_and_flop_counter_agreement(model: str) -> None:
    result = analyze(model, (3, 224, 224), 1, 1000)
    assert 1.9 <= result.backward_macs / result.forward_macs <= 2.0
    counter = flop_counter_summary(model, (3, 224, 224), 1, 1000)
    # FlopCounterMode counts exactly the multiply-accumulate layers, 2 FLOP per MAC.
    assert counter["forward_flops"] == 2 * result.forward_macs
    assert counter["backward_flops_corrected"] == 2 * result.backward_macs
    assert 1.9 <= counter["backward_flops_corrected"] / counter["forward_flops"] <= 2.0


def test_flop_counter_overcounts_depthwise_backward_in_mobilenet_v2() -> None:
    counter = flop_counter_summary("mobilenet_v2", (3, 224, 224), 1, 1000)
    assert counter["backward_flops"] / counter["forward_flops"] == pytest.approx(19.41, abs=0.01)
    assert counter["backward_flops_corrected"] / counter["forward_flops"] == pytest.approx(
        1.96, abs=0.01
    )


def _brute_force_conv_backward(
    x: torch.Tensor, weight: torch.Tensor, grad_out: torch.Tensor, groups: int
) -> tuple[torch.Tensor, torch.Tensor, int]:
    """Input and weight gradients of a stride-1, unpadded conv by explicit loops,
    counting every multiplication."""
    batch = x.shape[0]
    out_channels, per_group, kh, kw = weight.shape
    out_per_group = out_channels // groups
    grad_x = torch.zeros_like(x)
    grad_w = torch.zeros_like(weight)
    multiplies = 0
    _, _, oh, ow = grad_out.shape
    for n, o, i, j in itertools.product(range(batch), range(out_channels), range(oh), range(ow)):
        group = o // out_per_group
        for c, a, b in itertools.product(range(per_group), range(kh), range(kw)):
            channel = group * per_group + c
            g = grad_out[n, o, i, j]
            grad_x[n, channel, i + a, j + b] += g * weight[o, c, a, b]
            grad_w[o, c, a, b] += g * x[n, channel, i + a, j + b]
            multiplies += 2
    return grad_x, grad_w, multiplies


@pytest.mark.parametrize("groups", [1, 2, 4])
def test_conv_backward_against_brute_force(groups: int) -> None:
    torch.manual_seed(0)
    conv = nn.Conv2d(4, 4, 3, groups=groups, bias=False)
    x = torch.randn(1, 4, 5, 5, requires_grad=True)
    out = conv(x)
    grad_out = torch.randn_like(out)
    grad_x, grad_w, multiplies = _brute_force_conv_backward(
        x.detach(), conv.weight.detach(), grad_out, groups
    )
    out.backward(grad_out)
    assert x.grad is not None and conv.weight.grad is not None
    torch.testing.assert_close(grad_x, x.grad)  # the loops are a real backward
    torch.testing.assert_close(grad_w, conv.weight.grad)
    exact_flops = 2 * multiplies  # each multiplication is one multiply-accumulate

    with FlopCounterMode(display=False) as raw:
        conv(x).backward(grad_out)
    with FlopCounterMode(
        display=False, custom_mapping={torch.ops.aten.convolution_backward: corrected_conv_backward}
    ) as fixed:
        conv(x).backward(grad_out)
    backward_raw = raw.get_flop_counts()["Global"][torch.ops.aten.convolution_backward]
    backward_fixed = fixed.get_flop_counts()["Global"][torch.ops.aten.convolution_backward]
    assert backward_fixed == exact_flops
    assert backward_raw == exact_flops * (1 + groups) / 2  # the defect, pinned
    assert raw.get_total_flops() > backward_raw  # the forward convolution was counted too
    # and the analytic counter agrees with the brute force
    from generator.complexity.costs import LayerCost
    from generator.complexity.layer_formulas import module_cost

    cost = LayerCost("conv", "Conv2d", "", (1, 4, 5, 5), (1, 4, 3, 3), input_elements=100)
    cost.output_elements = out.numel()
    module_cost(cost, conv, (x,), training=True)
    assert cost.backward_flops == exact_flops


def test_first_layer_needs_no_input_gradient() -> None:
    result = analyze("resnet18", (3, 32, 32), 4, 10)
    layers = {layer.name: layer for layer in result.layers}
    assert not layers["conv1"].needs_input_grad
    assert layers["conv1"].backward_input_flops == 0
    assert layers["conv1"].backward_weight_flops == 2 * layers["conv1"].forward_macs
    assert (
        layers["layer1.0.conv1"].backward_input_flops == 2 * layers["layer1.0.conv1"].forward_macs
    )


def test_residual_adds_and_repeated_modules_are_rows() -> None:
    result = analyze("resnet18", (3, 32, 32), 2, 10)
    names = [layer.name for layer in result.layers]
    assert "layer1.0.fn:add" in names  # `out += identity` is a functional op
    assert "layer1.0.relu#2" in names  # BasicBlock calls its ReLU twice
    add = next(layer for layer in result.layers if layer.name == "layer1.0.fn:add")
    assert add.forward_flops == 2 * 64 * 8 * 8 and add.backward_flops == 0


def test_seed_models_counted_by_hand() -> None:
    mlp = analyze("simple_mlp", (1, 28, 28), 64, 10)
    assert mlp.params == 784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10
    assert mlp.forward_macs == 64 * (784 * 256 + 256 * 128 + 128 * 10)
    cnn = analyze("simple_cnn", (1, 28, 28), 64, 10)
    assert cnn.params == (25 + 1) * 2 + 16 * 100 + 100 + 100 * 10 + 10
    assert cnn.forward_macs == 64 * (24 * 24 * 25 + 8 * 8 * 25 + 16 * 100 + 100 * 10)


def test_inference_has_no_backward_and_eval_norms_are_cheaper() -> None:
    train = analyze("resnet18", (3, 32, 32), 8, 10)
    infer = analyze("resnet18", (3, 32, 32), 8, 10, training=False)
    assert infer.backward_flops == 0 and infer.optimizer_flops == 0 and infer.loss is None
    assert infer.forward_macs == train.forward_macs
    assert infer.forward_flops < train.forward_flops  # batch norm with running statistics
    assert infer.step_flops == infer.forward_flops


def test_optimizer_and_traffic_totals() -> None:
    sgd = analyze("simple_mlp", (1, 28, 28), 32, 10, optimizer="sgd")
    adam = analyze("simple_mlp", (1, 28, 28), 32, 10, optimizer="adam")
    assert sgd.optimizer_flops == 2 * sgd.params
    assert adam.optimizer_flops == 13 * adam.params
    assert adam.min_traffic_bytes - sgd.min_traffic_bytes == (7 - 3) * 4 * sgd.params
    half = analyze("simple_mlp", (1, 28, 28), 32, 10, optimizer="sgd", precision="bf16-amp")
    assert half.activation_bytes * 2 == sgd.activation_bytes
    assert sgd.arithmetic_intensity == pytest.approx(sgd.step_flops / sgd.min_traffic_bytes)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_registry_model_at_its_dataset_shape(name: str) -> None:
    spec = MODELS[name]
    data = DATASETS[spec.default_dataset]
    result = analyze(name, data.shape, 2, data.classes)
    assert result.params > 0 and result.step_flops > 0
    assert result.uncounted_functions == {}
    assert not [layer.name for layer in result.layers if layer.family == "other"]


def test_models_that_reject_small_inputs_say_why() -> None:
    rows = {(r["model"], r["input"]): r for r in shortcut_rows()}
    rejected = sorted(key for key, row in rows.items() if row["status"] == "rejected")
    assert rejected == [
        ("alexnet", "3x28x28"),
        ("alexnet", "3x32x32"),
        ("convnext_tiny", "3x28x28"),
        ("densenet121", "3x28x28"),
        ("vgg16", "3x28x28"),
        ("vit_b_16", "3x28x28"),
        ("vit_b_16", "3x32x32"),
    ]
    assert "Output size is too small" in rows[("alexnet", "3x32x32")]["reason"]
    assert "accepts only 3x224x224" in rows[("vit_b_16", "3x32x32")]["reason"]
    resnet = rows[("resnet18", "3x28x28")]
    exact = analyze("resnet18", (3, 28, 28), 2, 10)
    assert resnet["forward_macs"] == exact.forward_macs / 2
    assert resnet["scaled_ratio"] == pytest.approx(
        1.814e9 * (28 / 224) ** 2 / resnet["forward_macs"], rel=0.001
    )
    assert resnet["macs_as_flops_ratio"] < 0.5
    assert rows[("vgg16", "3x32x32")]["scaled_ratio"] < 0.8  # its classifier does not shrink


def test_probes_show_the_flop_counter_defects() -> None:
    probes = {row["case"].split(" (")[0]: row for row in flop_counter_probes()}
    depthwise = probes["depthwise conv backward"]
    assert depthwise["flop_counter"] == depthwise["exact"] * (1 + 8) / 2
    assert probes["scaled_dot_product_attention on CPU"]["flop_counter"] == 0
    assert probes["nn.MultiheadAttention in eval mode under inference_mode"]["flop_counter"] == 0
    assert probes["BatchNorm2d + ReLU + MaxPool2d"]["flop_counter"] == 0


def test_cli_json_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["complexity", "resnet18", "--input", "3x32x32", "--batch", "8", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in (
        "params", "forward_macs", "forward_flops", "backward_flops", "optimizer_flops",
        "step_flops", "activation_bytes", "min_traffic_bytes", "arithmetic_intensity", "layers",
    ):  # fmt: skip
        assert key in data
    assert set(data["flop_counter"]) >= {
        "forward_flops",
        "backward_flops",
        "backward_flops_corrected",
    }
    assert data["params"] == 11_181_642  # resnet18 with a 10-class head
    assert data["layers"][0]["name"] == "conv1" and data["layers"][-1]["name"] == "loss"
    assert data["step_flops"] == pytest.approx(
        data["forward_flops"]
        + data["loss_flops"]
        + data["backward_flops"]
        + data["optimizer_flops"]
    )


def test_cli_text_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["complexity", "simple_cnn", "--no-flop-counter"]) == 0
    out = capsys.readouterr().out
    assert "simple_cnn  input 1x28x28  batch 1  classes 10" in out
    assert "parameters          2,762" in out
    assert main(["complexity", "alexnet", "--input", "3x32x32"]) == 1
    err = capsys.readouterr().err
    assert "key '--input': alexnet does not accept batch 1 of 3x32x32 input" in err
    assert main(["complexity", "resnet18", "--input", "3x32"]) == 1
    assert "is not CxHxW" in capsys.readouterr().err
    with pytest.raises(UserError, match="unknown model 'resnet19'"):
        analyze("resnet19", (3, 32, 32), 1, 10)


def test_complexity_tables_are_rewritten_only_when_the_counter_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from generator.complexity.tables import source_hash, up_to_date
    from generator.records.complexity_tables import TablesMeta

    def meta(digest: str) -> str:
        fields = dict.fromkeys(("generated_at", "torch", "torchvision", "command"), "x")
        return TablesMeta(source_hash=digest, tables=[], **fields).model_dump_json()

    assert not up_to_date(tmp_path)
    (tmp_path / "tables.json").write_text(meta(source_hash()))
    assert up_to_date(tmp_path)
    assert main(["complexity-tables", "--out", str(tmp_path)]) == 0
    assert "up to date" in capsys.readouterr().out
    (tmp_path / "tables.json").write_text(meta("0" * 16))
    assert not up_to_date(tmp_path)


def test_committed_complexity_tables_are_current() -> None:
    """measurements/complexity/ was written by this code: rerun `nox -s measure` if not."""
    from generator.complexity.tables import up_to_date

    assert up_to_date(REPO / "measurements" / "complexity")


def test_analytic_counts_for_imported_exports() -> None:
    from generator.complexity.tables import imported_rows

    rows = {row["name"]: row for row in imported_rows(REPO / "measurements")}
    assert list(rows) == ["l4-resnet18-train-step-b64"]  # the only one naming its model
    expected = analyze("resnet18", (3, 32, 32), 64, 10)
    assert rows["l4-resnet18-train-step-b64"]["forward_flops"] == expected.forward_flops
    assert rows["l4-resnet18-train-step-b64"]["step_flops"] == expected.step_flops
