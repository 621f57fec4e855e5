"""What goes into a model and what comes out (torch needed): a batch of the right kind,
the logits of any output layout, and the training loss over them.

One rule serves every model: cross-entropy over the class dimension of each logits
tensor, with targets shaped like the logits less that dimension. Images give (B, C)
logits, segmentation (B, C, H, W) per pixel, language models and wav2vec2 (B, T, V) per
token or frame. FCN's auxiliary head adds 0.5 × its loss, as torchvision's reference
training script weights it.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

AUX_WEIGHT = 0.5


def example_input(
    batch: int,
    shape: tuple[int, ...],
    vocab: int | None,
    device: Any = None,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Token ids when the model has a vocabulary, else standard-normal floats; on the meta
    device only the shape is made."""
    size = (batch, *shape)
    meta = str(device) == "meta"
    if vocab is not None:
        if meta:
            return torch.empty(size, dtype=torch.long, device="meta")
        return torch.randint(0, vocab, size, generator=generator).to(device)
    if meta:
        return torch.empty(size, device="meta")
    return torch.randn(size, generator=generator).to(device)


def logits_of(output: Any) -> list[tuple[torch.Tensor, float]]:
    """Each logits tensor a model returned, with its weight in the loss."""
    if isinstance(output, torch.Tensor):
        return [(output, 1.0)]
    logits = getattr(output, "logits", None)  # transformers' ModelOutput
    if isinstance(logits, torch.Tensor):
        return [(logits, 1.0)]
    if isinstance(output, dict) and isinstance(output.get("out"), torch.Tensor):
        heads = [(output["out"], 1.0)]
        if isinstance(output.get("aux"), torch.Tensor):
            heads.append((output["aux"], AUX_WEIGHT))
        return heads
    if isinstance(output, tuple | list) and output and isinstance(output[0], torch.Tensor):
        return [(output[0], 1.0)]
    raise TypeError(
        f"the model returned {type(output).__name__}; expected a tensor of logits, a "
        "transformers output with .logits, or a dict with 'out'"
    )


def class_dim(logits: torch.Tensor) -> int:
    """Images and segmentation put classes at dim 1; sequences (B, T, V) at the last."""
    return -1 if logits.dim() == 3 else 1


def target_shape(logits: torch.Tensor) -> tuple[int, ...]:
    dim = class_dim(logits) % logits.dim()
    return tuple(int(s) for i, s in enumerate(logits.shape) if i != dim)


def make_targets(
    output: Any, generator: torch.Generator | None = None, batch: int | None = None
) -> torch.Tensor:
    """Random class indices for the first head (every head has the same targets); `batch`
    replaces the output's batch size (the output may come from a one-sample probe)."""
    logits = logits_of(output)[0][0]
    classes = int(logits.shape[class_dim(logits)])
    shape = target_shape(logits)
    if batch is not None:
        shape = (batch, *shape[1:])
    if logits.device.type == "meta":
        return torch.zeros(shape, dtype=torch.long, device="meta")
    return torch.randint(0, classes, shape, generator=generator).to(logits.device)


def step_loss(output: Any, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy per head, summed with the heads' weights; sequences are
    flattened to (B·T, V), as transformers' own heads do."""
    total: torch.Tensor | None = None
    for logits, weight in logits_of(output):
        if class_dim(logits) == -1:
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        else:
            loss = F.cross_entropy(logits, targets)
        if weight != 1.0:
            loss = loss * weight
        total = loss if total is None else total + loss
    if total is None:
        raise TypeError("the model returned no logits")
    return total
