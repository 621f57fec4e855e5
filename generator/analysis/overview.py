"""Every step on one roofline: ncu-counted steps under their datasheet roof, modelled runs
under the ceilings measured on their machine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from generator.analysis.roofline import PEAK_FOR_PRECISION
from generator.analysis.trace_roofline import POINT_KIND as TRACE_POINT_KIND
from generator.analysis.views import MeasurementView, TraceView
from generator.catalog import device_label
from generator.records.ceilings import MeasuredCeilings


@dataclass(frozen=True)
class OverviewPoints:
    points: list[dict[str, Any]]  # device, label, kind, ai, attained
    roofs: list[dict[str, Any]]  # device, label, peak, bandwidth


def overview_points(
    runs: pl.DataFrame,
    views: list[MeasurementView],
    ceilings: list[MeasuredCeilings],
    traces: list[TraceView] | None = None,
) -> OverviewPoints:
    """Step points (ncu-measured, trace-derived and CPU-modelled) and the roof of each
    device they sit on."""
    points: list[dict[str, Any]] = []
    roofs: list[dict[str, Any]] = []
    for trace in traces or []:
        total, device = trace.analysis.total, trace.analysis.match.device
        if device is None or not total["arithmetic_intensity"] or not total["attained_flops_per_s"]:
            continue
        points.append(
            {
                "device": device.name,
                "label": trace.title,
                "kind": TRACE_POINT_KIND,
                "ai": total["arithmetic_intensity"],
                "attained": total["attained_flops_per_s"],
            }
        )
        path = str(total["path"] or "fp32")
        peak = device.peak(path)
        if peak and not any(r["device"] == device.name for r in roofs):
            roofs.append(
                {
                    "device": device.name,
                    "label": f"{device.name} {path} datasheet",
                    "peak": peak,
                    "bandwidth": device.bandwidth_bytes_per_s,
                }
            )
    for view in views:
        device = view.match.device
        if device is None or view.step.arithmetic_intensity is None:
            continue
        points.append(
            {
                "device": device.name,
                "label": view.title,
                "kind": "measured (ncu)",
                "ai": view.step.arithmetic_intensity,
                "attained": view.step.attained_flops_per_s,
            }
        )
        precision = view.step.dominant_precision or "fp32"
        peak = device.peak(PEAK_FOR_PRECISION[precision])
        if peak and not any(r["device"] == device.name for r in roofs):
            roofs.append(
                {
                    "device": device.name,
                    "label": f"{device.name} {precision} datasheet",
                    "peak": peak,
                    "bandwidth": device.bandwidth_bytes_per_s,
                }
            )
    ok = runs.filter((pl.col("status") == "ok") & pl.col("modelled_ai").is_not_null())
    for row in ok.to_dicts():
        points.append(
            {
                "device": row["device_label"],
                "label": row["run_id"],
                "kind": "modelled (analytic FLOPs and bytes, measured time)",
                "ai": row["modelled_ai"],
                "attained": row["modelled_attained"],
            }
        )
    for measured in ceilings:
        gemm = measured.gemm_flops_per_s.get("fp32")
        if gemm and measured.triad_bytes_per_s:
            roofs.append(
                {
                    "device": device_label(measured.device_name),
                    "label": f"{measured.device_name} measured GEMM and triad",
                    "peak": gemm,
                    "bandwidth": measured.triad_bytes_per_s,
                }
            )
    return OverviewPoints(points, roofs)
