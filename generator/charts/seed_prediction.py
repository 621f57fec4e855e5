"""Published ÷ predicted per seed: each published time a point on a log axis, one row per
seed, coloured by the device it ran on, with the line where the time equals its roofline floor
(analysis/seed_prediction.py). Above 1: slower than the floor; below: faster than it allows."""

from __future__ import annotations

from typing import Any

import altair as alt

from generator.charts.scales import (
    GUIDE_COLOUR,
    PLAIN_3,
    PLAIN_AXIS,
    bottom_legend,
    device_scale,
    finish,
    fit_title,
    inline,
)


def seed_ratio_chart(rows: list[dict[str, Any]], title: str) -> dict[str, Any]:
    """rows: {"id", "seed", "device", "ratio", "bound"}; {} when no row has a ratio."""
    rows = [r for r in rows if r.get("ratio")]
    if not rows:
        return {}
    ratios = [float(r["ratio"]) for r in rows]
    domain = [min([*ratios, 1.0]) / 1.5, max([*ratios, 1.0]) * 1.5]
    x = alt.X(
        "ratio:Q",
        title="published ÷ predicted (×, log)",
        scale=alt.Scale(type="log", domain=domain, nice=False),
        axis=alt.Axis(format=PLAIN_AXIS),
    )
    seeds = sorted({str(r["seed"]) for r in rows})
    y = alt.Y("seed:N", title="seed report", sort=seeds)
    devices = {str(r["device"]) for r in rows}
    colour = alt.Color(
        "device:N", scale=device_scale(devices), legend=bottom_legend(sorted(devices), "device")
    )
    floor = (
        alt.Chart(inline([{"ratio": 1.0}]))
        .mark_rule(strokeDash=[4, 3], color=GUIDE_COLOUR)
        .encode(x=x)
    )
    points = (
        alt.Chart(inline(rows))
        .mark_point(size=80, filled=True, opacity=0.85)
        .encode(
            x=x,
            y=y,
            yOffset=alt.YOffset("jitter:Q", scale=alt.Scale(domain=[-1, 1])),
            color=colour,
            tooltip=[
                alt.Tooltip("id:N", title="row"),
                alt.Tooltip("device:N"),
                alt.Tooltip("bound:N", title="floor set by"),
                alt.Tooltip("ratio:Q", title="published ÷ predicted", format=PLAIN_3),
            ],
        )
    )
    chart = alt.layer(floor, points).properties(
        title=fit_title(title), width="container", height=max(120, 60 * len(seeds))
    )
    return finish(chart)
