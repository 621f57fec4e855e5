"""The hierarchical roofline chart: one roof per memory level (its bandwidth slope up to
the ridge, then the compute peak), each kernel drawn once per level at that level's
arithmetic intensity and the same attained FLOP/s, the points of one kernel joined.

A kernel's L1, L2 and DRAM points lie on one horizontal line: the gaps between them show
its reuse in each cache, and the level whose point sits nearest its own roof binds it.
"""

from __future__ import annotations

from typing import Any, TypedDict

import altair as alt
import polars as pl

from generator.analysis.hierarchy import PREFIX, HierarchyTable, precision_label
from generator.charts.roof_names import roof_name, roof_name_marks
from generator.charts.scales import (
    PLAIN_3,
    PLAIN_4,
    PLAIN_AXIS,
    inline,
    log_y,
    roof_polyline,
    short_name,
    spec_of,
)
from generator.charts.vega import VegaSpec
from generator.formatting import plain, si

# Okabe–Ito blue, bluish green and vermillion: three hues colour-blind readers tell apart,
# each level also with its own marker. Diamonds and up-triangles stay free: they mark
# modelled and trace points elsewhere (DESIGN.md).
LEVEL_COLOURS: dict[str, str] = {"L1": "#0072B2", "L2": "#009E73", "DRAM": "#D55E00"}
LEVEL_SHAPES: dict[str, str] = {"L1": "circle", "L2": "square", "DRAM": "triangle-down"}


class LevelPoint(TypedDict):
    """A kernel at one memory level: that level's intensity, the kernel's FLOP/s."""

    kernel: str
    kernel_id: int
    level: str
    ai: float
    attained_flops_per_s: float
    bytes: float
    time_us: float
    time_share_pct: float
    binding: str


class KernelJoin(TypedDict):
    """The line joining one kernel's points, from its lowest intensity to its highest."""

    kernel: str
    ai: float
    ai2: float
    attained_flops_per_s: float


class LevelRidge(TypedDict):
    level: str
    ai: float
    flops_per_s: float
    ridge: str


class StepPoint(TypedDict):
    """The whole step at one level."""

    level: str
    ai: float
    attained_flops_per_s: float
    label: str


GUIDE_COLOUR = "#888"  # joins, ridge labels: readable on light and dark themes
# Three points per kernel; Altair refuses inline data over 5,000 rows, and a few hundred
# kernels already cover nearly all of a step's time.
MAX_KERNELS = 400
POINT_MARGIN = 3.0
RIDGE_MARGIN = 8.0


def _domain(ais: list[float], ridges: list[float]) -> list[float]:
    """Every point and ridge with room either side (the roof's slope and flat part)."""
    lows = [a / POINT_MARGIN for a in ais] + [r / RIDGE_MARGIN for r in ridges]
    highs = [a * POINT_MARGIN for a in ais] + [r * RIDGE_MARGIN for r in ridges]
    return [min(lows), max(highs)] if lows else [0.1, 1000.0]


def _level_encoding(levels: tuple[str, ...]) -> VegaSpec:
    """Hue and marker by level, one legend under the chart."""
    legend = alt.Legend(orient="bottom", title="memory level", values=list(levels))
    return {
        "color": alt.Color(
            "level:N",
            scale=alt.Scale(domain=list(LEVEL_COLOURS), range=list(LEVEL_COLOURS.values())),
            legend=legend,
        ),
        "shape": alt.Shape(
            "level:N",
            scale=alt.Scale(domain=list(LEVEL_SHAPES), range=list(LEVEL_SHAPES.values())),
            legend=legend,
        ),
    }


def _points(table: HierarchyTable) -> tuple[list[LevelPoint], list[KernelJoin], int]:
    """(one row per kernel and level, one join per kernel, kernels drawn)."""
    total_time = float(table.kernels["time_s"].sum() or 0.0)
    drawn = table.kernels.filter(pl.col("attained_flops_per_s") > 0).head(MAX_KERNELS)
    points: list[LevelPoint] = []
    joins: list[KernelJoin] = []
    for row in drawn.iter_rows(named=True):
        name = short_name(row["kernel_name"])
        at = {lvl: ai for lvl in table.levels if (ai := row[f"{PREFIX[lvl]}_ai"]) and ai > 0}
        for level, ai in at.items():
            points.append(
                {
                    "kernel": name,
                    "kernel_id": row["kernel_id"],
                    "level": level,
                    "ai": ai,
                    "attained_flops_per_s": row["attained_flops_per_s"],
                    "bytes": row[f"{PREFIX[level]}_bytes"],
                    "time_us": (row["time_s"] or 0.0) * 1e6,
                    "time_share_pct": 100 * (row["time_s"] or 0.0) / (total_time or 1.0),
                    "binding": row["binding"] or "not judged",
                }
            )
        if len(at) > 1:
            joins.append(
                {
                    "kernel": name,
                    "ai": min(at.values()),
                    "ai2": max(at.values()),
                    "attained_flops_per_s": row["attained_flops_per_s"],
                }
            )
    return points, joins, drawn.height


def _roofs(
    table: HierarchyTable, domain: list[float]
) -> tuple[list[dict[str, Any]], list[LevelRidge]]:
    """(roof polylines, ridges) of the levels with a ceiling, at the step's peak."""
    peak = table.peak_flops_per_s
    rows: list[dict[str, Any]] = []
    ridges: list[LevelRidge] = []
    if peak is None:
        return rows, ridges
    for level in table.levels:
        bandwidth = table.ceilings.get(level)
        if bandwidth is None:
            continue
        label = f"{level} {si(bandwidth, 'B/s')}"
        device, precision = _named(table)
        rows.extend(
            roof_polyline(
                peak, bandwidth, *domain, level=level, roof=label, device=device,
                precision=precision,
            )
        )  # fmt: skip
        ridge = peak / bandwidth
        ridges.append(
            {
                "level": level,
                "ai": ridge,
                "flops_per_s": peak,
                "ridge": f"{level} ridge {plain(ridge, 3)}",
            }
        )
    return rows, ridges


def _named(table: HierarchyTable) -> tuple[str, str]:
    """The device and precision every roof of the chart has (one peak, a slope per level)."""
    return (
        table.device.name if table.device else "device not in the catalog",
        precision_label(table.precision) if table.precision else "no precision",
    )


def _subtitle(table: HierarchyTable, drawn: int) -> list[str]:
    lines = []
    if table.peak_flops_per_s is not None and table.precision is not None:
        roofs = [
            f"{level} {si(bw, 'B/s')}" for level in table.levels if (bw := table.ceilings[level])
        ]
        peak = si(table.peak_flops_per_s, "FLOP/s")
        lines.append(
            f"Roofs: {', '.join(roofs) or 'none'}; {precision_label(table.precision)} peak {peak}"
        )
    if table.unjudged:
        where = f" for {table.device.name}" if table.device else ""
        lines.append(
            f"No {' or '.join(table.unjudged)} ceiling in the catalog{where}: those points "
            "have no roof"
        )
    with_flops = table.kernels.filter(pl.col("attained_flops_per_s") > 0).height
    if drawn < with_flops:
        lines.append(f"The {drawn} kernels with the most time of {with_flops}")
    if with_flops < table.kernels.height:
        # log axes have no place for zero FLOP/s; they still count in the shares
        lines.append(f"{table.kernels.height - with_flops} kernels without FLOPs not drawn")
    return lines


def hierarchical_chart(table: HierarchyTable, title: str) -> VegaSpec:
    """The Vega-Lite spec of an export's hierarchical roofline; {} with nothing to draw."""
    points, joins, drawn = _points(table)
    step = table.steps.row(0, named=True) if table.steps.height else None
    step_points: list[StepPoint] = [
        {"level": level, "ai": ai, "attained_flops_per_s": attained, "label": "step"}
        for level in table.levels
        if step
        and (ai := step[f"{PREFIX[level]}_ai"])
        and (attained := step["attained_flops_per_s"])
    ]
    if not points and not step_points:
        return {}
    peak = table.peak_flops_per_s
    ceilings = [bw for bw in table.ceilings.values() if bw]
    ridge_ais = [peak / bw for bw in ceilings] if peak else []
    domain = _domain([p["ai"] for p in points] + [p["ai"] for p in step_points], ridge_ais)
    x = alt.X(
        "ai:Q",
        title="arithmetic intensity (FLOP/byte of each level)",
        scale=alt.Scale(type="log", domain=domain, nice=False),
        axis=alt.Axis(format=PLAIN_AXIS),
    )
    y = log_y("attained_flops_per_s")
    by_level = _level_encoding(table.levels)
    roofs, ridges = _roofs(table, domain)
    layers: list[alt.Chart] = []
    if roofs:
        layers.append(
            alt.Chart(inline(roofs))
            .mark_line(strokeWidth=2)
            .encode(
                x=x,
                y=log_y("flops_per_s"),
                color=by_level["color"],
                detail="level:N",
                order="order:Q",
                tooltip=[alt.Tooltip("roof:N", title="roof")],
            )
        )
        layers.extend(_ridge_marks(ridges, x, by_level["color"]))
        # the levels share the peak: one name on its flat part, the slopes by their hue
        name = roof_name(*_named(table), "datasheet peak")
        layers.extend(roof_name_marks([{"roof_name": name, "ai": domain[1], "name_at": peak}], x))
    elif peak is not None:
        # no level has a ceiling: the compute peak alone still bounds every point
        layers.append(
            alt.Chart(inline([{"flops_per_s": peak}]))
            .mark_rule(color=GUIDE_COLOUR, strokeWidth=2)
            .encode(y=log_y("flops_per_s"))
        )
    if joins:
        layers.append(
            alt.Chart(inline(joins))
            .mark_rule(color=GUIDE_COLOUR, opacity=0.35, strokeWidth=1)
            .encode(x=x, x2="ai2:Q", y=y, tooltip=[alt.Tooltip("kernel:N", title="kernel")])
        )
    if points:
        layers.append(_kernel_layer(points, x, y, by_level))
    if step_points:
        layers.extend(_step_layers(step_points, x, y, by_level))
    chart = alt.layer(*layers).properties(
        title=alt.TitleParams(
            text=title, subtitle=_subtitle(table, drawn), anchor="start", limit=0
        ),
        width="container",
        height=400,
    )
    return spec_of(chart)


def _ridge_marks(ridges: list[LevelRidge], x: alt.X, colour: alt.Color) -> list[alt.Chart]:
    """A dotted rule from each level's ridge down to the axis, and its intensity."""
    data = inline(ridges)
    rule = (
        alt.Chart(data)
        .mark_rule(strokeDash=[2, 3], strokeWidth=1)
        .encode(
            x=x,
            y=log_y("flops_per_s"),
            y2=alt.value("height"),
            color=colour,
            tooltip=[alt.Tooltip("ridge:N", title="ridge (FLOP/byte)")],
        )
    )
    text = (
        alt.Chart(data)
        .mark_text(align="left", baseline="top", dx=4, dy=6, fontSize=10)
        .encode(x=x, y=log_y("flops_per_s"), text="ridge:N", color=colour)
    )
    return [rule, text]


def _kernel_layer(points: list[LevelPoint], x: alt.X, y: alt.Y, by_level: VegaSpec) -> alt.Chart:
    layer: alt.Chart = (
        alt.Chart(inline(points))
        .mark_point(filled=True, opacity=0.75)
        .encode(
            x=x,
            y=y,
            size=alt.Size(
                "time_share_pct:Q",
                title="share of kernel time (%)",
                scale=alt.Scale(range=[15, 500]),
                legend=alt.Legend(orient="bottom"),
            ),
            **by_level,
            tooltip=[
                alt.Tooltip("kernel:N", title="kernel"),
                alt.Tooltip("kernel_id:Q", title="ncu ID"),
                alt.Tooltip("level:N", title="level"),
                alt.Tooltip("bytes:Q", title="bytes", format=".4~s"),
                alt.Tooltip("ai:Q", title="FLOP/byte", format=PLAIN_4),
                alt.Tooltip("attained_flops_per_s:Q", title="FLOP/s", format=".4~s"),
                alt.Tooltip("time_us:Q", title="time (µs)", format=PLAIN_4),
                alt.Tooltip("time_share_pct:Q", title="share of time (%)", format=PLAIN_3),
                alt.Tooltip("binding:N", title="lowest roof"),
            ],
        )
    )
    return layer


def _step_layers(
    step_points: list[StepPoint], x: alt.X, y: alt.Y, by_level: VegaSpec
) -> list[alt.Chart]:
    """The whole step: large outlined markers per level, joined, labelled once."""
    data = inline(step_points)
    ais = [p["ai"] for p in step_points]
    join = {
        "ai": min(ais),
        "ai2": max(ais),
        "attained_flops_per_s": step_points[0]["attained_flops_per_s"],
    }
    tooltip = [
        alt.Tooltip("label:N", title="point"),
        alt.Tooltip("level:N", title="level"),
        alt.Tooltip("ai:Q", title="FLOP/byte", format=PLAIN_4),
        alt.Tooltip("attained_flops_per_s:Q", title="FLOP/s", format=".4~s"),
    ]
    # labelled at its right end (the DRAM point, usually), clear of the join
    label = inline([{**join, "ai": max(ais), "label": "step"}])
    layers = [
        alt.Chart(inline([join]))
        .mark_rule(color=GUIDE_COLOUR, strokeWidth=2.5)
        .encode(x=x, x2="ai2:Q", y=y),
        alt.Chart(data)
        .mark_point(filled=True, size=260, stroke="black", strokeWidth=1.5, opacity=1)
        .encode(x=x, y=y, tooltip=tooltip, **by_level),
        alt.Chart(label)
        .mark_text(align="left", dx=10, dy=-10, fontSize=11, color=GUIDE_COLOUR)
        .encode(x=x, y=y, text="label:N"),
    ]
    return layers
