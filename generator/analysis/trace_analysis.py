"""One profiler trace on the roofline: read, attribute, match the device, place every op,
step, phase, layer and range on it. The checks of the result are `findings/`' job, and
`summaries/trace.py` runs both."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from generator.analysis.trace_roofline import (
    Roof,
    catalog_roof,
    ceilings_roof,
    group_points,
    totals_row,
    work_points,
)
from generator.catalog.matching import DeviceMatch, match_trace_device
from generator.ingest.trace.attribute import Attribution, attribute
from generator.ingest.trace.read import RawTrace, read_trace
from generator.records.ceilings import MeasuredCeilings


@dataclass(frozen=True)
class TraceAnalysis:
    path: Path
    trace: RawTrace
    attribution: Attribution
    match: DeviceMatch
    roof: Roof | None
    points: pl.DataFrame  # one row per work item, with its share of FLOPs and bytes
    total: dict[str, object]
    by_op: pl.DataFrame
    by_step: pl.DataFrame
    by_phase: pl.DataFrame
    by_layer: pl.DataFrame
    by_range: pl.DataFrame

    @property
    def kernels(self) -> int:
        return len(self.trace.kernels)


def _grouped(points: pl.DataFrame, by: str, roof: Roof | None) -> pl.DataFrame:
    present = points.filter(pl.col(by).is_not_null())
    return group_points(present, by, roof)


def analyze_trace(
    path: Path,
    device: str | None = None,
    ceilings: MeasuredCeilings | None = None,
) -> TraceAnalysis:
    return analyze_raw(read_trace(path), device, ceilings)


def analyze_raw(
    trace: RawTrace,
    device: str | None = None,
    ceilings: MeasuredCeilings | None = None,
) -> TraceAnalysis:
    path = trace.path
    attribution = attribute(trace)
    kernels = trace.kernels
    match = match_trace_device(trace.device_properties, kernels.device, kernels.name, device)
    roof: Roof | None = None
    if match.device is not None:
        roof = catalog_roof(match.device)
    elif not attribution.on_gpu and ceilings is not None:
        roof = ceilings_roof(ceilings)
    points = work_points(attribution)
    by_op = group_points(points, "op", roof)
    total = totals_row(points, roof)
    step_order = {name: i for i, name in enumerate(attribution.steps)}
    by_step = _grouped(points, "step", roof)
    by_step = by_step.sort(pl.col("step").replace_strict(step_order, default=len(step_order)))
    return TraceAnalysis(
        path=path,
        trace=trace,
        attribution=attribution,
        match=match,
        roof=roof,
        points=points,
        total=total,
        by_op=by_op,
        by_step=by_step,
        by_phase=_grouped(points, "phase", roof),
        by_layer=_grouped(points, "layer", roof),
        by_range=_grouped(points, "range", roof),
    )
