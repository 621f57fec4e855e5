"""Charts of the seeds' analyses: throughput against batch (with each series' saturation
point) and where a training step's time goes (forward, loss, backward, optimizer)."""

from __future__ import annotations

from typing import Any

import altair as alt

from generator.charts.scales import (
    AXIS_LABEL_PX,
    HUES,
    SECONDS_LABEL,
    bottom_legend,
    finish,
    fit_title,
    inline,
    label_limit,
    model_dash_scale,
    model_scale,
    si_axis,
)
from generator.charts.vega import VegaSpec

PART_ORDER = ["forward", "loss", "backward", "optimizer step"]
PART_COLOURS = [HUES["blue"], HUES["grey"], HUES["orange"], HUES["bluish green"]]


def saturation_chart(rows: list[dict[str, Any]], title: str) -> VegaSpec:
    """Throughput against batch on log-log axes (base 2 for the batch), one colour and dash
    per model and one shape per variant (phase, input, precision), 95 % intervals as error bars and
    each series' saturation point ringed.

    rows: {"series", "model", "variant", "batch", "throughput", "low", "high", "saturation"}."""
    if not rows:
        return {}
    data = inline(rows)
    models = sorted({r["model"] for r in rows})
    variants = sorted({r["variant"] for r in rows})
    x = alt.X(
        "batch:Q",
        title="batch size (log₂)",
        scale=alt.Scale(type="log", base=2),
        axis=alt.Axis(values=sorted({r["batch"] for r in rows}), format="d"),
    )
    y_title = "throughput (samples/s, 95 % CI)"
    y = alt.Y(
        "throughput:Q",
        title=y_title,
        scale=alt.Scale(type="log"),
        axis=si_axis(),
    )
    # a model past the palette's seven hues repeats one with another dash: the legend draws
    # each model's line (hue and dash), so two models of one hue stay apart in it too
    legend = bottom_legend(models, "model", symbolType="stroke", symbolStrokeWidth=2.5)
    colour = alt.Color("model:N", scale=model_scale(), legend=legend)
    dash = alt.StrokeDash("model:N", scale=model_dash_scale(), legend=legend)
    shape = alt.Shape(
        "variant:N",
        legend=bottom_legend(variants, "phase (input, precision)") if len(variants) > 1 else None,
    )
    tooltip = [
        alt.Tooltip("series:N"),
        alt.Tooltip("batch:Q"),
        alt.Tooltip("throughput:Q", title="samples/s", format=".4~s"),
        alt.Tooltip("low:Q", title="95 % CI low", format=".4~s"),
        alt.Tooltip("high:Q", title="95 % CI high", format=".4~s"),
    ]
    base = alt.Chart(data)
    line = base.mark_line(opacity=0.55).encode(
        x=x, y=y, color=colour, strokeDash=dash, detail="series:N"
    )
    # error bars where a point has an interval, rings where a series saturates: no layer of
    # none (Vega warns "Infinite extent" for an empty one)
    bounded = [r for r in rows if r.get("low") is not None and r.get("high") is not None]
    bars = [
        alt.Chart(inline(bounded)).mark_errorbar(ticks=True).encode(
            x=x, y=alt.Y("low:Q", title=y_title), y2="high:Q", color=colour, detail="series:N"
        )
    ] if bounded else []  # fmt: skip
    points = base.mark_point(filled=True, size=60).encode(
        x=x, y=y, color=colour, shape=shape, tooltip=tooltip
    )
    saturated = [r for r in rows if r.get("saturation")]
    ring = [
        alt.Chart(inline(saturated))
        .mark_point(shape="circle", size=420, filled=False, strokeWidth=2, color="black")
        .encode(x=x, y=y, tooltip=[*tooltip, alt.Tooltip("saturation:N", title="saturates")])
    ] if saturated else []  # fmt: skip
    chart = alt.layer(line, *bars, points, *ring).properties(
        title=fit_title(title), width="container", height=360
    )
    return finish(chart)


def parts_chart(rows: list[dict[str, Any]], title: str) -> VegaSpec:
    """One horizontal bar per workload, stacked by part of the step (median times; each
    part's interval in the tooltip), seconds with SI tick labels.

    rows: {"label", "part", "median_s", "low_s", "high_s"}."""
    if not rows:
        return {}
    labels = list(dict.fromkeys(r["label"] for r in rows))
    order = {part: i for i, part in enumerate(PART_ORDER)}
    values = [{**r, "order": order.get(r["part"], len(order))} for r in rows]
    chart = (
        alt.Chart(inline(values))
        .mark_bar()
        .encode(
            y=alt.Y(
                "label:N",
                sort=labels,
                title=None,
                axis=alt.Axis(labelLimit=label_limit(labels, AXIS_LABEL_PX)),
            ),
            x=alt.X(
                "median_s:Q",
                stack="zero",
                title="median time per part of the step",
                # SI seconds (12ms, not 12m), and a plain 0 at the origin
                axis=alt.Axis(format="~s", tickCount=8, labelExpr=SECONDS_LABEL),
            ),
            color=alt.Color(
                "part:N",
                scale=alt.Scale(domain=PART_ORDER, range=PART_COLOURS),
                legend=bottom_legend(PART_ORDER, "part of the step"),
            ),
            order=alt.Order("order:Q"),
            tooltip=[
                alt.Tooltip("label:N", title="workload"),
                alt.Tooltip("part:N"),
                alt.Tooltip("median_s:Q", title="median (s)", format=".4~s"),
                alt.Tooltip("low_s:Q", title="95 % CI low (s)", format=".4~s"),
                alt.Tooltip("high_s:Q", title="95 % CI high (s)", format=".4~s"),
            ],
        )
        .properties(title=fit_title(title), width="container", height=max(60, 24 * len(labels)))
    )
    return finish(chart)
