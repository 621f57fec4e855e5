"""Every roof named on its chart with its device and precision (issue 49), placed where the
name crosses no other roof and no other name: above or below its flat part, at the right
edge or just past its ridge, tried in that order, in pixels estimated from the domains."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import altair as alt

from generator.charts.roofs import short_label
from generator.charts.scales import COLUMN_PX, GUIDE_COLOUR, inline, log_y
from generator.charts.vega import VegaSpec

NAME_PX = 10  # the names' font size
CHAR_PX = 6.0  # a 10 px character, wide glyphs included
PLOT_PX = COLUMN_PX - 60  # the plot's width at its narrowest (the y axis takes the rest)
GAP_PX = 2  # between a name and its roof
NAME_CLASH = 10  # a name on a name is far worse than a name across a roof
AWAY = 0.6  # a line of text further from its roof costs a little more than half a crossing
# Where a name may go, nearest its roof first: above it (0), below it (-1), then a line of
# text further up or down each time.
STEPS = (0, -1, 1, -2, 2, -3, 3, -4)

Box = tuple[float, float, float, float]  # left, right, bottom, top in pixels, y upwards


def roof_name(device: str, precision: str, source: str) -> str:
    """What a roof is called on its chart: the device (short), the precision, and where the
    peak comes from ("datasheet", "measured")."""
    return f"{short_label(device)} · {precision} ({source})"


class _Frame:
    """Data to estimated pixels: log x over `domain` (as drawn, not niced), log y over the
    chart's values rounded out to whole decades (Vega's nice log scale)."""

    def __init__(self, domain: tuple[float, float], ys: list[float], height: int) -> None:
        self.x0, self.x1 = (math.log10(v) for v in domain)
        self.y0 = math.floor(math.log10(min(ys)))
        self.y1 = max(self.y0 + 1, math.ceil(math.log10(max(ys))))
        self.height = height

    def x(self, ai: float) -> float:
        return (math.log10(ai) - self.x0) / (self.x1 - self.x0) * PLOT_PX

    def y(self, value: float) -> float:
        return (math.log10(value) - self.y0) / (self.y1 - self.y0) * self.height

    def value(self, y: float) -> float:
        return float(10 ** (self.y0 + y / self.height * (self.y1 - self.y0)))


def _crosses(box: Box, segment: tuple[float, float, float, float]) -> bool:
    """Whether a straight segment (x1, y1, x2, y2), x1 < x2, passes through `box`."""
    left, right, bottom, top = box
    x1, y1, x2, y2 = segment
    lo, hi = max(left, x1), min(right, x2)
    if lo > hi:
        return False
    at = [y1 + (y2 - y1) * (x - x1) / ((x2 - x1) or 1.0) for x in (lo, hi)]
    return max(at) >= bottom and min(at) <= top


def _cost(box: Box, placed: list[Box], segments: list[tuple[float, float, float, float]]) -> int:
    """A name touching another name costs `NAME_CLASH`; crossing a roof, one."""
    names = sum(box[0] < b[1] and b[0] < box[1] and box[2] < b[3] and b[2] < box[3] for b in placed)
    return NAME_CLASH * names + sum(_crosses(box, segment) for segment in segments)


def _shared(roofs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Roofs whose flat parts coincide (one peak, precision and source: the four A100s'
    FP32) named once, "A100 40GB SXM, A100 80GB SXM · FP32 (datasheet)", from past the
    last of their ridges; four names stacked far from the one line would each lose it."""
    groups: dict[tuple[str, float], list[dict[str, Any]]] = {}
    for roof in roofs:
        rest = str(roof["roof_name"]).partition(" · ")[2]
        groups.setdefault((rest, round(math.log10(roof["peak"]), 3)), []).append(roof)
    named = []
    for (rest, _), group in groups.items():
        if len(group) == 1:
            named.append(group[0])
            continue
        devices = ", ".join(str(r["roof_name"]).partition(" · ")[0] for r in group)
        last = max(group, key=lambda r: float(r["peak"]) / float(r["bandwidth"]))
        named.append({**last, "roof_name": f"{devices} · {rest}", "shared": True})
    return named


def roof_name_rows(
    roofs: Sequence[dict[str, Any]],
    domain: tuple[float, float],
    ys: Iterable[float | None],
    height: int,
) -> list[dict[str, Any]]:
    """Rows for `roof_name_marks`: each roof's name (`roofs`: {"roof_name", "peak",
    "bandwidth", ...}) with where it goes: "ai" and "name_at" (the text's baseline) and
    "align" (right: at the right edge; left: just past the ridge). `ys`: every value the
    chart draws on its y axis; `height`: the plot's, in pixels. Highest peak first, each
    name takes the place nearest its roof that touches no name placed before it and
    crosses the fewest roofs: right above its flat part, else right below, else a line
    further up or down, else past its ridge."""
    values = [y for y in ys if y and y > 0]
    unique = list({r["roof_name"]: r for r in roofs}.values())
    if not unique or not values:
        return []
    frame = _Frame(domain, values, height)
    segments: list[tuple[float, float, float, float]] = []
    for roof in unique:
        ridge = roof["peak"] / roof["bandwidth"]
        low = domain[0] * roof["bandwidth"]
        segments.append((0.0, frame.y(low), frame.x(ridge), frame.y(roof["peak"])))
        segments.append((frame.x(ridge), frame.y(roof["peak"]), PLOT_PX, frame.y(roof["peak"])))
    placed: list[Box] = []
    rows = []
    for roof in sorted(_shared(unique), key=lambda r: -float(r["peak"])):
        width = CHAR_PX * len(str(roof["roof_name"])) + 4
        line = frame.y(roof["peak"])
        ridge = frame.x(roof["peak"] / roof["bandwidth"])
        best: tuple[float, str, float] | None = None
        for anchor, (align, left) in enumerate((("right", PLOT_PX - width), ("left", ridge + 4))):
            if left + width > PLOT_PX + 1:
                continue
            for away, step in enumerate(STEPS):
                # above: `step` lines of text up from the first; below: down from the first
                first = line + GAP_PX if step >= 0 else line - GAP_PX - NAME_PX
                baseline = first + (step if step >= 0 else step + 1) * (NAME_PX + 1)
                box = (left, left + width, baseline, baseline + NAME_PX)
                cost = _cost(box, placed, segments) + away * AWAY + anchor / 2
                if best is None or cost < best[0]:
                    best = (cost, align, baseline)
        assert best is not None  # the right edge always fits
        _, align, baseline = best
        left = PLOT_PX - width if align == "right" else ridge + 4
        placed.append((left, left + width, baseline, baseline + NAME_PX))
        ai = domain[1] if align == "right" else roof["peak"] / roof["bandwidth"]
        rows.append({**roof, "ai": ai, "name_at": frame.value(baseline), "align": align})
    return rows


def roof_name_marks(rows: list[dict[str, Any]], x: alt.X, colour: Any = None) -> list[alt.Chart]:
    """The names of `roof_name_rows`, in the roof's hue (`colour`) or the guides' grey (a
    name that several devices' roofs share, too)."""
    layers = []
    sides: tuple[tuple[Literal["right", "left"], int], ...] = (("right", -3), ("left", 4))
    for (align, dx), shared in itertools.product(sides, (False, True)):
        own = colour is not None and not shared
        by_colour: VegaSpec = {"color": colour} if own else {}
        fixed: VegaSpec = {} if own else {"color": GUIDE_COLOUR}
        side = [
            r for r in rows if r.get("align", "right") == align and r.get("shared", False) == shared
        ]
        if side:
            layers.append(
                alt.Chart(inline(side))
                .mark_text(align=align, baseline="bottom", dx=dx, fontSize=NAME_PX, **fixed)
                .encode(x=x, y=log_y("name_at"), text="roof_name:N", **by_colour)
            )
    return layers
