"""Charts of the seeds' analyses: throughput against batch (with each series' saturation
point) and where a training step's time goes (forward, loss, backward, optimizer)."""

from __future__ import annotations

from typing import Any

import altair as alt

from generator.charts.scales import model_scale

PART_ORDER = ["forward", "loss", "backward", "optimizer step"]
PART_COLOURS = ["#4c78a8", "#bab0ac", "#f58518", "#54a24b"]


def saturation_chart(rows: list[dict[str, Any]], title: str) -> dict[str, Any]:
    """Throughput against batch on log-log axes (base 2 for the batch), one colour per model
    and one shape per variant (phase, input, precision), 95 % intervals as error bars and
    each series' saturation point ringed.

    rows: {"series", "model", "variant", "batch", "throughput", "low", "high", "saturation"}."""
    if not rows:
        return {}
    data = alt.Data(values=rows)  # type: ignore[no-untyped-call]
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
        axis=alt.Axis(format="~s"),
    )
    colour = alt.Color(
        "model:N",
        scale=model_scale(),
        legend=alt.Legend(orient="bottom", title="model", values=models, columns=3, labelLimit=220),
    )
    shape = alt.Shape(
        "variant:N",
        legend=alt.Legend(
            orient="bottom", title="phase (input, precision)", columns=1, labelLimit=320
        )
        if len(variants) > 1
        else None,
    )
    tooltip = [
        alt.Tooltip("series:N"),
        alt.Tooltip("batch:Q"),
        alt.Tooltip("throughput:Q", title="samples/s", format=".4~s"),
        alt.Tooltip("low:Q", title="95 % CI low", format=".4~s"),
        alt.Tooltip("high:Q", title="95 % CI high", format=".4~s"),
    ]
    base = alt.Chart(data)
    line = base.mark_line(opacity=0.45).encode(x=x, y=y, color=colour, detail="series:N")
    bars = base.mark_errorbar(ticks=True).encode(
        x=x, y=alt.Y("low:Q", title=y_title), y2="high:Q", color=colour, detail="series:N"
    )
    points = base.mark_point(filled=True, size=60).encode(
        x=x, y=y, color=colour, shape=shape, tooltip=tooltip
    )
    ring = (
        base.transform_filter(alt.datum.saturation)
        .mark_point(shape="circle", size=420, filled=False, strokeWidth=2, color="black")
        .encode(x=x, y=y, tooltip=[*tooltip, alt.Tooltip("saturation:N", title="saturates")])
    )
    chart = alt.layer(line, bars, points, ring).properties(
        title=title, width="container", height=360
    )
    return dict(chart.to_dict())


def parts_chart(rows: list[dict[str, Any]], title: str) -> dict[str, Any]:
    """One horizontal bar per workload, stacked by part of the step (median times; each
    part's interval in the tooltip), seconds with SI tick labels.

    rows: {"label", "part", "median_s", "low_s", "high_s"}."""
    if not rows:
        return {}
    labels = list(dict.fromkeys(r["label"] for r in rows))
    order = {part: i for i, part in enumerate(PART_ORDER)}
    values = [{**r, "order": order.get(r["part"], len(order))} for r in rows]
    chart = (
        alt.Chart(alt.Data(values=values))  # type: ignore[no-untyped-call]
        .mark_bar()
        .encode(
            y=alt.Y("label:N", sort=labels, title=None, axis=alt.Axis(labelLimit=300)),
            x=alt.X(
                "median_s:Q",
                stack="zero",
                title="median time per part of the step (s)",
                # SI labels, and a plain 0 (not "0m") at the origin
                axis=alt.Axis(
                    format="~s", tickCount=8, labelExpr="datum.value == 0 ? '0' : datum.label"
                ),
            ),
            color=alt.Color(
                "part:N",
                scale=alt.Scale(domain=PART_ORDER, range=PART_COLOURS),
                legend=alt.Legend(orient="bottom", title="part of the step"),
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
        .properties(title=title, width="container", height=max(60, 24 * len(labels)))
    )
    return dict(chart.to_dict())
