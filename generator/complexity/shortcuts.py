"""The seeds' shortcuts against the exact count: "training = 3 × forward", scaling ImageNet
numbers by (H/224)², and torchvision's GMACs read as GFLOPs."""

from __future__ import annotations

from typing import Any

from generator.complexity.analyze import analyze
from generator.errors import UserError

SHORTCUT_MODELS = (
    "resnet18",
    "resnet34",
    "resnet50",
    "mobilenet_v2",
    "vgg16",
    "alexnet",
    "densenet121",
    "convnext_tiny",
    "vit_b_16",
)
SIDES = (224, 32, 28)
BATCH = 2


def _ratio(estimate: float, exact: float) -> float:
    return estimate / exact if exact else float("nan")


def shortcut_rows(
    models: tuple[str, ...] = SHORTCUT_MODELS, sides: tuple[int, ...] = SIDES
) -> list[dict[str, Any]]:
    """One row per model × input side, per sample (3 channels; 1000 classes at 224, 10
    below, as the seeds did when they moved ImageNet numbers to CIFAR/MNIST shapes).

    Costed at batch 2, because batch norm in training refuses one value per channel, and
    halved: every count here is linear in the batch."""
    rows: list[dict[str, Any]] = []
    for model in models:
        reference = analyze(model, (3, 224, 224), BATCH, 1000)
        for side in sides:
            classes = 1000 if side == 224 else 10
            row: dict[str, Any] = {"model": model, "input": f"3x{side}x{side}", "classes": classes}
            try:
                exact = analyze(model, (3, side, side), BATCH, classes)
            except UserError as error:
                row["status"] = "rejected"
                row["reason"] = error.what
                rows.append(row)
                continue
            forward_macs = exact.forward_macs / BATCH
            forward_flops = exact.forward_flops / BATCH
            train_flops = (exact.forward_flops + exact.loss_flops + exact.backward_flops) / BATCH
            scaled_macs = reference.forward_macs / BATCH * (side / 224) ** 2
            row.update(
                status="ok",
                forward_macs=forward_macs,
                forward_flops=forward_flops,
                train_flops=train_flops,
                rule_x3_flops=3 * forward_flops,
                rule_x3_ratio=_ratio(3 * forward_flops, train_flops),
                scaled_macs=scaled_macs,
                scaled_ratio=_ratio(scaled_macs, forward_macs),
                macs_as_flops_ratio=_ratio(forward_macs, forward_flops),
            )
            rows.append(row)
    return rows
