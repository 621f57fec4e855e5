"""Charts of the seeds' comparisons: latency against analytic FLOPs and parameters (one point
per model, log-log, named), and speedups between devices or precisions (one dot per
configuration on a log axis, with 1× marked)."""

from __future__ import annotations

from typing import Any

import altair as alt

from generator.charts.scales import (
    AXIS_LABEL_PX,
    GUIDE_COLOUR,
    PLAIN_3,
    PLAIN_AXIS,
    bottom_legend,
    finish,
    fit_title,
    inline,
    label_limit,
    model_scale,
    seconds_axis,
    si_axis,
)
from generator.charts.vega import VegaSpec

PANEL_WIDTH = 300  # two panels side by side fit the page's column


def _panel(field: str, title: str) -> alt.LayerChart | alt.FacetChart:
    """Latency against one quantity: points with 95 % error bars and the model's name (the
    data comes from the concatenation above: one copy of the rows, not one per layer)."""
    x = alt.X(f"{field}:Q", title=title, scale=alt.Scale(type="log", nice=False, padding=18),
              axis=si_axis(tickCount=5))  # fmt: skip
    y = alt.Y(
        "median_s:Q",
        title="median latency with 95 % CI",
        scale=alt.Scale(type="log"),
        axis=seconds_axis(),
    )
    tooltip = [
        alt.Tooltip("label:N", title="model"),
        alt.Tooltip(f"{field}:Q", title=title, format=".4~s"),
        alt.Tooltip("median_s:Q", title="median (s)", format=".4~s"),
        alt.Tooltip("ci_low_s:Q", title="95 % CI low", format=".4~s"),
        alt.Tooltip("ci_high_s:Q", title="95 % CI high", format=".4~s"),
    ]
    colour = alt.Color("model:N", legend=None, scale=model_scale())
    bars = alt.Chart().mark_errorbar(ticks=True).encode(
        x=x, y=alt.Y("ci_low_s:Q", title="median latency with 95 % CI"), y2="ci_high_s:Q",
        color=colour,
    )  # fmt: skip
    points = (
        alt.Chart().mark_point(filled=True, size=60).encode(x=x, y=y, color=colour, tooltip=tooltip)
    )
    names = (
        alt.Chart()
        .mark_text(align="left", dx=6, dy=-6, fontSize=10, color=GUIDE_COLOUR)
        .encode(x=x, y=y, text="label:N")
    )
    return (
        alt.layer(bars, points, names)
        .transform_filter(f"isValid(datum.{field}) && datum.{field} > 0")
        .properties(width=PANEL_WIDTH, height=300)
    )


def latency_scatter(rows: list[dict[str, Any]], title: str) -> VegaSpec:
    """Median latency against analytic FLOPs (left) and parameters (right), log-log.

    rows: {"label", "model", "median_s", "ci_low_s", "ci_high_s", "modelled_flops", "params"}."""
    panels = [
        _panel(field, name)
        for field, name in (("modelled_flops", "analytic FLOPs"), ("params", "parameters"))
        if any(r.get(field) for r in rows)
    ]
    if not panels:
        return {}
    data = inline(rows)
    chart = (
        alt.hconcat(*panels, data=data).resolve_scale(y="shared").properties(title=fit_title(title))
    )
    return finish(chart)


def speedup_chart(rows: list[dict[str, Any]], title: str, axis_title: str) -> VegaSpec:
    """One dot per configuration, its speedup on a log axis with the 95 % interval, sorted;
    a rule at 1× (left of it, the side named faster was slower).

    rows: {"label", "phase", "speedup", "low", "high"}."""
    if not rows:
        return {}
    order = [r["label"] for r in sorted(rows, key=lambda r: r["speedup"])]
    # a ratio without an interval (not calibrated) has no ends
    values = [v for r in rows for v in (r["low"], r["high"], r["speedup"], 1.0) if v is not None]
    domain = [min(values) / 1.25, max(values) * 1.25]  # 1× always shown
    x = alt.X(
        "speedup:Q",
        title=axis_title,
        scale=alt.Scale(type="log", domain=domain, nice=False),
        axis=alt.Axis(format=PLAIN_AXIS),
    )
    y = alt.Y(
        "label:N",
        sort=order,
        title=None,
        axis=alt.Axis(labelLimit=label_limit(order, AXIS_LABEL_PX)),
    )
    phases = sorted({str(r["phase"]) for r in rows})
    colour = alt.Color("phase:N", title="phase", legend=bottom_legend(phases, "phase"))
    data = inline(rows)
    # error bars only where the ratio has an interval: a layer of none warns "Infinite extent"
    bounded = [r for r in rows if r["low"] is not None and r["high"] is not None]
    bars = [
        alt.Chart(inline(bounded))
        .mark_errorbar(ticks=True)
        .encode(x=alt.X("low:Q", title=axis_title), x2="high:Q", y=y, color=colour)
    ] if bounded else []  # fmt: skip
    points = (
        alt.Chart()
        .mark_point(filled=True, size=60)
        .encode(
            x=x,
            y=y,
            color=colour,
            tooltip=[
                alt.Tooltip("label:N", title="configuration"),
                alt.Tooltip("speedup:Q", format=PLAIN_3),
                alt.Tooltip("low:Q", title="95 % CI low", format=PLAIN_3),
                alt.Tooltip("high:Q", title="95 % CI high", format=PLAIN_3),
            ],
        )
    )
    one = (
        alt.Chart(inline([{"one": 1.0}]))
        .mark_rule(strokeDash=[4, 3], color="gray")
        .encode(x=alt.X("one:Q"))
    )
    chart = alt.layer(one, *bars, points, data=data).properties(
        title=fit_title(title), width="container", height=max(120, 20 * len(rows))
    )
    return finish(chart)
