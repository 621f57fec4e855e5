"""Cross-check with torch.utils.flop_counter.FlopCounterMode, its defects shown, not inherited.

FlopCounterMode counts only matmuls, convolutions and attention kernels (norms,
activations and pooling are 0), and its convolution_backward formula computes the
weight gradient from the transposed shapes, which ignores `groups`: a grouped or
depthwise convolution's backward is overcounted by (1 + g) / 2. The corrected mapping
below replaces only that formula: each forward multiply-accumulate appears once in the
input gradient and once in the weight gradient.
"""

from __future__ import annotations

from typing import Any, TypedDict

FAMILIES = {
    "convolution": "conv",
    "_convolution": "conv",
    "cudnn_convolution": "conv",
    "_slow_conv2d_forward": "conv",
    "convolution_backward": "conv",
    "mm": "matmul",
    "addmm": "matmul",
    "bmm": "matmul",
    "baddbmm": "matmul",
}


def _family(op: Any) -> str:
    name = str(op).split(".")[-1] if "." in str(op) else str(op)
    name = name.removeprefix("aten::")
    if "attention" in name:
        return "attention"
    return FAMILIES.get(name, name)


def corrected_conv_backward(
    grad_out_shape: Any,
    x_shape: Any,
    w_shape: Any,
    _bias: Any,
    _stride: Any,
    _padding: Any,
    _dilation: Any,
    transposed: bool,
    _output_padding: Any,
    _groups: Any,
    output_mask: Any,
    out_shape: Any = None,
    **kwargs: Any,
) -> int:
    """FLOPs of convolution_backward: the forward count once per requested gradient.

    torch's forward formula is right for any `groups` because w_shape[1] is Cin/groups."""
    from torch.utils.flop_counter import conv_flop_count

    forward = int(conv_flop_count(x_shape, w_shape, grad_out_shape, transposed=transposed))
    return forward * (int(bool(output_mask[0])) + int(bool(output_mask[1])))


def _by_family(counts: dict[Any, int]) -> dict[str, int]:
    families: dict[str, int] = {}
    for op, flops in counts.items():
        family = _family(op)
        families[family] = families.get(family, 0) + int(flops)
    return families


class FlopCount(TypedDict):
    """One step's FLOPs as FlopCounterMode counts them, total and per op family."""

    forward_flops: int
    backward_flops: int
    forward_by_family: dict[str, int]
    backward_by_family: dict[str, int]


class FlopCounterSummary(FlopCount):
    """Both counts: as FlopCounterMode has them, and with the groups-aware formula."""

    backward_flops_corrected: int
    backward_by_family_corrected: dict[str, int]


def count_with_flop_counter(
    model: str,
    input_shape: tuple[int, ...],
    batch: int,
    classes: int,
    corrected: bool,
    device: str = "meta",
    vocab: int | None = None,
) -> FlopCount:
    """Forward and backward FLOPs of one training step as FlopCounterMode sees them
    (train mode, the input needing no gradient), total and per op family."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    from generator.models import build_model, model_spec
    from generator.models.feed import example_input, make_targets, step_loss
    from generator.models.hf import meta_safe

    mapping = {torch.ops.aten.convolution_backward: corrected_conv_backward} if corrected else {}
    with torch.device(device):
        module = build_model(model, classes, input_shape)
        module.train()
    x = example_input(batch, input_shape, vocab or model_spec(model).vocab, device)
    with FlopCounterMode(display=False, custom_mapping=mapping) as forward, meta_safe():
        output = module(x)
        loss = step_loss(output, make_targets(output))
    with FlopCounterMode(display=False, custom_mapping=mapping) as backward:
        loss.backward()
    forward_counts = forward.get_flop_counts().get("Global", {})
    backward_counts = backward.get_flop_counts().get("Global", {})
    return {
        "forward_flops": int(forward.get_total_flops()),
        "backward_flops": int(backward.get_total_flops()),
        "forward_by_family": _by_family(forward_counts),
        "backward_by_family": _by_family(backward_counts),
    }


def flop_counter_summary(
    model: str,
    input_shape: tuple[int, ...],
    batch: int,
    classes: int,
    vocab: int | None = None,
) -> FlopCounterSummary:
    """Both counts; `backward_flops_corrected` uses the groups-aware formula."""
    raw = count_with_flop_counter(model, input_shape, batch, classes, False, vocab=vocab)
    fixed = count_with_flop_counter(model, input_shape, batch, classes, True, vocab=vocab)
    return {
        "forward_flops": raw["forward_flops"],
        "backward_flops": raw["backward_flops"],
        "backward_flops_corrected": fixed["backward_flops"],
        "forward_by_family": raw["forward_by_family"],
        "backward_by_family": raw["backward_by_family"],
        "backward_by_family_corrected": fixed["backward_by_family"],
    }
