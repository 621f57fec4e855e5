"""The roofline's prediction against the measurement: one point per configuration measured on
two GPUs, the predicted speedup across, the measured one up with its 95 % interval, and the
diagonal where they agree (analysis/device_prediction.py)."""

from __future__ import annotations

from typing import Any

import altair as alt

from generator.charts.scales import (
    GUIDE_COLOUR,
    PLAIN_3,
    PLAIN_AXIS,
    bottom_legend,
    finish,
    fit_title,
    inline,
)
from generator.charts.vega import VegaSpec

# The predictions' two sources: the class's own, and what the roofs alone would say of a
# host-bound step (drawn hollow: not its prediction, the one its roofs would make).
OWN, ROOFS_ALONE = "its class's prediction", "the roofs alone (host-bound steps)"


def prediction_scatter(rows: list[dict[str, Any]], title: str) -> VegaSpec:
    """rows: {"label", "class", "predicted", "roofs" (the roofline's prediction, or None),
    "measured", "low", "high" (None: no interval)}; both axes log, the same range."""
    rows = [r for r in rows if r.get("predicted") and r.get("measured")]
    if not rows:
        return {}
    points = [{**r, "source": OWN, "x": r["predicted"]} for r in rows]
    points += [
        {**r, "source": ROOFS_ALONE, "x": r["roofs"]}
        for r in rows
        if r.get("roofs") and r["class"] == "host"
    ]
    ends = [v for r in points for v in (r["x"], r["measured"], r.get("low"), r.get("high")) if v]
    domain = [min(ends) / 1.15, max(ends) * 1.15]
    scale = alt.Scale(type="log", domain=domain, nice=False)
    x = alt.X("x:Q", title="predicted speedup (×)", scale=scale, axis=alt.Axis(format=PLAIN_AXIS))
    y = alt.Y(
        "measured:Q", title="measured speedup (×, 95 % interval)", scale=scale,
        axis=alt.Axis(format=PLAIN_AXIS),
    )  # fmt: skip
    classes = sorted({str(r["class"]) for r in rows})
    colour = alt.Color("class:N", title="class on the first GPU",
                       legend=bottom_legend(classes, "class on the first GPU"))  # fmt: skip
    sources = [OWN, ROOFS_ALONE]
    fill = alt.Shape(
        "source:N",
        scale=alt.Scale(domain=sources, range=["circle", "diamond"]),
        legend=bottom_legend(sources, "prediction"),
    )
    diagonal = (
        alt.Chart(
            inline(
                [{"x": domain[0], "measured": domain[0]}, {"x": domain[1], "measured": domain[1]}]
            )
        )
        .mark_line(strokeDash=[4, 3], color=GUIDE_COLOUR)
        .encode(x=x, y=y)
    )
    own = [p for p in points if p["source"] == OWN]
    alone = [p for p in points if p["source"] == ROOFS_ALONE]
    bounded = [p for p in own if p.get("low") and p.get("high")]
    tooltip = [
        alt.Tooltip("label:N", title="configuration"),
        alt.Tooltip("class:N"),
        alt.Tooltip("source:N", title="prediction"),
        alt.Tooltip("x:Q", title="predicted (×)", format=PLAIN_3),
        alt.Tooltip("measured:Q", title="measured (×)", format=PLAIN_3),
        alt.Tooltip("low:Q", title="95 % low", format=PLAIN_3),
        alt.Tooltip("high:Q", title="95 % high", format=PLAIN_3),
    ]
    layers: list[Any] = [diagonal]
    if bounded:
        layers.append(
            alt.Chart(inline(bounded))
            .mark_errorbar(ticks=True)
            .encode(x=x, y=alt.Y("low:Q", scale=scale, title=None), y2="high:Q", color=colour)
        )
    layers.append(
        alt.Chart(inline(own))
        .mark_point(size=70, filled=True)
        .encode(x=x, y=y, color=colour, shape=fill, tooltip=tooltip)
    )
    if alone:  # hollow: not the step's prediction, the one its roofs would make
        layers.append(
            alt.Chart(inline(alone))
            .mark_point(size=70, filled=False, color=GUIDE_COLOUR)
            .encode(x=x, y=y, shape=fill, tooltip=tooltip)
        )
    layers.append(
        alt.Chart(inline(own))
        .mark_text(align="left", dx=7, dy=-7, fontSize=10, color=GUIDE_COLOUR)
        .encode(x=x, y=y, text="label:N")
    )
    chart = alt.layer(*layers).properties(title=fit_title(title), width="container", height=360)
    return finish(chart)
