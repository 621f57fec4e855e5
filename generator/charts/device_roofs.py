"""Rooflines of several devices: the catalog's datasheet roofs a few devices at a time
(Hardware), and every step of the report on its device's roofs (landing page, Overview).
Each device in its colour from the report's palette, each roof named beside it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt

from generator.analysis.roofs import DATASHEET, roof_for
from generator.catalog import Device
from generator.charts.roof_names import roof_name, roof_name_marks, roof_name_rows
from generator.charts.roofs import (
    RidgeRow,
    ai_x,
    kind_shape,
    point_labels,
    ridge_marks,
    ridge_row,
    roof_domain,
    roof_lines,
    short_label,
)
from generator.charts.scales import (
    DIRECT_LABELS_MAX,
    PLAIN_4,
    bottom_legend,
    device_dash_scale,
    device_order,
    device_scale,
    device_shape_scale,
    finish,
    fit_title,
    inline,
    log_y,
    roof_polyline,
)
from generator.charts.vega import VegaSpec
from generator.records.peaks import PEAK_LABELS

OVERVIEW_PX = 420
CATALOG_PX = 360


class DeviceRidge(RidgeRow):
    """A catalog device's ridge (its `device` always set), with the roof it is the corner
    of."""

    bandwidth: float
    precision: str


def drawn_devices(
    devices: list[Device], peak_key: str, keys: Mapping[str, str] | None = None
) -> list[Device]:
    """The devices `multi_device_roofline` draws: those with a datasheet roof for the peak
    (or for their own peak in `keys`): a TPU has no FP32 peak in the catalog, a CPU no
    tensor cores."""
    return [
        d
        for d in devices
        if roof_for(d.name, (keys or {}).get(d.id, peak_key), DATASHEET, catalog=(d,))
    ]


def multi_device_roofline(
    devices: list[Device],
    peak_key: str,
    title: str,
    keys: Mapping[str, str] | None = None,
) -> VegaSpec:
    """Each device's roof for one datasheet peak (as seed 003's Figure 1): memory slope up
    to the ridge, then flat; each device in its hue and dash, a marker at its ridge, its
    name beside its roof, the x domain wide enough for every slope and flat part. The
    Hardware page draws the catalog a few devices at a time: thirty roofs on one chart
    cannot each be named. keys: catalog id -> another peak for that device (a CPU whose
    datasheet states no BF16 peak), named with its own precision."""
    ridges: list[DeviceRidge] = []
    for device in drawn_devices(devices, peak_key, keys):
        key = (keys or {}).get(device.id, peak_key)
        precision = PEAK_LABELS[key]
        roof = roof_for(device.name, key, DATASHEET, catalog=(device,))
        assert roof is not None  # drawn_devices keeps those with one
        peak, bandwidth = roof.peak_flops_per_s, roof.bandwidth_bytes_per_s
        ridges.append(
            {**ridge_row(peak, bandwidth, short_label(device.name)), "device": device.name,
             "bandwidth": bandwidth, "precision": precision}
        )  # fmt: skip
    if not ridges:
        return {}
    domain = roof_domain([], [r["ai"] for r in ridges])
    rows = [
        row
        for r in ridges
        for row in roof_polyline(
            r["flops_per_s"], r["bandwidth"], *domain, device=r["device"], precision=r["precision"]
        )
    ]
    x = ai_x(domain, "arithmetic intensity (FLOP/byte)")
    names = {r["device"] for r in ridges}
    # catalog order, as the scale: a legend row per device, hue and dash and marker in one
    legend = bottom_legend([n for n in device_order(names) if n in names])
    color = alt.Color("device:N", scale=device_scale(names), legend=legend)
    lines = _device_roofs(rows, x, color, names, legend)
    points = (
        alt.Chart(inline(ridges))
        .mark_point(filled=True, size=70, stroke="black", strokeWidth=0.5)
        .encode(
            x=x,
            y=log_y("flops_per_s"),
            color=color,
            shape=alt.Shape("device:N", scale=device_shape_scale(names), legend=legend),
            tooltip=[
                alt.Tooltip("device:N"),
                alt.Tooltip("flops_per_s:Q", title="peak (FLOP/s)", format=".4~s"),
                alt.Tooltip("bandwidth:Q", title="bandwidth (B/s)", format=".4~s"),
                alt.Tooltip("ai:Q", title="ridge (FLOP/byte)", format=PLAIN_4),
            ],
        )
    )
    named = [
        {"roof_name": roof_name(r["device"], r["precision"], "datasheet"), "peak": r["flops_per_s"],
         "bandwidth": r["bandwidth"], "device": r["device"]}
        for r in ridges
    ]  # fmt: skip
    ys = [r["flops_per_s"] for r in rows]
    labels = roof_name_marks(roof_name_rows(named, domain, ys, CATALOG_PX), x, color)
    chart = alt.layer(lines, points, *labels).properties(
        title=fit_title(title), width="container", height=CATALOG_PX
    )
    return finish(chart)


def _device_roofs(
    rows: list[dict[str, Any]],
    x: alt.X,
    color: alt.Color,
    devices: set[str],
    legend: alt.Legend,
    **encoding: Any,
) -> alt.Chart:
    """Each device's roof polyline (`roof_polyline` rows) in its hue and dash."""
    chart: alt.Chart = (
        alt.Chart(inline(rows))
        .mark_line()
        .encode(
            x=x,
            y=log_y("flops_per_s"),
            order="order:Q",
            color=color,
            strokeDash=alt.StrokeDash("device:N", scale=device_dash_scale(devices), legend=legend),
            **encoding,
        )
    )
    return chart


SOURCE_DASHES = {"datasheet": [1, 0], "measured": [6, 3]}


def overview_roofline(
    points: list[dict[str, Any]],
    roofs: list[dict[str, Any]],
    title: str = "Every step on its device's roofline",
    dashes: Mapping[str, Sequence[int]] = SOURCE_DASHES,
    shapes: Mapping[str, str] | None = None,
) -> VegaSpec:
    """Every step point of every device on one log-log chart, each device's roofs in its
    hue, each named beside it with its precision: catalog datasheet roofs (solid) for
    ncu-measured and trace points, measured GEMM and memory roofs (dashed) for CPU points
    (modelled).

    points: {"device", "label", "kind", "ai", "attained"}; roofs: {"device", "label",
    "precision", "source" (a key of `dashes`: "datasheet" or "measured"), "peak",
    "bandwidth"}. shapes: kind -> its marker, in legend order (None: `kind_shape`, the
    kinds sorted)."""
    points = [p for p in points if p.get("ai") and p.get("attained")]
    if not points:
        return {}
    roofs = [r for r in roofs if r.get("peak") and r.get("bandwidth")]
    ridges = [
        ridge_row(r["peak"], r["bandwidth"], r["label"], device=r["device"], roof=r["label"])
        for r in roofs
    ]
    domain = roof_domain([p["ai"] for p in points], [r["ai"] for r in ridges])
    rows: list[dict[str, Any]] = []
    for roof in roofs:
        fields = {k: roof[k] for k in ("device", "precision", "source")}
        rows.extend(
            roof_polyline(roof["peak"], roof["bandwidth"], *domain, roof=roof["label"], **fields)
        )
    devices = {p["device"] for p in points} | {r["device"] for r in roofs}
    x = ai_x(domain, "arithmetic intensity (FLOP/byte)")
    legend = bottom_legend(sorted(devices), "device")
    color = alt.Color("device:N", scale=device_scale(devices), legend=legend)
    sources = [s for s in dashes if any(r["source"] == s for r in roofs)]
    dash = alt.StrokeDash(
        "source:N",
        scale=alt.Scale(domain=sources, range=[list(dashes[s]) for s in sources]),
        legend=bottom_legend(sources, "roof", symbolType="stroke"),
    )
    lines = roof_lines(rows, x, "roof", color=color, strokeDash=dash)
    present = {str(p["kind"]) for p in points}
    markers = shapes or {k: kind_shape(k) for k in sorted(present)}
    kinds = [k for k in markers if k in present]
    dots = (
        alt.Chart(inline(points))
        .mark_point(filled=True, size=90, stroke="black", strokeWidth=0.5)
        .encode(
            x=x,
            y=log_y("attained"),
            color=color,
            shape=alt.Shape(
                "kind:N",
                scale=alt.Scale(domain=kinds, range=[markers[k] for k in kinds]),
                legend=bottom_legend(kinds, "point"),
            ),
            tooltip=[
                alt.Tooltip("label:N", title="step"),
                alt.Tooltip("device:N"),
                alt.Tooltip("kind:N", title="how"),
                alt.Tooltip("ai:Q", title="AI (FLOP/byte)", format=PLAIN_4),
                alt.Tooltip("attained:Q", title="FLOP/s", format=".4~s"),
            ],
        )
    )
    named = [
        {"roof_name": roof_name(r["device"], r["precision"], r["source"]), **r} for r in roofs
    ]  # fmt: skip
    ys = [*(r["flops_per_s"] for r in rows), *(p["attained"] for p in points)]
    names = roof_name_marks(roof_name_rows(named, domain, ys, OVERVIEW_PX), x, color)
    # a ridge rule per roof while they stay few enough to tell apart
    marks = ridge_marks(ridges, x, color)[:1] if len(ridges) <= DIRECT_LABELS_MAX // 2 else []
    chart = alt.layer(
        lines, dots, *marks, *names, *point_labels(points, x, log_y("attained"), domain)
    ).properties(
        title=fit_title(title),
        width="container",
        height=OVERVIEW_PX,
    )
    return finish(chart)
