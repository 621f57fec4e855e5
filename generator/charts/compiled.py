"""Eager and compiled steps of one configuration on the roofline: the same analytic FLOPs
and bytes (so the same arithmetic intensity), less or more time, so the compiled point sits
straight above or below the eager one; a line joins each pair."""

from __future__ import annotations

from typing import Any

import altair as alt

from generator.charts.roof_names import roof_name, roof_name_marks, roof_name_rows
from generator.charts.roofs import ai_x, roof_domain
from generator.charts.scales import (
    GUIDE_COLOUR,
    PLAIN_4,
    bottom_legend,
    finish,
    fit_title,
    inline,
    log_y,
    roof_polyline,
)
from generator.charts.vega import VegaSpec
from generator.formatting import si

HEIGHT_PX = 340


def compile_roofline_chart(
    points: list[dict[str, Any]],
    roof: tuple[float, float] | None,
    title: str,
    device: str = "",
) -> VegaSpec:
    """points: {"configuration", "mode", "ai", "attained"}; roof: (fp32 GEMM FLOP/s, memory
    byte/s) measured on `device` (analysis/roofs.py), named on the chart."""
    points = [p for p in points if p.get("ai") and p.get("attained")]
    if not points:
        return {}
    ridges = [roof[0] / roof[1]] if roof else []
    domain = roof_domain([p["ai"] for p in points], ridges)
    x = ai_x(domain, "arithmetic intensity (FLOP/byte, modelled)")
    modes = list(dict.fromkeys(str(p["mode"]) for p in points))
    palette = {"eager": "#4c78a8", "compile": "#e45756"}
    colour = alt.Scale(domain=modes, range=[palette.get(m, "#72b7b2") for m in modes])
    shape = alt.Scale(domain=modes, range=["circle", "diamond", "square", "triangle"][: len(modes)])
    legend = bottom_legend(modes, "mode")
    layers = []
    subtitle = None
    if roof:
        subtitle = (
            f"grey line: the fp32 roof measured on {device or 'this device'}, GEMM "
            f"{si(roof[0], 'FLOP/s')} and memory {si(roof[1], 'B/s')}"
        )
        rows = roof_polyline(roof[0], roof[1], *domain, device=device, precision="FP32")
        layers.append(
            alt.Chart(inline(rows))
            .mark_line(color=GUIDE_COLOUR, strokeWidth=2)
            .encode(x=x, y=log_y("flops_per_s"), order="order:Q")
        )
        named = [{"roof_name": roof_name(device, "FP32", "measured"), "peak": roof[0],
                  "bandwidth": roof[1]}]  # fmt: skip
        ys = [*(r["flops_per_s"] for r in rows), *(p["attained"] for p in points)]
        layers.extend(roof_name_marks(roof_name_rows(named, domain, ys, HEIGHT_PX), x))
    data = inline(points)
    layers.append(
        alt.Chart(data)
        .mark_line(color=GUIDE_COLOUR, strokeWidth=1, strokeDash=[3, 2])
        .encode(x=x, y=log_y("attained"), detail="configuration:N")
    )
    layers.append(
        alt.Chart(data)
        .mark_point(filled=True, size=90, opacity=0.9)
        .encode(
            x=x,
            y=log_y("attained"),
            color=alt.Color("mode:N", scale=colour, legend=legend),
            shape=alt.Shape("mode:N", scale=shape, legend=legend),
            tooltip=[
                alt.Tooltip("configuration:N"),
                alt.Tooltip("mode:N"),
                alt.Tooltip("ai:Q", title="AI (FLOP/byte)", format=PLAIN_4),
                alt.Tooltip("attained:Q", title="modelled FLOP/s", format=".4~s"),
            ],
        )
    )
    chart = alt.layer(*layers).properties(
        title=fit_title(title, subtitle), width="container", height=HEIGHT_PX
    )
    return finish(chart)
