"""Every catalog device's dense peak per precision on one chart: the only chart where the
TPUs (bf16 only) and the Grace CPU (no tensor cores) sit beside the GPUs, since a roofline
is drawn for one precision at a time."""

from __future__ import annotations

from typing import Any

import altair as alt

from generator.catalog import Device
from generator.charts.scales import inline, spec_of
from generator.charts.vega import VegaSpec
from generator.records.peaks import PEAK_LABELS

# The precisions a training step can run in, slowest first; Okabe-Ito hues (distinct for
# every common colour-vision deficiency) and one shape each, so no reader relies on hue.
PRECISIONS: tuple[tuple[str, str, str, str], ...] = tuple(
    (key, PEAK_LABELS[key], colour, shape)
    for key, colour, shape in (
        ("fp32", "#0072B2", "circle"),
        ("tf32_tensor", "#E69F00", "square"),
        ("bf16_tensor", "#009E73", "triangle-up"),
        ("fp16_tensor", "#CC79A7", "diamond"),
        ("fp8_tensor", "#D55E00", "cross"),
    )
)
ROW_PX = 22  # one device per row: names stay legible however many devices the catalog has


def precision_rows(devices: list[Device]) -> list[dict[str, Any]]:
    """One row per device and precision it has a dense peak for."""
    return [
        {
            "device": device.name,
            "kind": device.kind,
            "precision": label,
            "peak": peak,
            "derived": key in device.derived,
        }
        for device in devices
        for key, label, _, _ in PRECISIONS
        if (peak := device.peak(key)) is not None
    ]


def precision_chart(devices: list[Device], title: str) -> VegaSpec:
    """A dot plot: devices down, dense peak across (log, SI), one mark per precision."""
    rows = precision_rows(devices)
    if not rows:
        return {}
    order = list(dict.fromkeys(r["device"] for r in rows))
    labels = [label for _, label, _, _ in PRECISIONS]
    chart = (
        alt.Chart(inline(rows))
        .mark_point(filled=True, size=70, opacity=0.9)
        .encode(
            x=alt.X(
                "peak:Q",
                scale=alt.Scale(type="log"),
                axis=alt.Axis(format="~s", title="dense peak (FLOP/s, log scale)"),
            ),
            y=alt.Y("device:N", sort=order, title=None, axis=alt.Axis(labelLimit=360)),
            color=alt.Color(
                "precision:N",
                scale=alt.Scale(domain=labels, range=[c for _, _, c, _ in PRECISIONS]),
                legend=alt.Legend(orient="bottom", title=None, columns=5),
            ),
            shape=alt.Shape(
                "precision:N",
                scale=alt.Scale(domain=labels, range=[s for _, _, _, s in PRECISIONS]),
            ),
            tooltip=[
                alt.Tooltip("device:N"),
                alt.Tooltip("precision:N"),
                alt.Tooltip("peak:Q", title="dense peak (FLOP/s)", format=".4~s"),
                alt.Tooltip("derived:N", title="derived from other figures"),
            ],
        )
        .properties(
            title=alt.Title(title, anchor="start"),
            width="container",
            height=ROW_PX * len(order),
        )
    )
    return spec_of(chart)
