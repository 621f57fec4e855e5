"""What a model is fed: the dataset shapes experiments use, and the three input kinds.

No torch here: the report and the config loader need only names and shapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from generator.errors import UserError

InputKind = Literal["image", "tokens", "audio"]


@dataclass(frozen=True)
class Dataset:
    name: str
    shape: tuple[int, ...]  # one sample: (C, H, W) images, (S,) token ids, (samples,) audio
    classes: int
    kind: InputKind = "image"
    description: str = ""
    task: str = "classify"  # images: classify (one label) or segment (a label per pixel)


AUDIO_RATE_HZ = 16_000
DEFAULT_SEQ_LEN = 128

DATASETS: dict[str, Dataset] = {
    "cifar10": Dataset("cifar10", (3, 32, 32), 10),
    "cifar100": Dataset("cifar100", (3, 32, 32), 100),
    "mnist": Dataset("mnist", (1, 28, 28), 10),
    "imagenet": Dataset("imagenet", (3, 224, 224), 1000),
    # Pascal VOC's 21 classes at the 224×224 crop the other ImageNet-shaped runs use.
    "voc": Dataset(
        "voc", (3, 224, 224), 21, description="segmentation, 21 classes per pixel", task="segment"
    ),
    "tokens": Dataset(
        "tokens",
        (DEFAULT_SEQ_LEN,),
        2,
        kind="tokens",
        description="synthetic token ids; a group's seq_len sets the length",
    ),
    "audio-16k": Dataset(
        "audio-16k",
        (AUDIO_RATE_HZ,),
        32,
        kind="audio",
        description="one second of 16 kHz audio; 32 per-frame classes (wav2vec2's CTC letters)",
    ),
}


def unknown_name(what: str, name: str, table: Mapping[str, object]) -> str:
    """The one wording for a name not in the registry, with the valid ones."""
    return f"unknown {what} {name!r}; valid: {', '.join(sorted(table))}"


def dataset(name: str, key: str = "dataset") -> Dataset:
    if name not in DATASETS:
        what, _, valid = unknown_name("dataset", name, DATASETS).partition("; valid: ")
        raise UserError(what, key=key, fix=f"use one of: {valid}")
    return DATASETS[name]


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


def shape_text(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape))
