"""Model registry: names → constructors, and the dataset shapes experiments use.

torch and torchvision are imported inside the builders, so the report (which needs
only names and shapes) never imports torch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from generator.errors import UserError


@dataclass(frozen=True)
class Dataset:
    name: str
    shape: tuple[int, int, int]  # channels, height, width
    classes: int


DATASETS: dict[str, Dataset] = {
    "cifar10": Dataset("cifar10", (3, 32, 32), 10),
    "cifar100": Dataset("cifar100", (3, 32, 32), 100),
    "mnist": Dataset("mnist", (1, 28, 28), 10),
    "imagenet": Dataset("imagenet", (3, 224, 224), 1000),
}


@dataclass(frozen=True)
class ModelSpec:
    name: str
    source: str  # "torchvision" or "roofline-atlas"
    default_dataset: str
    description: str
    fixed_input: tuple[int, int, int] | None = None  # the only shape the model accepts


def _torchvision(name: str) -> Callable[[int, tuple[int, int, int]], Any]:
    def build(classes: int, shape: tuple[int, int, int]) -> Any:
        import torchvision.models as tvm

        return tvm.get_model(name, weights=None, num_classes=classes)

    return build


def _simple_mlp(classes: int, shape: tuple[int, int, int]) -> Any:
    from generator.models.seed import SimpleMLP

    return SimpleMLP(shape, classes)


def _simple_cnn(classes: int, shape: tuple[int, int, int]) -> Any:
    from generator.models.seed import SimpleCNN

    return SimpleCNN(shape, classes)


def _vit_tiny_32(classes: int, shape: tuple[int, int, int]) -> Any:
    from torchvision.models.vision_transformer import VisionTransformer

    # ViT-Tiny width (192, 3 heads) on 4×4 patches: 64 tokens + class token at 32×32.
    return VisionTransformer(
        image_size=shape[1],
        patch_size=4,
        num_layers=6,
        num_heads=3,
        hidden_dim=192,
        mlp_dim=768,
        num_classes=classes,
    )


_TORCHVISION = {
    "resnet18": "ResNet-18 (He et al. 2016)",
    "resnet34": "ResNet-34",
    "resnet50": "ResNet-50 (bottleneck blocks)",
    "mobilenet_v2": "MobileNetV2 (depthwise-separable convolutions)",
    "vgg16": "VGG-16",
    "alexnet": "AlexNet",
    "densenet121": "DenseNet-121",
    "convnext_tiny": "ConvNeXt-Tiny",
    "vit_b_16": "ViT-B/16 (fixed 224×224 input)",
}

MODELS: dict[str, ModelSpec] = {
    **{
        name: ModelSpec(
            name,
            "torchvision",
            # AlexNet's five poolings leave nothing of 32×32; ViT-B/16 is fixed at 224.
            "imagenet" if name in ("vit_b_16", "alexnet") else "cifar10",
            description,
            fixed_input=(3, 224, 224) if name == "vit_b_16" else None,
        )
        for name, description in _TORCHVISION.items()
    },
    "vit_tiny_32": ModelSpec(
        "vit_tiny_32",
        "roofline-atlas",
        "cifar10",
        "ViT sized for 32×32: patch 4, 6 layers, width 192, 3 heads, MLP 768",
    ),
    "simple_mlp": ModelSpec(
        "simple_mlp",
        "seed 004",
        "mnist",
        "SimpleMLP of seed report 004: 784-256-128-10, ReLU, softmax",
    ),
    "simple_cnn": ModelSpec(
        "simple_cnn",
        "seed 004",
        "mnist",
        "SimpleCNN of seed report 004: two 1-channel 5×5 convs with 2×2 max-pool, FC 16-100-10",
    ),
}

_BUILDERS: dict[str, Callable[[int, tuple[int, int, int]], Any]] = {
    **{name: _torchvision(name) for name in _TORCHVISION},
    "vit_tiny_32": _vit_tiny_32,
    "simple_mlp": _simple_mlp,
    "simple_cnn": _simple_cnn,
}


def unknown_name(what: str, name: str, table: dict[str, Any]) -> str:
    """The one wording for a name not in the registry, with the valid ones."""
    return f"unknown {what} {name!r}; valid: {', '.join(sorted(table))}"


def model_spec(name: str, key: str = "model") -> ModelSpec:
    if name not in MODELS:
        what, _, valid = unknown_name("model", name, MODELS).partition("; valid: ")
        raise UserError(what, key=key, fix=f"use one of: {valid}")
    return MODELS[name]


def dataset(name: str, key: str = "dataset") -> Dataset:
    if name not in DATASETS:
        what, _, valid = unknown_name("dataset", name, DATASETS).partition("; valid: ")
        raise UserError(what, key=key, fix=f"use one of: {valid}")
    return DATASETS[name]


def build_model(name: str, classes: int, shape: tuple[int, int, int]) -> Any:
    """An untrained torch module; `shape` is (channels, height, width) of one sample."""
    spec = model_spec(name)
    if spec.fixed_input is not None and shape != spec.fixed_input:
        raise UserError(
            f"{name} accepts only {'x'.join(map(str, spec.fixed_input))} input, "
            f"not {'x'.join(map(str, shape))}",
            key="model",
            fix="use the imagenet dataset shape for this model, or a model sized for small inputs "
            "(vit_tiny_32)",
        )
    return _BUILDERS[name](classes, shape)


def parse_shape(text: str, key: str = "--input") -> tuple[int, int, int]:
    """'3x32x32' → (3, 32, 32)."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        dims = ()
    if len(dims) != 3 or min(dims) <= 0:
        raise UserError(
            f"input shape {text!r} is not CxHxW with three positive integers",
            key=key,
            fix="write it like 3x32x32 (channels x height x width)",
        )
    return (dims[0], dims[1], dims[2])
