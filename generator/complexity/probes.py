"""FlopCounterMode's known defects, measured on tiny inputs with the installed torch.

The report shows what these probes return, so a future torch that fixes a defect shows
up as fixed instead of being described from memory."""

from __future__ import annotations

from typing import Any


def _count(fn: Any) -> int:
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        fn()
    return int(counter.get_total_flops())


def flop_counter_probes() -> list[dict[str, Any]]:
    """One row per case: what FlopCounterMode counts and the exact count."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.manual_seed(0)
    rows: list[dict[str, Any]] = []

    channels, side, kernel = 8, 8, 3
    depthwise = nn.Conv2d(channels, channels, kernel, groups=channels, bias=False)
    x = torch.randn(1, channels, side, side, requires_grad=True)
    out_side = side - kernel + 1
    forward_macs = channels * out_side * out_side * kernel * kernel
    loss = depthwise(x).sum()
    rows.append(
        {
            "case": f"depthwise conv backward (groups={channels}, 3×3, {side}×{side})",
            "flop_counter": _count(lambda: loss.backward()),
            "exact": 2 * 2 * forward_macs,  # input and weight gradient, 2 FLOP per MAC
        }
    )

    batch, heads, length, depth = 2, 4, 16, 8
    q = torch.randn(batch, heads, length, depth)
    rows.append(
        {
            "case": "scaled_dot_product_attention on CPU (forward)",
            "flop_counter": _count(lambda: F.scaled_dot_product_attention(q, q, q)),
            "exact": 2 * 2 * batch * heads * length * length * depth,
        }
    )

    embed, tokens = 8, 5
    attention = nn.MultiheadAttention(embed, 2, batch_first=True).eval()
    tokens_in = torch.randn(batch, tokens, embed)

    def fast_path() -> None:
        with torch.inference_mode():
            attention(tokens_in, tokens_in, tokens_in, need_weights=False)

    rows.append(
        {
            "case": "nn.MultiheadAttention in eval mode under inference_mode (fast path)",
            "flop_counter": _count(fast_path),
            "exact": 2 * (4 * batch * tokens * embed * embed + 2 * batch * tokens * tokens * embed),
        }
    )

    image = torch.randn(2, channels, side, side)
    block = nn.Sequential(nn.BatchNorm2d(channels), nn.ReLU(), nn.MaxPool2d(2)).train()
    rows.append(
        {
            "case": "BatchNorm2d + ReLU + MaxPool2d (forward, training)",
            "flop_counter": _count(lambda: block(image)),
            "exact": image.numel() * (8 + 1) + (image.numel() // 4) * 3,
        }
    )
    return rows
