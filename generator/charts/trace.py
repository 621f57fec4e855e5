"""The charts of a profiler trace's page as Vega-Lite written directly, without Altair.

A report has a trace page per profiled run, thousands of them; Altair took ~10 ms a chart
to build and copy the same chart objects each time (40 ms a page, the largest share of a
run's cost once its trace analysis is stored). These functions write the spec Altair wrote
for the same data, key for key (the golden trace page pins it): points and roofs as named
`datasets` (`inline_spec`), the rest fixed but for the domain, the colour groups, the sort
order and the sizes that the data decide.

Per-op or per-layer points (analytic FLOPs over measured time) are drawn as triangles, so
they never pass for ncu-counted circles or modelled diamonds.
"""

from __future__ import annotations

import math
from typing import Any

from generator.charts.roof_names import NAME_PX, roof_name, roof_name_rows
from generator.charts.roofs import (
    RIGHT_THIRD,
    apart,
    ridge_row,
    roof_domain,
    short_label,
)
from generator.charts.scales import (
    AXIS_LABEL_PX,
    DIRECT_LABELS_MAX,
    GUIDE_COLOUR,
    LEGEND_LAYOUT,
    PALETTE,
    PLAIN_4,
    PLAIN_AXIS,
    SECONDS_LABEL,
    fit_title_spec,
    label_limit,
    legend_columns,
    named_data,
    roof_polyline,
    short_name,
)
from generator.charts.vega import VegaSpec

TRACE_SHAPE = "triangle-up"
TRACE_PX = 360  # a trace roofline's height
SCHEMA = "https://vega.github.io/schema/vega-lite/v6.4.1.json"  # what Altair 6.3 writes
_VIEW = {"continuousHeight": 300, "continuousWidth": 300}  # Altair's default theme
_AI_TITLE = "arithmetic intensity (FLOP/byte, analytic FLOPs over minimal bytes)"


def top_level(spec: VegaSpec, datasets: VegaSpec) -> VegaSpec:
    """As Altair's to_dict and `finish` leave a top-level chart."""
    return {
        "$schema": SCHEMA,
        "config": {"legend": {"layout": LEGEND_LAYOUT}, "view": dict(_VIEW)},
        **spec,
        "datasets": datasets,
    }


def _ai_x(domain: tuple[float, float]) -> VegaSpec:
    return {
        "axis": {"format": PLAIN_AXIS},
        "field": "ai",
        "scale": {"domain": list(domain), "nice": False, "type": "log"},
        "title": _AI_TITLE,
        "type": "quantitative",
    }


def _log_y(field: str) -> VegaSpec:
    return {
        "axis": {"format": "~s"},
        "field": field,
        "scale": {"type": "log"},
        "title": "attained (FLOP/s)",
        "type": "quantitative",
    }


def _legend(groups: list[str]) -> VegaSpec:
    limit = label_limit(groups)
    return {
        "columns": legend_columns(groups, limit),
        "labelLimit": limit,
        "orient": "bottom",
        "title": None,
        "values": groups,
    }


def _ridges(name: str, text: str, domain: tuple[float, float]) -> list[VegaSpec]:
    x, y = _ai_x(domain), _log_y("flops_per_s")
    tooltip = [{"field": "ridge", "title": "ridge (FLOP/byte)", "type": "nominal"}]
    return [
        {
            "data": {"name": name},
            "encoding": {"tooltip": tooltip, "x": x, "y": y, "y2": {"value": "height"}},
            "mark": {"color": GUIDE_COLOUR, "strokeDash": [2, 3], "strokeWidth": 1,
                     "type": "rule"},
        },
        {
            "data": {"name": text},
            "encoding": {"text": {"field": "ridge_at", "type": "nominal"}, "x": x, "y": y},
            "mark": {"align": "left", "baseline": "top", "color": GUIDE_COLOUR, "dx": 4, "dy": 6,
                     "fontSize": 10, "type": "text"},
        },
    ]  # fmt: skip


def _point_labels(
    points: list[dict[str, Any]], domain: tuple[float, float], datasets: VegaSpec
) -> list[VegaSpec]:
    """Each point's name beside it, left of it in the right third (`roofs.point_labels`)."""
    if len(points) > DIRECT_LABELS_MAX:
        return []
    low, high = (math.log10(bound) for bound in domain)
    layers = []
    for align, dx, keep in (("left", 7, False), ("right", -7, True)):
        rows = [
            {**p, "point_label": short_label(str(p.get("name", "")))}
            for p in points
            if (math.log10(p["ai"]) > low + RIGHT_THIRD * (high - low)) == keep
        ]
        if rows:
            name = named_data(rows, datasets)
            layers.append({
                "data": {"name": name},
                "encoding": {"text": {"field": "point_label", "type": "nominal"},
                             "x": _ai_x(domain), "y": _log_y("attained")},
                "mark": {"align": align, "color": GUIDE_COLOUR, "dx": dx, "dy": -7,
                         "fontSize": 10, "type": "text"},
            })  # fmt: skip
    return layers


def trace_roofline(
    points: list[dict[str, Any]],
    roofs: list[dict[str, Any]],
    colour: str,
    title: str,
    labels: bool = True,
) -> VegaSpec:
    """points: {"label", colour, "ai", "attained", "time_s"}; roofs: {"label", "device",
    "precision", "source", "peak", "bandwidth"}, each named beside its flat part. Point size is the time spent; each roof's ridge is marked. `labels` False:
    names in the tooltip only (points of one colour that sit together, e.g. a rank's steps)."""
    points = [p for p in points if p.get("ai") and p.get("attained")]
    if not points:
        return {}
    for point in points:
        point["name"] = short_name(point["label"])
    ridges = [ridge_row(r["peak"], r["bandwidth"], str(r["label"])) for r in roofs]
    domain = roof_domain([p["ai"] for p in points], [r["ai"] for r in ridges])
    datasets: VegaSpec = {}  # the spec's `datasets`: rows by name (named_data)
    layers = []
    rows = [
        row
        for roof in roofs
        for row in roof_polyline(
            roof["peak"], roof["bandwidth"], *domain, ceiling=roof["label"],
            device=roof["device"], precision=roof["precision"],
        )
    ]  # fmt: skip
    if rows:
        layers.append({
            "data": {"name": named_data(rows, datasets)},
            "encoding": {
                "detail": {"field": "ceiling", "type": "nominal"},
                "order": {"field": "order", "type": "quantitative"},
                "strokeWidth": {"value": 1.5},
                "tooltip": [{"field": "ceiling", "title": "roof", "type": "nominal"}],
                "x": _ai_x(domain),
                "y": _log_y("flops_per_s"),
            },
            "mark": {"color": GUIDE_COLOUR, "strokeDash": [6, 3], "type": "line"},
        })  # fmt: skip
    groups = sorted({str(p.get(colour)) for p in points})
    layers.append({
        "data": {"name": named_data(points, datasets)},
        "encoding": {
            "color": {
                "field": colour,
                "legend": _legend(groups),
                "scale": {"domain": groups,
                          "range": [PALETTE[i % len(PALETTE)] for i in range(len(groups))]},
                "type": "nominal",
            },
            "size": {"field": "time_s", "legend": None, "scale": {"range": [30, 400]},
                     "title": "time (s)", "type": "quantitative"},
            "tooltip": [
                {"field": "name", "title": "name", "type": "nominal"},
                {"field": colour, "type": "nominal"},
                {"field": "time_s", "format": ".3~s", "title": "time (s)", "type": "quantitative"},
                {"field": "ai", "format": PLAIN_4, "title": "AI (FLOP/byte)",
                 "type": "quantitative"},
                {"field": "attained", "format": ".4~s", "title": "FLOP/s (analytic / measured)",
                 "type": "quantitative"},
            ],
            "x": _ai_x(domain),
            "y": _log_y("attained"),
        },
        "mark": {"filled": True, "opacity": 0.8, "shape": TRACE_SHAPE, "type": "point"},
    })  # fmt: skip
    if ridges:
        text = named_data(apart(ridges), datasets)  # close ridges: one text (roofs.apart)
        layers.extend(_ridges(named_data(ridges, datasets), text, domain))
    names = roof_name_rows(
        [{"roof_name": roof_name(r["device"], r["precision"], r["source"]), "peak": r["peak"],
          "bandwidth": r["bandwidth"]} for r in roofs],
        domain, [*(r["flops_per_s"] for r in rows), *(p["attained"] for p in points)], TRACE_PX,
    )  # fmt: skip
    for align, dx in (("right", -3), ("left", 4)):  # as roof_names.roof_name_marks
        if side := [n for n in names if n["align"] == align]:
            layers.append({
                "data": {"name": named_data(side, datasets)},
                "encoding": {"text": {"field": "roof_name", "type": "nominal"},
                             "x": _ai_x(domain), "y": _log_y("name_at")},
                "mark": {"align": align, "baseline": "bottom", "color": GUIDE_COLOUR, "dx": dx,
                         "fontSize": NAME_PX, "type": "text"},
            })  # fmt: skip
    if labels:
        layers.extend(_point_labels(points, domain, datasets))
    spec = {
        "height": TRACE_PX,
        "layer": layers,
        "title": fit_title_spec(title),
        "width": "container",
    }
    return top_level(spec, datasets)


def time_bars(rows: list[dict[str, Any]], category: str, title: str) -> VegaSpec:
    """Horizontal bars of time per category, largest first. rows: {category, "time_s"}."""
    rows = [r for r in rows if r.get("time_s")]
    if not rows:
        return {}
    order = [r[category] for r in sorted(rows, key=lambda r: -r["time_s"])]
    datasets: VegaSpec = {}  # the spec's `datasets`: rows by name (named_data)
    spec = {
        "data": {"name": named_data(rows, datasets)},
        "encoding": {
            "tooltip": [
                {"field": category, "type": "nominal"},
                {"field": "time_s", "format": ".3~s", "type": "quantitative"},
            ],
            "x": {"axis": {"format": "~s", "labelExpr": SECONDS_LABEL}, "field": "time_s",
                  "title": "time", "type": "quantitative"},
            "y": {"axis": {"labelLimit": label_limit(order, AXIS_LABEL_PX)}, "field": category,
                  "sort": order, "title": None, "type": "nominal"},
        },
        "height": 22 * len(order) + 20,
        "mark": {"type": "bar"},
        "title": fit_title_spec(title),
        "width": "container",
    }  # fmt: skip
    return top_level(spec, datasets)
