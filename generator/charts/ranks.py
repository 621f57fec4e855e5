"""The charts of a multi-rank capture's page, as Vega-Lite written directly (as the trace
page's are, `charts/trace.py`): a rank x step heatmap, each rank's median step split into
its parts, and (with `trace_roofline`) every rank's steps on one roof."""

from __future__ import annotations

from typing import Any

from generator.charts.scales import (
    AXIS_LABEL_PX,
    PALETTE,
    SECONDS_LABEL,
    fit_title_spec,
    label_limit,
    named_data,
)
from generator.charts.trace import top_level
from generator.charts.vega import VegaSpec

# The parts a step splits into, in stacking order; they add up to the step.
PARTS = (
    ("compute only", "compute_only_s"),
    ("compute and communication at once", "overlap_s"),
    ("communication only (exposed)", "exposed_communication_s"),
    ("idle", "idle_s"),
)
SPLIT_TOOLTIP = [
    {"field": "rank_label", "title": "rank", "type": "nominal"},
    {"field": "step", "type": "nominal"},
    {"field": "step_s", "format": ".3~s", "title": "step (s)", "type": "quantitative"},
    {"field": "compute_s", "format": ".3~s", "title": "compute (s)", "type": "quantitative"},
    {"field": "communication_s", "format": ".3~s", "title": "communication (s)",
     "type": "quantitative"},
    {"field": "overlap_s", "format": ".3~s", "title": "overlap (s)", "type": "quantitative"},
    {"field": "idle_s", "format": ".3~s", "title": "idle (s)", "type": "quantitative"},
]  # fmt: skip


def rank_label(rank: int) -> str:
    return f"rank {rank}"


def heatmap(rows: list[dict[str, Any]], field: str, title: str) -> VegaSpec:
    """Ranks down, steps across, each cell coloured by `field` (seconds) and labelled with
    it. rows: the capture's steps (STEP_SCHEMA rows)."""
    if not rows:
        return {}
    steps = list(dict.fromkeys(r["step"] for r in sorted(rows, key=lambda r: r["start_s"])))
    ranks = sorted({int(r["rank"]) for r in rows})
    cells = [{**r, "rank_label": rank_label(int(r["rank"]))} for r in rows]
    datasets: VegaSpec = {}  # the spec's `datasets`: rows by name (named_data)
    name = named_data(cells, datasets)
    labels = [rank_label(r) for r in ranks]
    x = {"field": "step", "sort": steps, "title": None, "type": "ordinal",
         "axis": {"labelAngle": -30 if len(steps) > 6 else 0,
                  "labelLimit": label_limit(steps, AXIS_LABEL_PX)}}  # fmt: skip
    y = {"field": "rank_label", "sort": labels, "title": None, "type": "ordinal"}
    spec = {
        "height": max(60, 34 * len(ranks)),
        "layer": [
            {
                "data": {"name": name},
                "encoding": {
                    "color": {
                        "field": field,
                        "legend": {"format": "~s", "labelExpr": SECONDS_LABEL,
                                   "orient": "bottom", "title": None},
                        "scale": {"scheme": "oranges", "zero": True},
                        "type": "quantitative",
                    },
                    "tooltip": SPLIT_TOOLTIP,
                    "x": x,
                    "y": y,
                },
                "mark": {"type": "rect", "stroke": "white", "strokeWidth": 1},
            },
            {
                "data": {"name": name},
                "encoding": {
                    "text": {"field": field, "format": ".3~s", "type": "quantitative"},
                    "x": x,
                    "y": y,
                },
                "mark": {"type": "text", "fontSize": 11, "color": "#222"},
            },
        ],
        "title": fit_title_spec(title),
        "width": "container",
    }  # fmt: skip
    return top_level(spec, datasets)


def split_bars(ranks: list[dict[str, Any]], title: str) -> VegaSpec:
    """One bar per rank: its median step split into PARTS. ranks: per-rank medians with
    compute_s, overlap_s, exposed_communication_s and idle_s."""
    rows = []
    for r in ranks:
        values = {**r, "compute_only_s": max(r["compute_s"] - r["overlap_s"], 0.0)}
        for order, (part, key) in enumerate(PARTS):
            rows.append({"rank_label": rank_label(int(r["rank"])), "part": part,
                         "order": order, "time_s": values[key]})  # fmt: skip
    if not rows:
        return {}
    labels = [rank_label(int(r["rank"])) for r in ranks]
    parts = [p for p, _ in PARTS]
    datasets: VegaSpec = {}  # the spec's `datasets`: rows by name (named_data)
    spec = {
        "data": {"name": named_data(rows, datasets)},
        "encoding": {
            "color": {"field": "part", "legend": {"orient": "bottom", "title": None,
                                                  "columns": 2, "labelLimit": 320},
                      "scale": {"domain": parts, "range": [PALETTE[0], PALETTE[2], PALETTE[1],
                                                          "#bbbbbb"]},
                      "sort": parts, "type": "nominal"},
            "order": {"field": "order", "type": "quantitative"},
            "tooltip": [
                {"field": "rank_label", "title": "rank", "type": "nominal"},
                {"field": "part", "type": "nominal"},
                {"field": "time_s", "format": ".3~s", "title": "time (s)",
                 "type": "quantitative"},
            ],
            "x": {"axis": {"format": "~s", "labelExpr": SECONDS_LABEL}, "field": "time_s",
                  "stack": "zero", "title": "time in the median step", "type": "quantitative"},
            "y": {"field": "rank_label", "sort": labels, "title": None, "type": "nominal"},
        },
        "height": 30 * len(labels) + 20,
        "mark": {"type": "bar"},
        "title": fit_title_spec(title),
        "width": "container",
    }  # fmt: skip
    return top_level(spec, datasets)


def utilization_timeline(rows: list[dict[str, Any]], names: dict[int, str], title: str) -> VegaSpec:
    """Each GPU's busy share of each slice of the capture, as a line over time. rows:
    {"device", "start_s", "busy"} (nsys_analysis.timeline)."""
    if not rows:
        return {}
    points = [
        {**r, "gpu": f"GPU {r['device']}: {names.get(r['device'], 'not recorded')}"} for r in rows
    ]
    gpus = sorted({p["gpu"] for p in points})
    datasets: VegaSpec = {}  # the spec's `datasets`: rows by name (named_data)
    spec = {
        "data": {"name": named_data(points, datasets)},
        "encoding": {
            "color": {"field": "gpu", "legend": {"orient": "bottom", "title": None,
                                                 "labelLimit": 400},
                      "scale": {"domain": gpus, "range": list(PALETTE[: len(gpus)])},
                      "type": "nominal"},
            "tooltip": [
                {"field": "gpu", "type": "nominal"},
                {"field": "start_s", "format": ".3~s", "title": "from (s)",
                 "type": "quantitative"},
                {"field": "busy", "format": ".0%", "title": "busy", "type": "quantitative"},
            ],
            "x": {"axis": {"format": "~s", "labelExpr": SECONDS_LABEL}, "field": "start_s",
                  "title": "time from the capture's start", "type": "quantitative"},
            "y": {"axis": {"format": "%"}, "field": "busy", "scale": {"domain": [0, 1]},
                  "title": "GPU busy (share of each slice)", "type": "quantitative"},
        },
        "height": 220,
        "mark": {"type": "line", "interpolate": "step-after", "strokeWidth": 1.5},
        "title": fit_title_spec(title),
        "width": "container",
    }  # fmt: skip
    return top_level(spec, datasets)
