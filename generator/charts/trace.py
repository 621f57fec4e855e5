"""Charts of a profiler trace: per-op or per-layer points (analytic FLOPs over measured
time, drawn as triangles so they never pass for ncu-counted circles or modelled diamonds)
under the roofs they run against, and where the time went."""

from __future__ import annotations

from typing import Any

import altair as alt

from generator.charts.roofs import ai_x, point_labels, ridge_marks, ridge_row, roof_domain
from generator.charts.scales import (
    AXIS_LABEL_PX,
    GUIDE_COLOUR,
    PALETTE,
    bottom_legend,
    finish,
    fit_title,
    inline,
    label_limit,
    log_y,
    roof_polyline,
    seconds_axis,
    short_name,
)

TRACE_SHAPE = "triangle-up"


def trace_roofline(
    points: list[dict[str, Any]],
    roofs: list[dict[str, Any]],
    colour: str,
    title: str,
) -> dict[str, Any]:
    """points: {"label", colour, "ai", "attained", "time_s"}; roofs: {"label", "peak",
    "bandwidth"}. Point size is the time spent; each roof's ridge is marked."""
    points = [p for p in points if p.get("ai") and p.get("attained")]
    if not points:
        return {}
    for point in points:
        point["name"] = short_name(point["label"])
    ridges = [ridge_row(r["peak"], r["bandwidth"], str(r["label"])) for r in roofs]
    domain = roof_domain([p["ai"] for p in points], [r["ai"] for r in ridges])
    x = ai_x(domain, "arithmetic intensity (FLOP/byte, analytic FLOPs over minimal bytes)")
    layers = []
    rows = [
        row
        for roof in roofs
        for row in roof_polyline(roof["peak"], roof["bandwidth"], *domain, ceiling=roof["label"])
    ]
    if rows:
        layers.append(
            alt.Chart(inline(rows))
            .mark_line(strokeDash=[6, 3], color=GUIDE_COLOUR)
            .encode(
                x=x,
                y=log_y("flops_per_s"),
                order="order:Q",
                detail="ceiling:N",
                strokeWidth=alt.value(1.5),
                tooltip=[alt.Tooltip("ceiling:N", title="roof")],
            )
        )
    groups = sorted({str(p.get(colour)) for p in points})
    layers.append(
        alt.Chart(inline(points))
        .mark_point(filled=True, shape=TRACE_SHAPE, opacity=0.8)
        .encode(
            x=x,
            y=log_y("attained"),
            color=alt.Color(
                f"{colour}:N",
                scale=alt.Scale(
                    domain=groups, range=[PALETTE[i % len(PALETTE)] for i in range(len(groups))]
                ),
                legend=bottom_legend(groups),
            ),
            size=alt.Size(
                "time_s:Q", title="time (s)", legend=None, scale=alt.Scale(range=[30, 400])
            ),
            tooltip=[
                alt.Tooltip("name:N", title="name"),
                alt.Tooltip(f"{colour}:N"),
                alt.Tooltip("time_s:Q", title="time (s)", format=".3~s"),
                alt.Tooltip("ai:Q", title="AI (FLOP/byte)", format=".4~g"),
                alt.Tooltip("attained:Q", title="FLOP/s (analytic / measured)", format=".4~s"),
            ],
        )
    )
    layers.extend(ridge_marks(ridges, x))
    layers.extend(point_labels(points, x, log_y("attained"), domain, field="name"))
    chart = alt.layer(*layers).properties(title=fit_title(title), width="container", height=360)
    return finish(chart)


def time_bars(rows: list[dict[str, Any]], category: str, title: str) -> dict[str, Any]:
    """Horizontal bars of time per category, largest first. rows: {category, "time_s"}."""
    rows = [r for r in rows if r.get("time_s")]
    if not rows:
        return {}
    order = [r[category] for r in sorted(rows, key=lambda r: -r["time_s"])]
    chart = (
        alt.Chart(inline(rows))
        .mark_bar()
        .encode(
            y=alt.Y(
                f"{category}:N",
                sort=order,
                title=None,
                axis=alt.Axis(labelLimit=label_limit(order, AXIS_LABEL_PX)),
            ),
            x=alt.X("time_s:Q", title="time", axis=seconds_axis()),
            tooltip=[alt.Tooltip(f"{category}:N"), alt.Tooltip("time_s:Q", format=".3~s")],
        )
        .properties(title=fit_title(title), width="container", height=22 * len(order) + 20)
    )
    return finish(chart)
