"""The landing page's roofline: one point per configuration, its headline point (the one its
bound is stated from, analysis/points.py), under the roof of its own device and precision,
and every roof those points use (one per device and precision): the points the landing's
sentences describe, none twice, none above a roof that is not drawn."""

from __future__ import annotations

from collections.abc import Mapping

from generator.analysis.overview import OverviewPoints
from generator.analysis.points import Points
from generator.analysis.results import Result
from generator.analysis.roofs import peak_key
from generator.records.peaks import PEAK_LABELS


def point_kind(point: str) -> str:
    """'counted point (headline)': the kind a chart's legend and tooltip name."""
    return f"{point} point (headline)"


def headline_points(results: Mapping[str, Result], points: Mapping[str, Points]) -> OverviewPoints:
    """Each result's headline point, by configuration label, and the roofs under them."""
    found = []
    roofs: dict[str, dict[str, object]] = {}
    for workload, result in sorted(results.items(), key=lambda item: item[1].run_ids):
        verdict = points[workload].headline if workload in points else None
        if verdict is None:
            continue
        mode = "" if result.compile == "eager" else f" {result.compile}"
        peak = peak_key(result.precision)
        found.append({
            "device": result.device_label,
            "label": f"{result.model} ({result.dataset}) b{result.batch} {result.phase} "
            f"{result.precision}{mode}",
            "kind": point_kind(verdict.point), "ai": verdict.ai,
            "attained": verdict.attained.value, "run": result.run_ids[0],
            "host_bound": verdict.host_bound, "precision": PEAK_LABELS.get(peak, peak),
        })  # fmt: skip
        roof = verdict.roof
        roofs.setdefault(roof.label, {
            "device": result.device_label, "label": roof.label,
            "precision": PEAK_LABELS.get(peak, peak), "source": roof.source,
            "peak": roof.peak_flops_per_s, "bandwidth": roof.bandwidth_bytes_per_s,
        })  # fmt: skip
    return OverviewPoints(found, list(roofs.values()))
