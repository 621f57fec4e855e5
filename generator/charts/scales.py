"""Scales, axes and roof lines shared by every chart: one colour per device and per model
on every page."""

from __future__ import annotations

from typing import Any

import altair as alt

from generator import formatting
from generator.analysis.roofline import PEAK_FOR_PRECISION
from generator.catalog import Device

TOOLTIP_NAME_CHARS = 160
PRECISION_LABELS: dict[str, str] = {
    "fp64": "FP64",
    "fp32": "FP32",
    "fp16": "FP16",
    "tensor_fp16": "FP16 tensor",
    "tensor_bf16": "BF16 tensor",
    "tensor_tf32": "TF32 tensor",
    "tensor_fp64": "FP64 tensor",
    "tensor_fp8": "FP8 tensor",
}


def device_scale(names: set[str]) -> alt.Scale:
    """One colour per device on every page: catalog order first, then other devices (CPUs
    measured here) by name."""
    from generator.catalog import load_catalog

    catalog = [d.name for d in load_catalog()]
    return alt.Scale(domain=catalog + sorted(names - set(catalog)), scheme="tableau20")


def device_legend(names: set[str], title: str | None = None) -> alt.Legend:
    """The devices a chart shows, not device_scale's whole domain (the catalog's twenty
    GPUs would fill, and clip, a two-device chart's legend)."""
    return alt.Legend(orient="bottom", title=title, values=sorted(names), columns=3, labelLimit=260)


def model_scale() -> alt.Scale:
    """One colour per registry model on every page."""
    from generator.models import MODELS

    return alt.Scale(domain=list(MODELS), scheme="tableau20")


def short_name(name: str | None, limit: int = TOOLTIP_NAME_CHARS) -> str:
    return formatting.short_name(name, limit)


def log_y(field: str) -> alt.Y:
    """The shared y axis of every roofline layer: attained FLOP/s, log scale, SI labels."""
    return alt.Y(
        f"{field}:Q",
        title="attained (FLOP/s)",
        scale=alt.Scale(type="log"),
        axis=alt.Axis(format="~s"),
    )


def roof_polyline(
    peak: float, bandwidth: float, ai_min: float, ai_max: float, **labels: Any
) -> list[dict[str, Any]]:
    """One roof as chart rows: the bandwidth slope up to the ridge, then the flat peak;
    `labels` (device, ceiling, ...) go on every row."""
    ridge = peak / bandwidth
    xs = [ai_min, *([ridge] if ai_min < ridge < ai_max else []), ai_max]
    return [
        {**labels, "order": i, "ai": x, "flops_per_s": min(peak, x * bandwidth)}
        for i, x in enumerate(xs)
    ]


def ceiling_rows(
    device: Device, precisions: list[str], ai_min: float, ai_max: float
) -> list[dict[str, Any]]:
    """Polyline points of each precision's roof: bandwidth slope, then flat peak."""
    rows: list[dict[str, Any]] = []
    bandwidth = device.bandwidth_bytes_per_s
    for precision in precisions:
        peak = device.peak(PEAK_FOR_PRECISION[precision])
        if peak is None:
            continue
        ridge = peak / bandwidth
        label = f"{PRECISION_LABELS[precision]} peak {peak / 1e12:.4g} TFLOP/s, ridge {ridge:.3g}"
        rows.extend(roof_polyline(peak, bandwidth, ai_min, ai_max, ceiling=label))
    return rows
