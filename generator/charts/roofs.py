"""What every roofline shares: an x domain that shows the whole roof (slope, ridge and flat
part), the ridge marked, and names beside the points when there are few."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Literal, NotRequired, TypedDict, TypeVar, Unpack

import altair as alt

from generator.charts.scales import DIRECT_LABELS_MAX, GUIDE_COLOUR, PLAIN_AXIS, inline, log_y
from generator.charts.vega import VegaSpec
from generator.formatting import plain

RIDGE_MARGIN = 8.0  # the ridge sits most of a decade inside each edge
POINT_MARGIN = 3.0
LABEL_CHARS = 28
RIDGE_TEXT_APART = 1.4  # "ridge 17.2" is ~55 px: this far apart on a 3-4 decade axis
RIGHT_THIRD = 2 / 3  # labels of points past this share of the x axis sit to their left


class RidgeLabels(TypedDict, total=False):
    """What a chart colours or names a ridge by, beside its position."""

    device: str
    roof: str


class RidgeRow(TypedDict):
    """A ridge as a chart row: where a roof's slope meets its peak, and its text."""

    device: NotRequired[str]
    roof: NotRequired[str]
    ai: float
    flops_per_s: float
    ridge: str  # the rule's tooltip: names the roof
    ridge_at: str  # beside the rule: short, inside the plot


Ridge = TypeVar("Ridge", bound=RidgeRow)


def roof_domain(ais: Iterable[float | None], ridges: Iterable[float | None]) -> tuple[float, float]:
    """The x domain of a roofline: every point and every ridge, with room either side of
    each ridge for the bandwidth slope and the flat peak."""
    points = [a for a in ais if a and a > 0]
    knees = [r for r in ridges if r and r > 0]
    lows = [a / POINT_MARGIN for a in points] + [r / RIDGE_MARGIN for r in knees]
    highs = [a * POINT_MARGIN for a in points] + [r * RIDGE_MARGIN for r in knees]
    if not lows:
        return (0.1, 1000.0)
    return (min(lows), max(highs))


def ai_x(domain: tuple[float, float], title: str) -> alt.X:
    """Arithmetic intensity on a log axis fixed to `domain` (not niced past it: the roof's
    polyline ends at its edges)."""
    return alt.X(
        "ai:Q",
        title=title,
        scale=alt.Scale(type="log", domain=list(domain), nice=False),
        axis=alt.Axis(format=PLAIN_AXIS),
    )


def ridge_row(peak: float, bandwidth: float, name: str, **labels: Unpack[RidgeLabels]) -> RidgeRow:
    """A ridge as a chart row: where the slope meets the peak."""
    ridge = peak / bandwidth
    return {
        **labels,
        "ai": ridge,
        "flops_per_s": peak,
        "ridge": f"{name} ridge {plain(ridge, 3)}",
        "ridge_at": f"ridge {plain(ridge, 3)}",
    }


def roof_lines(rows: list[dict[str, Any]], x: alt.X, name: str, **encoding: Any) -> alt.Chart:
    """Roof polylines (`roof_polyline` rows), one line per value of the field `name`,
    which the tooltip shows; `encoding`: their colour and dash."""
    chart: alt.Chart = (
        alt.Chart(inline(rows))
        .mark_line(strokeWidth=2)
        .encode(
            x=x,
            y=log_y("flops_per_s"),
            order="order:Q",
            detail=f"{name}:N",
            tooltip=[alt.Tooltip(f"{name}:N", title="roof")],
            **encoding,
        )
    )
    return chart


def ridge_marks(ridges: list[Ridge], x: alt.X, colour: Any = None) -> list[alt.Chart]:
    """A dotted rule from each ridge down to the axis, and its intensity beside it."""
    if not ridges:
        return []
    data = inline(ridges)
    by_colour: VegaSpec = {"color": colour} if colour is not None else {}
    fixed: VegaSpec = {} if colour is not None else {"color": GUIDE_COLOUR}
    rule = (
        alt.Chart(data)
        .mark_rule(strokeDash=[2, 3], strokeWidth=1, **fixed)
        .encode(
            x=x,
            y=log_y("flops_per_s"),
            y2=alt.value("height"),
            tooltip=[alt.Tooltip("ridge:N", title="ridge (FLOP/byte)")],
            **by_colour,
        )
    )
    text = (
        alt.Chart(inline(apart(ridges)))
        .mark_text(align="left", baseline="top", dx=4, dy=6, fontSize=10, **fixed)
        .encode(x=x, y=log_y("flops_per_s"), text="ridge_at:N", **by_colour)
    )
    return [rule, text]


def apart(ridges: list[Ridge]) -> list[Ridge]:
    """The ridges whose intensity text has room: one of two ridges less than
    `RIDGE_TEXT_APART` times apart keeps its rule (and tooltip) but not its text, which
    would sit on the other's ("ridge 264" on "ridge 255")."""
    kept: list[Ridge] = []
    for ridge in sorted(ridges, key=lambda r: float(r["ai"])):
        if not kept or ridge["ai"] >= kept[-1]["ai"] * RIDGE_TEXT_APART:
            kept.append(ridge)
    return kept


def point_labels(
    values: list[dict[str, Any]],
    x: alt.X,
    y: alt.Y,
    domain: tuple[float, float],
    field: str = "label",
) -> list[alt.Chart]:
    """Each point's name, small and offset up-right (up-left in the right third of the x
    domain, so it stays inside the plot), when there are few enough points for names not
    to pile up (the tooltip names every point anyway)."""
    if not values or len(values) > DIRECT_LABELS_MAX:
        return []
    low, high = (math.log10(bound) for bound in domain)
    layers = []
    sides: tuple[tuple[Literal["left", "right"], int, bool], ...] = (
        ("left", 7, False),
        ("right", -7, True),
    )
    for align, dx, keep in sides:
        rows = [
            {**v, "point_label": short_label(str(v.get(field, "")))}
            for v in values
            if (math.log10(v["ai"]) > low + RIGHT_THIRD * (high - low)) == keep
        ]
        if rows:
            layers.append(
                alt.Chart(inline(rows))
                .mark_text(align=align, dx=dx, dy=-7, fontSize=10, color=GUIDE_COLOUR)
                .encode(x=x, y=y, text="point_label:N")
            )
    return layers


def short_label(name: str) -> str:
    """A point's name short enough to sit beside it: vendor prefixes off, then cut."""
    for prefix in ("NVIDIA GeForce ", "NVIDIA "):
        name = name.removeprefix(prefix)
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"


def kind_shape(kind: str) -> str:
    """The marker of each kind of point (DESIGN.md): ncu-counted circles, modelled
    diamonds, analytic-over-measured (trace) triangles."""
    if "modelled" in kind:
        return "diamond"
    if "ncu" in kind or "counted" in kind:
        return "circle"
    return "triangle-up"
