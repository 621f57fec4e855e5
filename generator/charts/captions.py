"""Chart captions written from the marks the charts draw, so a caption cannot describe a
mark the chart does not show."""

from __future__ import annotations

from generator.charts.vega import VegaSpec
from generator.formatting import percent

# The step's point on an export's roofline: white with a black edge, no kernel family's hue,
# seen on either theme. Its caption words come from here (`roofline_caption`).
STEP_MARK: VegaSpec = {
    "shape": "diamond", "size": 260, "filled": True, "fill": "white", "stroke": "black",
    "strokeWidth": 2,
}  # fmt: skip


def step_mark_words(mark: VegaSpec = STEP_MARK) -> str:
    """The step mark in words, from its encoding: 'a white diamond with a black edge'."""
    fill = mark["fill"] if mark.get("filled") else "hollow"
    edge = f" with a {mark['stroke']} edge" if mark.get("stroke") else ""
    return f"a {fill} {mark['shape']}{edge}"


def roofline_caption(
    drawn: int, hidden: int, device: str | None, share: float | None = None
) -> str:
    """The caption of `roofline_chart`, written from the marks it draws so the two cannot
    disagree: drawn kernels (`share`: their part of the kernel time), hidden ones (log axes
    cannot place zero), the device's roof."""
    one = drawn == 1
    caption = (
        f"Log-log roofline: {drawn:,} kernel{'' if one else 's'} as "
        f"{'a point sized by its' if one else 'points sized by their'} share of kernel time, "
        f"one colour and marker per kernel family; the step as {step_mark_words()}"
    )
    if device is not None:
        caption += f"; the roofs of the {device} (datasheet, dense)"
    caption += "."
    if hidden:
        caption += (
            f" {hidden:,} kernel{'s' if hidden != 1 else ''} with zero or unknown FLOPs or "
            "bytes cannot be drawn on log axes and are not shown"
        )
        caption += (
            f": the drawn ones hold {percent(100 * share)} of the kernel time."
            if share is not None
            else "."
        )
    return caption
