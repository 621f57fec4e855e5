"""Bars, sweeps and heatmaps: a metric along a swept variable, per model, per layer
family, per device."""

from __future__ import annotations

import math
from typing import Any

import altair as alt

from generator.charts.scales import (
    AXIS_LABEL_PX,
    PALETTE,
    PLAIN_4,
    PLAIN_AXIS,
    SECONDS_LABEL,
    bottom_legend,
    device_dash_scale,
    device_legend,
    device_scale,
    device_shape_scale,
    finish,
    fit_title,
    inline,
    label_limit,
    model_scale,
    si_axis,
    unit_axis,
    unit_title,
)
from generator.charts.vega import VegaSpec


def sweep_chart(rows: list[dict[str, Any]], x_title: str, numeric: bool, title: str) -> VegaSpec:
    """A metric against the swept variable, with its 95 % interval as error bars; one
    series per device when the rows hold several (their optional "series"), each in its
    hue and marker. A line joins the points only along a numeric (batch) axis: between
    models or configurations there is nothing in between to draw.

    rows: {"x": value, "label": str, "value": float, "low": float, "high": float, "unit": str,
    "series": str}."""
    if not rows:
        return {}
    data = inline(rows)
    labels = [r["label"] for r in rows]
    x = (
        alt.X(
            "x:Q",
            title=x_title,
            scale=alt.Scale(type="log", base=2),
            axis=alt.Axis(values=sorted({r["x"] for r in rows}), format="d"),
        )
        if numeric
        else alt.X(
            "label:N",
            title=x_title,
            sort=list(dict.fromkeys(labels)),
            axis=alt.Axis(labelAngle=-30, labelLimit=label_limit(labels, AXIS_LABEL_PX)),
        )
    )
    unit = rows[0]["unit"]
    y = alt.Y("value:Q", title=unit_title(unit), scale=alt.Scale(zero=False), axis=unit_axis(unit))
    tooltip = [
        alt.Tooltip("label:N", title=x_title),
        alt.Tooltip("value:Q", title=unit, format=".4~s"),
        alt.Tooltip("low:Q", title="95 % CI low", format=".4~s"),
        alt.Tooltip("high:Q", title="95 % CI high", format=".4~s"),
    ]
    series = {str(r["series"]) for r in rows if r.get("series") is not None}
    by_series: VegaSpec = {}
    marker: VegaSpec = {}
    dash: VegaSpec = {}
    if len(series) > 1:  # else one device: no legend to read
        legend = device_legend(series, "device")
        by_series["color"] = alt.Color(
            "series:N", title="device", scale=device_scale(series), legend=legend
        )
        marker["shape"] = alt.Shape(
            "series:N", title="device", scale=device_shape_scale(series), legend=legend
        )
        dash["strokeDash"] = alt.StrokeDash(
            "series:N", title="device", scale=device_dash_scale(series), legend=legend
        )
        tooltip.insert(0, alt.Tooltip("series:N", title="device"))
    points = (
        alt.Chart(data)
        .mark_point(filled=True, size=70)
        .encode(x=x, y=y, tooltip=tooltip, **by_series, **marker)
    )
    # error bars only where an interval exists: a layer of none warns "Infinite extent"
    bounded = [r for r in rows if r.get("low") is not None and r.get("high") is not None]
    layers = [points]
    if bounded:
        bars = (
            alt.Chart(inline(bounded))
            .mark_errorbar(ticks=True)
            .encode(x=x, y=alt.Y("low:Q", title=unit_title(unit)), y2="high:Q", **by_series)
        )
        layers.insert(0, bars)
    if numeric:
        line = alt.Chart(data).mark_line(opacity=0.5).encode(x=x, y=y, **by_series, **dash)
        layers.insert(0, line)
    chart = alt.layer(*layers).properties(title=fit_title(title), width="container", height=280)
    return finish(chart)


def bound_heatmap(cells: list[dict[str, Any]]) -> VegaSpec:
    """Workload × device grid coloured by roofline-bound step time (log scale).

    cells: {"workload", "device", "bound_s", "limited_by"}."""
    if not cells:
        return {}
    base = alt.Chart(inline(cells)).encode(
        x=alt.X(
            "device:N",
            title=None,
            axis=alt.Axis(
                labelAngle=-40, labelLimit=label_limit([c["device"] for c in cells], AXIS_LABEL_PX)
            ),
        ),
        y=alt.Y(
            "workload:N",
            title=None,
            axis=alt.Axis(labelLimit=label_limit([c["workload"] for c in cells], AXIS_LABEL_PX)),
        ),
    )
    rects = base.mark_rect().encode(
        color=alt.Color(
            "bound_s:Q",
            title="floor per step",
            scale=alt.Scale(type="log", scheme="viridis"),
            legend=alt.Legend(orient="bottom", format="~s", labelExpr=SECONDS_LABEL),
        ),
        tooltip=[
            alt.Tooltip("workload:N"),
            alt.Tooltip("device:N"),
            alt.Tooltip("bound_s:Q", title="roofline-bound step time (s)", format=".3~s"),
            alt.Tooltip("limited_by:N", title="limited by"),
        ],
    )
    # viridis runs dark to bright: dark text on the brighter upper half of the log range
    times = [c["bound_s"] for c in cells]
    middle = math.sqrt(min(times) * max(times))
    marks = base.mark_text(fontSize=9).encode(
        text=alt.Text("mark:N"),
        color=alt.condition(alt.datum.bound_s > middle, alt.value("black"), alt.value("white")),
    )
    rows = len({c["workload"] for c in cells})
    # what each cell's letter stands for, from the cells themselves
    letters = {str(c["mark"]): str(c["limited_by"]) for c in cells if c.get("limited_by")}
    key = ", ".join(f"{mark} = {limit}-bound" for mark, limit in sorted(letters.items()))
    chart = alt.layer(rects, marks).properties(
        title=fit_title("Roofline-bound step time on every catalog device", key),
        width="container",
        height=max(200, 18 * rows),
    )
    return finish(chart)


def model_bars(rows: list[dict[str, Any]], field: str, title: str, unit: str) -> VegaSpec:
    """One horizontal bar per model on a log axis (values span six orders of magnitude)."""
    rows = [r for r in rows if r.get(field)]
    if not rows:
        return {}
    order = [r["model"] for r in sorted(rows, key=lambda r: -r[field])]
    # A log axis has no zero: bars start at the decade below the smallest value.
    floor = 10 ** math.floor(math.log10(min(r[field] for r in rows)))
    chart = (
        alt.Chart(inline(rows))
        .mark_bar()
        .encode(
            y=alt.Y("model:N", sort=order, title=None),
            x=alt.X(
                f"{field}:Q",
                title=unit,
                scale=alt.Scale(type="log", domainMin=floor),
                axis=si_axis(),
            ),
            x2=alt.datum(floor),
            color=alt.Color("model:N", legend=None, scale=model_scale()),
            tooltip=[
                alt.Tooltip("model:N"),
                alt.Tooltip("dataset:N", title="input"),
                alt.Tooltip(f"{field}:Q", title=unit, format=".4~s"),
            ],
        )
        .properties(title=fit_title(title), width="container", height=22 * len(rows))
    )
    return finish(chart)


def model_intensity(rows: list[dict[str, Any]]) -> VegaSpec:
    """Analytic AI of a training step per model, one point per batch size."""
    rows = [r for r in rows if r.get("arithmetic_intensity")]
    if not rows:
        return {}
    chart = (
        alt.Chart(inline(rows))
        .mark_point(filled=True, size=70)
        .encode(
            y=alt.Y("model:N", title=None),
            x=alt.X(
                "arithmetic_intensity:Q",
                title="analytic AI of a training step (FLOP/byte of minimal traffic)",
                scale=alt.Scale(type="log"),
                axis=alt.Axis(format=PLAIN_AXIS),
            ),
            color=alt.Color(
                "batch:O",
                scale=alt.Scale(range=list(PALETTE)),
                legend=alt.Legend(title="batch", orient="bottom"),
            ),
            tooltip=[
                alt.Tooltip("model:N"),
                alt.Tooltip("batch:O"),
                alt.Tooltip("arithmetic_intensity:Q", title="AI (FLOP/byte)", format=PLAIN_4),
            ],
        )
        .properties(
            title=fit_title("Analytic arithmetic intensity by batch size"),
            width="container",
            height=22 * len({r["model"] for r in rows}),
        )
    )
    return finish(chart)


def breakdown_chart(rows: list[dict[str, Any]], title: str) -> VegaSpec:
    """Share of each layer family in forward FLOPs, backward FLOPs, saved activations and
    parameters (seed 003's Figures 8 and 9, from the model instead of a profiler).

    rows: {"measure", "family", "value"}."""
    rows = [r for r in rows if r["value"] > 0]
    if not rows:
        return {}
    measures = list(dict.fromkeys(r["measure"] for r in rows))
    families = sorted({r["family"] for r in rows})
    chart = (
        alt.Chart(inline(rows))
        .mark_bar()
        .encode(
            y=alt.Y("measure:N", sort=measures, title=None),
            x=alt.X("value:Q", stack="normalize", title="share", axis=alt.Axis(format="%")),
            # stacked segments have no marker: the chart's own families get distinct hues
            color=alt.Color(
                "family:N",
                scale=alt.Scale(
                    domain=families, range=[PALETTE[i % len(PALETTE)] for i in range(len(families))]
                ),
                legend=bottom_legend(families, "layer family"),
            ),
            order=alt.Order("family:N"),
            tooltip=[
                alt.Tooltip("measure:N"),
                alt.Tooltip("family:N"),
                alt.Tooltip("value:Q", format=".4~s"),
            ],
        )
        .properties(title=fit_title(title), width="container", height=40 * len(measures))
    )
    return finish(chart)
