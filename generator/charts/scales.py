"""Scales, legends, titles and axes shared by every chart: one colour (and one marker and
dash) per device, model and kernel family on every page, legends and titles that fit the
page's column, SI tick labels."""

from __future__ import annotations

import hashlib
import json
import math
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import altair as alt
import polars as pl

from generator import formatting
from generator.analysis.roofs import DATASHEET, Roof
from generator.charts.palette import device_colour
from generator.charts.vega import Datum, VegaSpec
from generator.records.peaks import PEAK_LABELS

# Altair validates each schema object as it is built ("debug mode") and each spec again in
# to_dict: two thirds of a trace page's time, in a report that draws thousands of charts at
# scale. tests/test_site_scaling.py validates the specs the pages embed instead.
alt.utils.schemapi.disable_debug_mode()

_FromDict = alt.utils.schemapi._FromDict
_CLASS_TABLES: dict[tuple[type, ...], Any] = {}
_build_class_table = _FromDict.__init__


def _cached_class_table(self: Any, wrapper_classes: Iterable[type], /) -> None:
    """Altair (pinned 6.3.0) hashes the JSON of all ~600 schema classes again for every
    shorthand or dict it turns into a channel (`_FromDict.__init__`): a third of a trace
    page's time. The table depends only on the classes, so it is built once."""
    classes = tuple(wrapper_classes)
    if classes not in _CLASS_TABLES:
        _build_class_table(self, classes)
        _CLASS_TABLES[classes] = self.class_dict
    self.class_dict = _CLASS_TABLES[classes]


_FromDict.__init__ = _cached_class_table  # type: ignore[method-assign]

TOOLTIP_NAME_CHARS = 160

# Okabe–Ito, less its sky blue (a lighter twin of its blue, the look-alike pair readers
# could not tell apart in tableau20) and with grey for its black (invisible on the dark
# theme): seven hues that colour-blind readers tell apart.
HUES: dict[str, str] = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "bluish green": "#009E73",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
    "yellow": "#F0E442",
    "grey": "#999999",
}
PALETTE: tuple[str, ...] = tuple(HUES.values())
# After every hue is used once, the next seven categories repeat the hues with another
# marker (points) and dash (lines): never two categories alike in both. Diamonds and
# up-triangles are left out: they mark modelled and trace points (DESIGN.md).
SHAPES: tuple[str, ...] = ("circle", "square", "cross", "triangle-down", "triangle-right")
DASHES: tuple[list[int], ...] = ([1, 0], [6, 3], [2, 2], [8, 3, 2, 3], [12, 4])
GUIDE_COLOUR = "#888"  # roofs, ridge rules and labels: readable on light and dark themes

# Legends and titles are sized for the page's column at 1400 px (about 700 px wide).
COLUMN_PX = 700
LEGEND_CHAR_PX = 6.5  # a 10 px legend label, wide glyphs included
LEGEND_SYMBOL_PX = 30
AXIS_LABEL_PX = 320  # the widest category labels an axis takes from the plot
TITLE_CHARS = 64  # a 13 px bold title line that fits the column
DIRECT_LABELS_MAX = 12  # more labelled points than this overlap: tooltips only


def _identity(order: Sequence[str]) -> tuple[alt.Scale, alt.Scale, alt.Scale]:
    """Colour, marker and dash scales over one stable order: hue by position modulo the
    palette, marker and dash by the round through it."""
    rounds = [i // len(PALETTE) for i in range(len(order))]
    return (
        alt.Scale(domain=list(order), range=[PALETTE[i % len(PALETTE)] for i in range(len(order))]),
        alt.Scale(domain=list(order), range=[SHAPES[r % len(SHAPES)] for r in rounds]),
        alt.Scale(domain=list(order), range=[DASHES[r % len(DASHES)] for r in rounds]),
    )


def device_order(names: Iterable[str]) -> list[str]:
    """Catalog order first, then other devices (CPUs measured here) by name: the same
    position, so the same colour, for a device on every page."""
    from generator.catalog import load_catalog

    catalog = [d.name for d in load_catalog()]
    return catalog + sorted(set(names) - set(catalog))


def model_order() -> list[str]:
    from generator.models import MODELS

    return list(MODELS)


def device_scale(names: set[str]) -> alt.Scale:
    """One colour per device on every page, from the report's palette (`palette.py`)."""
    order = device_order(names)
    return alt.Scale(domain=order, range=[device_colour(name) for name in order])


def device_shape_scale(names: set[str]) -> alt.Scale:
    """The marker that tells apart two devices of one hue."""
    return _identity(device_order(names))[1]


def device_dash_scale(names: set[str]) -> alt.Scale:
    """The dash that tells apart two devices' lines (roofs, sweeps) of one hue."""
    return _identity(device_order(names))[2]


def model_scale() -> alt.Scale:
    """One colour per registry model on every page."""
    return _identity(model_order())[0]


def model_dash_scale() -> alt.Scale:
    return _identity(model_order())[2]


def category_scales(domain: Sequence[str]) -> tuple[alt.Scale, alt.Scale, alt.Scale]:
    """Colour, marker and dash for a fixed list of categories (kernel families)."""
    return _identity(domain)


def label_limit(labels: Iterable[str], cap: int = COLUMN_PX - LEGEND_SYMBOL_PX) -> int:
    """Pixels for the longest label, so Vega never cuts one short with an ellipsis; an
    axis passes a smaller `cap` (its labels take the plot's width)."""
    longest = max((len(str(label)) for label in labels), default=10)
    return min(cap, math.ceil(LEGEND_CHAR_PX * longest) + 12)


def legend_columns(labels: Sequence[str], limit: int) -> int:
    """The most columns (up to 4) whose widest labels fit the page's column; Vega fills
    a legend's grid row by row and sizes each column by its widest entry."""
    widths = [min(limit, LEGEND_CHAR_PX * len(str(label))) + LEGEND_SYMBOL_PX for label in labels]
    for columns in range(min(4, len(widths)), 1, -1):
        if sum(max(widths[c::columns]) for c in range(columns)) <= COLUMN_PX:
            return columns
    return 1


def bottom_legend(labels: Iterable[str], title: str | None = None, **extra: Any) -> alt.Legend:
    """A legend under the chart (a legend on the right takes the plot's width), wrapped
    into columns that fit, no label shortened."""
    values = list(dict.fromkeys(str(label) for label in labels))
    limit = label_limit(values)
    return alt.Legend(
        orient="bottom",
        title=title,
        values=values,
        columns=legend_columns(values, limit),
        labelLimit=limit,
        symbolLimit=len(values),  # Vega's default, 30, ends a long legend with "…n entries"
        **extra,
    )


def device_legend(names: set[str], title: str | None = None) -> alt.Legend:
    """The devices a chart shows, not the scale's whole domain (the catalog's thirty
    devices would fill a two-device chart's legend)."""
    return bottom_legend(sorted(names), title)


def fit_title_spec(text: str, subtitle: str | None = None) -> VegaSpec:
    """A title wrapped onto lines that fit the page's column (Vega never wraps one and
    clips what runs past the chart's width), as Vega-Lite's title object."""
    lines = textwrap.wrap(text, TITLE_CHARS) or [text]
    extra: VegaSpec = {}
    if subtitle:
        extra["subtitle"] = textwrap.wrap(subtitle, int(TITLE_CHARS * 1.2)) or [subtitle]
    return {"text": lines if len(lines) > 1 else lines[0], "anchor": "start", "limit": 0, **extra}


def fit_title(text: str, subtitle: str | None = None) -> alt.TitleParams:
    """`fit_title_spec` for an Altair chart."""
    return alt.TitleParams(**fit_title_spec(text, subtitle))


# Several legends under one chart stack (Vega puts them side by side, past the right edge)
LEGEND_LAYOUT: VegaSpec = {"bottom": {"anchor": "start", "direction": "vertical"}}


# Values of the charts being built, by dataset name (see `inline`); spec_of takes them out.
_PENDING: dict[str, Sequence[Mapping[str, object]]] = {}


def inline(values: Sequence[Mapping[str, object]]) -> alt.NamedData:
    """A chart's data by name, its values added to the spec's `datasets` by spec_of, as
    Altair itself writes inline data (same name, same place). Altair deep-copies inline
    values at every step of building a chart: half a trace page's time."""
    name = dataset_name(values)
    _PENDING[name] = values
    return alt.NamedData(name=name)


def dataset_name(values: Sequence[Mapping[str, object]]) -> str:
    """The name Altair gives inline values in a spec's `datasets`: a hash of their JSON."""
    text = json.dumps(values, sort_keys=True, default=str)
    return "empty" if values == [{}] else "data-" + hashlib.sha256(text.encode()).hexdigest()[:32]


def named_data(values: Sequence[Mapping[str, object]], datasets: VegaSpec) -> str:
    """For a spec written without Altair: `values` put in `datasets`, their name returned."""
    name = dataset_name(values)
    datasets[name] = values
    return name


def frame_data(frame: pl.DataFrame) -> alt.NamedData:
    """A frame as `inline` data, NaN as null (as Altair writes a frame's values): handing
    Altair the frame itself makes it deep-copy every value at each step of the chart."""
    return inline(
        [
            {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()}
            for row in frame.to_dicts()
        ]
    )


def _data_names(node: Any) -> set[str]:
    if isinstance(node, list):
        return {name for item in node for name in _data_names(item)}
    if not isinstance(node, dict):
        return set()
    data = node.get("data")
    found = {data["name"]} if isinstance(data, dict) and "name" in data else set()
    return found.union(*(_data_names(v) for k, v in node.items() if k != "datasets"))


def spec_of(chart: alt.TopLevelMixin) -> VegaSpec:
    """The chart's Vega-Lite spec, not validated here (see disable_debug_mode above), with
    the values of its `inline` data."""
    spec = dict(chart.to_dict(validate=False))
    for name in sorted(_data_names(spec)):
        if name in _PENDING:
            spec.setdefault("datasets", {})[name] = _PENDING.pop(name)
    return spec


def finish(chart: alt.TopLevelMixin) -> VegaSpec:
    """The chart's spec with the shared legend layout (Vega config that Altair's schema
    does not take as a dict). Fails on an axis or legend whose title says "(s)" while its
    labels carry their own unit ("12ms"): the reader would take 12 for seconds."""
    spec = spec_of(chart)
    spec.setdefault("config", {}).setdefault("legend", {})["layout"] = LEGEND_LAYOUT
    if wrong := seconds_titles_with_unit(spec):
        raise ValueError(f"seconds-labelled guides titled with (s): {wrong}; use seconds_title")
    return spec


# Plain numbers as prose writes them (120, 51,470, 0.05), never in exponent notation: d3's
# "g" gives "1.2e+2" on a linear axis whose ticks are 20 apart, "r" rounds in decimals.
PLAIN_AXIS = ",~r"
PLAIN_4 = ",.4~r"  # a tooltip's intensity, share or time: four significant figures
PLAIN_3 = ",.3~r"


SI_LABEL = "datum.value == 0 ? '0' : datum.label"  # one SI prefix for all: 0 read "0k"


def si_axis(**extra: Any) -> alt.Axis:
    """SI tick labels (56G, not 56,000,000,000; 0, not 0k) for FLOP/s, FLOPs, bytes, samples/s."""
    return alt.Axis(format="~s", **({"labelExpr": SI_LABEL} | extra))


# 0, 500µs, 12ms, 1.5s; a log axis blanks the labels it skips: they stay blank
SECONDS_LABEL = "datum.value == 0 ? '0' : datum.label ? datum.label + 's' : ''"


def seconds_axis(**extra: Any) -> alt.Axis:
    """Durations as SI seconds with their unit, so 12m never reads as minutes. Its title
    names no unit (`seconds_title`): the ticks do."""
    return alt.Axis(format="~s", labelExpr=SECONDS_LABEL, **extra)


_SECONDS_UNIT = re.compile(r"\s*\(s\)")


def seconds_title(title: str) -> str:
    """The title of a guide whose labels carry their unit: "step time (s)" -> "step time"
    (the ticks read 500µs, 12ms, 1.5s)."""
    return _SECONDS_UNIT.sub("", title)


def seconds_titles_with_unit(spec: Any) -> list[str]:
    """Titles that say "(s)" on channels whose axis or legend labels carry the unit."""
    found: list[str] = []
    if isinstance(spec, dict):
        guides = [g for g in (spec.get("axis"), spec.get("legend")) if isinstance(g, dict)]
        if any(g.get("labelExpr") == SECONDS_LABEL for g in guides):
            titles = [spec.get("title"), *(g.get("title") for g in guides)]
            found += [t for t in titles if isinstance(t, str) and _SECONDS_UNIT.search(t)]
        for value in spec.values():
            found += seconds_titles_with_unit(value)
    elif isinstance(spec, list):
        for value in spec:
            found += seconds_titles_with_unit(value)
    return found


def unit_title(unit: str) -> str:
    """The title of a `unit_axis(unit)`: without "(s)" where the ticks carry seconds."""
    return seconds_title(unit) if _is_seconds(unit) else unit


def _is_seconds(unit: str) -> bool:
    return "(s)" in unit or unit.strip() in {"s", "seconds"}


def unit_axis(unit: str, **extra: Any) -> alt.Axis:
    """The axis for a metric named by its unit: seconds, intensity (plain numbers, 0.1 is
    not 100m) or an SI quantity."""
    if _is_seconds(unit):
        return seconds_axis(**extra)
    if "FLOP/byte" in unit:
        return alt.Axis(format=PLAIN_AXIS, **extra)
    return si_axis(**extra)


def short_name(name: str | None, limit: int = TOOLTIP_NAME_CHARS) -> str:
    return formatting.short_name(name, limit)


def log_y(field: str) -> alt.Y:
    """The shared y axis of every roofline layer: attained FLOP/s, log scale, SI labels."""
    return alt.Y(
        f"{field}:Q",
        title="attained (FLOP/s)",
        scale=alt.Scale(type="log"),
        axis=si_axis(),
    )


def worth_drawing(
    data: pl.DataFrame | Sequence[Datum], x: str | None = None, minimum: int = 2
) -> bool:
    """Whether a series has enough points to be a chart: at least `minimum` rows, or
    distinct non-null values of `x` when given. A single point reads better as a table
    row than as a lone dot on axes."""
    if isinstance(data, pl.DataFrame):
        if x is None:
            return data.height >= minimum
        if x not in data.columns:
            return False
        return data[x].drop_nulls().n_unique() >= minimum
    if x is None:
        return len(data) >= minimum
    return len({repr(row.get(x)) for row in data if row.get(x) is not None}) >= minimum


def roof_polyline(
    peak: float, bandwidth: float, ai_min: float, ai_max: float, **labels: Any
) -> list[dict[str, Any]]:
    """One roof as chart rows: the bandwidth slope up to the ridge, then the flat peak;
    `labels` (device, ceiling, ...) go on every row."""
    ridge = peak / bandwidth
    xs = [ai_min, *([ridge] if ai_min < ridge < ai_max else []), ai_max]
    return [
        {**labels, "order": i, "ai": x, "flops_per_s": min(peak, x * bandwidth)}
        for i, x in enumerate(xs)
    ]


def ceiling_rows(roofs: Sequence[Roof], ai_min: float, ai_max: float) -> list[dict[str, Any]]:
    """Polyline points of each roof: bandwidth slope, then flat peak."""
    rows: list[dict[str, Any]] = []
    for roof in roofs:
        peak, bandwidth = roof.peak_flops_per_s, roof.bandwidth_bytes_per_s
        name = PEAK_LABELS[roof.precision]
        label = (
            f"{name} peak {formatting.si(peak, 'FLOP/s')}, ridge "
            f"{formatting.plain(roof.ridge_ai, 3)}"
            + ("" if roof.source == DATASHEET else f" ({roof.source})")
        )
        rows.extend(
            roof_polyline(
                peak, bandwidth, ai_min, ai_max, ceiling=label, device=roof.device, precision=name
            )
        )
    return rows
