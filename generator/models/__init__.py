"""Model registry: names → constructors, and the dataset shapes experiments use.

torch and torchvision are imported inside the builders, so the report (which needs
only names and shapes) never imports torch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from generator.errors import UserError
from generator.models import hf
from generator.models.inputs import (
    DATASETS,
    Dataset,
    InputKind,
    dataset,
    parse_shape,
    shape_text,
    unknown_name,
)
from generator.models.user import build_user_model, is_user_model

LM_PHASES = ("prefill", "decode")  # a causal language model's inference phases

__all__ = [
    "DATASETS",
    "LM_PHASES",
    "MODELS",
    "Dataset",
    "ModelSpec",
    "build_model",
    "dataset",
    "model_spec",
    "parse_shape",
    "shape_text",
    "unknown_name",
]


@dataclass(frozen=True)
class ModelSpec:
    name: str
    source: str  # torchvision, transformers, roofline-atlas, seed 004, or user
    default_dataset: str
    description: str
    fixed_input: tuple[int, ...] | None = None  # the only shape the model accepts
    input_kind: InputKind = "image"
    vocab: int | None = None  # token models: the ids they embed
    causal_lm: bool = False  # has prefill and decode phases (a KV cache)
    task: str = "classify"  # image models: classify or segment, matched with a dataset's

    def reads(self, data: Dataset) -> bool:
        """Whether this model takes `data`: same input kind, and for images the same task.
        Your own models take any dataset."""
        if self.source == "user":
            return True
        return self.input_kind == data.kind and (data.kind != "image" or self.task == data.task)


Builder = Callable[[int, tuple[int, ...]], Any]


def _torchvision(name: str) -> Builder:
    def build(classes: int, shape: tuple[int, ...]) -> Any:
        import torchvision.models as tvm

        if name.startswith("fcn_"):  # as published: with the auxiliary head, no backbone
            return tvm.get_model(
                name, weights=None, weights_backbone=None, aux_loss=True, num_classes=classes
            )
        return tvm.get_model(name, weights=None, num_classes=classes)

    return build


def _image(shape: tuple[int, ...]) -> tuple[int, int, int]:
    channels, height, width = shape  # image datasets only (checked by check_input)
    return (channels, height, width)


def _simple_mlp(classes: int, shape: tuple[int, ...]) -> Any:
    from generator.models.seed import SimpleMLP

    return SimpleMLP(_image(shape), classes)


def _simple_cnn(classes: int, shape: tuple[int, ...]) -> Any:
    from generator.models.seed import SimpleCNN

    return SimpleCNN(_image(shape), classes)


def _vit_tiny_32(classes: int, shape: tuple[int, ...]) -> Any:
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
    "vit_b_32": "ViT-B/32 (fixed 224×224 input; seed 003's ViT)",
    "fcn_resnet50": "FCN-ResNet50 segmentation with its auxiliary head (seed 003)",
}
_FIXED_224 = ("vit_b_16", "vit_b_32")

MODELS: dict[str, ModelSpec] = {
    **{
        name: ModelSpec(
            name,
            "torchvision",
            # AlexNet's five poolings leave nothing of 32×32; ViT-B/16 is fixed at 224.
            {"vit_b_16": "imagenet", "vit_b_32": "imagenet", "alexnet": "imagenet"}.get(
                name, "voc" if name.startswith("fcn_") else "cifar10"
            ),
            description,
            fixed_input=(3, 224, 224) if name in _FIXED_224 else None,
            task="segment" if name.startswith("fcn_") else "classify",
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
    "bert_base": ModelSpec(
        "bert_base",
        "transformers",
        "tokens",
        "BERT-base encoder and pooler (110M) with a sequence-classification head",
        input_kind="tokens",
        vocab=30522,
    ),
    "gpt2": ModelSpec(
        "gpt2",
        "transformers",
        "tokens",
        "GPT-2 small (124M) causal language model; prefill and decode phases",
        input_kind="tokens",
        vocab=50257,
        causal_lm=True,
    ),
    "wav2vec2_base": ModelSpec(
        "wav2vec2_base",
        "transformers",
        "audio-16k",
        "wav2vec 2.0 base (95M) on one second of 16 kHz audio, per-frame head (seed 003)",
        input_kind="audio",
    ),
}

_BUILDERS: dict[str, Builder] = {
    **{name: _torchvision(name) for name in _TORCHVISION},
    "vit_tiny_32": _vit_tiny_32,
    "simple_mlp": _simple_mlp,
    "simple_cnn": _simple_cnn,
    "bert_base": hf.bert_base,
    "gpt2": hf.gpt2,
    "wav2vec2_base": hf.wav2vec2_base,
}


def user_spec(name: str) -> ModelSpec:
    """A `module:callable` model: its input kind comes from the dataset it is given."""
    return ModelSpec(name, "user", "", f"your model {name}")


def model_spec(name: str, key: str = "model") -> ModelSpec:
    if is_user_model(name):
        return user_spec(name)
    if name not in MODELS:
        what, _, valid = unknown_name("model", name, MODELS).partition("; valid: ")
        raise UserError(what, key=key, fix=f"use one of: {valid}; or your own as module:callable")
    return MODELS[name]


def check_input(spec: ModelSpec, data: Dataset, shape: tuple[int, ...], key: str) -> None:
    """A registry model fed the kind and shape of input it takes, or a UserError."""
    if spec.source == "user":
        return
    if not spec.reads(data):
        takes = spec.input_kind if spec.input_kind != "image" else f"image ({spec.task})"
        raise UserError(
            f"model {spec.name!r} takes {takes} input, dataset {data.name!r} is "
            f"{data.kind if data.kind != 'image' else f'image ({data.task})'}",
            key=key,
            fix=f"use dataset {spec.default_dataset!r} (or another {spec.input_kind} dataset)",
        )
    _check_fixed_input(spec, shape, key)


def _check_fixed_input(spec: ModelSpec, shape: tuple[int, ...], key: str) -> None:
    if spec.fixed_input is not None and shape != spec.fixed_input:
        raise UserError(
            f"model {spec.name!r} accepts only {shape_text(spec.fixed_input)} input, "
            f"not {shape_text(shape)}",
            key=key,
            fix="use the imagenet dataset shape for this model, or a model sized for small "
            "inputs (vit_tiny_32)",
        )


def check_phase(spec: ModelSpec, phase: str, key: str) -> None:
    """prefill and decode need a causal language model (a KV cache)."""
    if phase in LM_PHASES and not spec.causal_lm:
        raise UserError(
            f"phase {phase} needs a causal language model; {spec.name!r} is not one",
            key=key,
            fix="use prefill and decode with gpt2 (in a group of their own), or train_step / "
            "inference",
        )


def build_model(name: str, classes: int, shape: tuple[int, ...], key: str = "model") -> Any:
    """An untrained torch module; `shape` is one sample's: (C, H, W) of an image, (S,)
    token ids or (samples,) of audio."""
    if is_user_model(name):
        return build_user_model(name, classes, key)
    spec = model_spec(name, key)
    _check_fixed_input(spec, shape, key)
    return _BUILDERS[name](classes, shape)
