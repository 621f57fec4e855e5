"""One profiler trace on the roofline: read, attribute, match the device, place every op,
step, phase, layer and range on it. The checks of the result are `findings/`' job, and
`summaries/trace.py` runs both."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from generator.analysis.launch import LaunchTime
from generator.analysis.roofs import Roof, path_roofs
from generator.analysis.trace_roofline import (
    TRACE_PATHS,
    group_points,
    time_parts,
    totals_row,
    work_points,
)
from generator.analysis.trace_work import TraceWork, work_of
from generator.catalog.matching import DeviceMatch, match_trace_device
from generator.ingest.trace.attribute import INSTANCE_SCHEMA, WORK_SCHEMA, Attribution, attribute
from generator.ingest.trace.read import Events, RawTrace, read_trace
from generator.records.ceilings import MeasuredCeilings


@dataclass(frozen=True)
class TraceAnalysis:
    path: Path
    trace: RawTrace
    attribution: Attribution
    match: DeviceMatch
    roofs: dict[str, Roof]  # each path's roof (`roofs.path_roofs`); empty: no device known
    points: pl.DataFrame  # one row per work item, with its share of FLOPs and bytes
    total: dict[str, object]
    by_op: pl.DataFrame
    by_step: pl.DataFrame
    by_phase: pl.DataFrame
    by_layer: pl.DataFrame
    by_range: pl.DataFrame
    work: TraceWork  # what the trace itself gave, before the roof (stored: trace_work.py)
    # the seconds of each part of the whole (trace_roofline.PARTS): they sum to the GPU's
    # busy time, kernels + memcpy + memset (a CPU trace: its ops' self time)
    parts: dict[str, float]

    @property
    def kernels(self) -> int:
        return self.work.kernel_count

    @property
    def launch(self) -> LaunchTime | None:
        """The profiled steps' host launch time beside their GPU busy time, the pair
        launch.py's rule judges (None for a CPU trace; `work.launch.why` says why)."""
        return self.work.launch.time


def _grouped(points: pl.DataFrame, by: str, roofs: dict[str, Roof]) -> pl.DataFrame:
    present = points.filter(pl.col(by).is_not_null())
    return group_points(present, by, roofs)


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
    attribution = attribute(trace)
    work = work_of(trace, attribution, work_points(attribution))
    return _on_the_roof(trace, attribution, work, device, ceilings)


def analysis_of_work(
    work: TraceWork,
    path: Path,
    device: str | None = None,
    ceilings: MeasuredCeilings | None = None,
) -> TraceAnalysis:
    """The analysis from a trace's stored work (trace_work.py): the same tables as
    `analyze_raw` gives, without the trace's events (which the pages never read)."""
    empty = Events()
    trace = RawTrace(
        path, empty, empty, empty, empty, empty, empty,
        work.device_properties, work.record_shapes, work.distributed, work.categories,
    )  # fmt: skip
    attribution = Attribution(
        work=pl.DataFrame(schema=WORK_SCHEMA),
        instances=pl.DataFrame(schema=INSTANCE_SCHEMA),
        on_gpu=work.on_gpu,
        ops_with_shapes=work.ops_with_shapes,
        steps=work.steps,
    )
    return _on_the_roof(trace, attribution, work, device, ceilings)


def _on_the_roof(
    trace: RawTrace,
    attribution: Attribution,
    work: TraceWork,
    device: str | None,
    ceilings: MeasuredCeilings | None,
) -> TraceAnalysis:
    """The work placed on the device's roof: matched, grouped by op, step, phase, layer and
    range. Reads only `work` (and `trace.path`), so both paths give the same tables."""
    devices = [d for d, n in work.kernel_devices.items() for _ in range(n)]
    names = [name for name, n in work.kernels.items() for _ in range(n)]
    match = match_trace_device(work.device_properties, devices, names, device)
    # the matched device's roofs, measured first (roofs.roof_for); a CPU trace: the machine's
    key = match.device.name if match.device is not None else None
    if key is None and not work.on_gpu and ceilings is not None:
        key = ceilings.device_name
    roofs = path_roofs(key, TRACE_PATHS, [ceilings] if ceilings else [])
    points = work.points
    by_op = group_points(points, "op", roofs)
    total = totals_row(points, roofs)
    step_order = {name: i for i, name in enumerate(work.steps)}
    by_step = _grouped(points, "step", roofs)
    by_step = by_step.sort(pl.col("step").replace_strict(step_order, default=len(step_order)))
    return TraceAnalysis(
        path=trace.path,
        trace=trace,
        attribution=attribution,
        match=match,
        roofs=roofs,
        points=points,
        total=total,
        by_op=by_op,
        by_step=by_step,
        by_phase=_grouped(points, "phase", roofs),
        by_layer=_grouped(points, "layer", roofs),
        by_range=_grouped(points, "range", roofs),
        work=work,
        parts=time_parts(points, work.copies_s),
    )
