"""Per-layer roofline points of a measured run: the complexity walk's per-layer FLOPs and
bytes joined with the measured time of that layer's ops in the profiled step's trace.

The trace names each op's innermost module (`ra.layer::<path>` ranges; backward ops take the
layer of their forward op through the autograd sequence number). The complexity walk names
leaf modules by path and functional ops by their module: `layer1.0.fn:add` is an op in
`layer1.0`'s own forward, outside its children, so it joins the time that `layer1.0` spends
outside its children. A module the walk costs as one unit (MultiheadAttention) takes the time
of its children too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from generator.ingest.trace.labels import ROOT_LAYER

if TYPE_CHECKING:  # it imports the models: only the type is needed
    from generator.complexity.report import LayerRow

ROOT = ROOT_LAYER
LAYERS_COLUMNS = ("layer", "family", "phase", "flops", "bytes", "time_s")
PHASES = ("forward", "backward")
LAYERS_SCHEMA = {
    "layer": pl.String,
    "family": pl.String,
    "phase": pl.String,
    "flops": pl.Float64,
    "bytes": pl.Float64,
    "time_s": pl.Float64,
}


def _unit_of_row(name: str) -> str:
    """The layer a complexity row's time is measured under."""
    scope, separator, _ = name.rpartition(".fn:")
    if separator:
        return f"{scope} (own ops)"
    if name.startswith("fn:"):
        return f"{ROOT} (own ops)"
    return name


def _unit_of_trace_layer(layer: str, units: set[str]) -> str | None:
    """The complexity unit a traced module's time belongs to: itself, its own-ops group, or
    the nearest enclosing unit (a child of a module costed whole)."""
    path = layer
    while True:
        if path in units:
            return path
        if f"{path} (own ops)" in units:
            return f"{path} (own ops)"
        if path == ROOT or "." not in path:
            return f"{ROOT} (own ops)" if f"{ROOT} (own ops)" in units else None
        base = path.split("#")[0]
        path = base.rpartition(".")[0] if base == path else base


def layer_rows(by_layer_phase: pl.DataFrame, complexity: Sequence[LayerRow]) -> pl.DataFrame:
    """One row per complexity unit and phase (forward, and backward when it ran).

    `by_layer_phase` has columns layer, phase, time_s (summed op time on the CPU or kernel
    time on a GPU); `complexity` is the run's complexity.csv rows."""
    flops: dict[tuple[str, str], float] = defaultdict(float)
    traffic: dict[tuple[str, str], float] = defaultdict(float)
    family: dict[str, str] = {}
    order: list[str] = []
    for row in complexity:
        if row["kind"] == "parameters":
            continue
        unit = _unit_of_row(row["name"])
        if unit not in family:
            order.append(unit)
            family[unit] = str(row["family"])
        flops[unit, "forward"] += float(row["forward_flops"])
        traffic[unit, "forward"] += float(row["forward_bytes"])
        flops[unit, "backward"] += float(row["backward_input_flops"]) + float(
            row["backward_weight_flops"]
        )
        traffic[unit, "backward"] += float(row["backward_bytes"])
    units = set(order)
    time: dict[tuple[str, str], float] = defaultdict(float)
    for layer, phase, seconds in by_layer_phase.select("layer", "phase", "time_s").iter_rows():
        target = _unit_of_trace_layer(layer, units) if layer else None
        if target is not None and phase in PHASES:
            time[target, phase] += seconds
    measured_phases = {p for _, p in time}
    rows = [
        {
            "layer": unit,
            "family": family[unit],
            "phase": phase,
            "flops": flops[unit, phase],
            "bytes": traffic[unit, phase],
            "time_s": time.get((unit, phase)),
        }
        for unit in order
        for phase in PHASES
        if phase in measured_phases
    ]
    return pl.DataFrame(rows, schema=LAYERS_SCHEMA)
