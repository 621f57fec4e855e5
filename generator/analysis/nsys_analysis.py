"""An Nsight Systems capture analysed: kernel time by name and by kernel family, copies by
direction with their volume and bandwidth, the CUDA API calls, and, from an SQLite export's
timeline, each GPU's busy time over the capture's wall time (utilization), its idle gaps,
and the same per NVTX range.

GPU busy time is the union of the intervals in which a kernel, copy or set runs on that
GPU (concurrent streams count once). Wall time is the capture's span: from its first event
(a runtime call, an NVTX range or GPU activity) to its last. The stats CSV reports are sums
without a timeline: from them, utilization and idle gaps cannot be known, and the analysis
says so rather than guess.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass

import polars as pl

from generator.analysis.kernels import family_of
from generator.analysis.rank_timeline import Covered, Interval, length, merged
from generator.ingest.nsys.capture import NsysCapture
from generator.ingest.nsys.sqlite import Activity, SqliteExport

GAP_MIN_S = 100e-6  # an idle gap shorter than this is launch latency, not a stall
TIMELINE_BINS = 200
STEP_RANGE = re.compile(r"step|iter|batch", re.IGNORECASE)  # NVTX ranges that mark a step
LAUNCHES = ("cudaLaunchKernel", "cuLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernelEx")

GPU_SCHEMA = {
    "device": pl.Int64,
    "name": pl.String,
    "wall_s": pl.Float64,
    "busy_s": pl.Float64,
    "utilization": pl.Float64,
    "idle_gaps": pl.Int64,  # gaps of at least GAP_MIN_S
    "idle_in_gaps_s": pl.Float64,
    "longest_gap_s": pl.Float64,
}
RANGE_BUSY_SCHEMA = {
    "range": pl.String,
    "count": pl.Int64,
    "time_s": pl.Float64,
    "gpu_busy_s": pl.Float64,
    "utilization": pl.Float64,
    "h2d_copies": pl.Int64,
    "h2d_bytes": pl.Float64,
}


@dataclass(frozen=True)
class NsysAnalysis:
    capture: NsysCapture
    kernels: pl.DataFrame  # name, family, count, time_s, share
    families: pl.DataFrame  # family, count, time_s, share
    copies: pl.DataFrame  # operation, count, time_s, bytes, bandwidth_bytes_per_s
    api: pl.DataFrame  # name, count, time_s
    ranges: pl.DataFrame  # RANGE_BUSY_SCHEMA (SQLite) or range, count, time_s (CSV)
    gpus: pl.DataFrame | None  # GPU_SCHEMA, SQLite only
    timeline: pl.DataFrame | None  # device, start_s, busy share of each bin, SQLite only

    @property
    def kernel_time_s(self) -> float:
        return float(self.kernels["time_s"].sum() or 0.0)

    @property
    def launch_time_s(self) -> float:
        launches = self.api.filter(pl.col("name").str.replace(r"_v\d+$", "").is_in(LAUNCHES))
        return float(launches["time_s"].sum() or 0.0)

    @property
    def has_timeline(self) -> bool:
        return self.gpus is not None


def _with_share(frame: pl.DataFrame) -> pl.DataFrame:
    total = frame["time_s"].sum()
    return frame.with_columns(
        (pl.col("time_s") / total if total else pl.lit(None, pl.Float64)).alias("share")
    )


def kernel_tables(capture: NsysCapture) -> tuple[pl.DataFrame, pl.DataFrame]:
    kernels = _with_share(
        capture.kernels.with_columns(
            pl.col("name").map_elements(family_of, return_dtype=pl.String).alias("family")
        ).select("name", "family", "count", "time_s")
    )
    families = _with_share(
        kernels.group_by("family")
        .agg(pl.col("count").sum(), pl.col("time_s").sum())
        .sort("time_s", "family", descending=[True, False])
    )
    return kernels, families


def _busy(export: SqliteExport, device: int | None = None) -> list[Interval]:
    spans: list[Interval] = []
    for activity in (export.kernels, export.copies, export.sets):
        spans += [
            (s, e)
            for s, e, d in zip(activity.start, activity.end, activity.device, strict=True)
            if device is None or d == device
        ]
    return merged(spans)


def _span(export: SqliteExport) -> tuple[float, float]:
    starts = [min(a.start) for a in _activities(export) if a.start]
    ends = [max(a.end) for a in _activities(export) if a.end]
    return (min(starts), max(ends)) if starts else (0.0, 0.0)


def _activities(export: SqliteExport) -> tuple[Activity, ...]:
    return (export.kernels, export.copies, export.sets, export.api, export.ranges)


def _gaps(busy: list[Interval]) -> list[float]:
    return [b[0] - a[1] for a, b in itertools.pairwise(busy) if b[0] - a[1] >= GAP_MIN_S]


def gpu_table(export: SqliteExport) -> pl.DataFrame:
    start, end = _span(export)
    wall = end - start
    devices = sorted(
        {d for a in (export.kernels, export.copies, export.sets) for d in a.device}
        | set(export.gpus)
    )
    rows = []
    for device in devices:
        busy = _busy(export, device)
        gaps = _gaps(busy)
        rows.append(
            {
                "device": device,
                "name": export.gpus.get(device, "not recorded"),
                "wall_s": wall,
                "busy_s": length(busy),
                "utilization": length(busy) / wall if wall > 0 else None,
                "idle_gaps": len(gaps),
                "idle_in_gaps_s": sum(gaps),
                "longest_gap_s": max(gaps, default=0.0),
            }
        )
    return pl.DataFrame(rows, schema=GPU_SCHEMA)


def timeline(export: SqliteExport, bins: int = TIMELINE_BINS) -> pl.DataFrame:
    """Each GPU's busy share of each of `bins` equal slices of the capture."""
    start, end = _span(export)
    width = (end - start) / bins if end > start else 0.0
    rows = []
    devices = sorted({d for a in (export.kernels, export.copies, export.sets) for d in a.device})
    for device in devices:
        busy = Covered(_busy(export, device))
        for index in range(bins if width else 0):
            lo = start + index * width
            share = min(busy.within(lo, lo + width) / width, 1.0)  # rounding: never >1
            rows.append({"device": device, "start_s": lo - start, "busy": share})
    return pl.DataFrame(
        rows, schema={"device": pl.Int64, "start_s": pl.Float64, "busy": pl.Float64}
    )


def range_table(export: SqliteExport) -> pl.DataFrame:
    """Per NVTX range name: its instances, their summed duration, the GPU busy time inside
    them (any GPU), and the host-to-device copies that start inside them."""
    busy = Covered(_busy(export))
    h2d = sorted(
        (s, b)
        for s, b, n in zip(
            export.copies.start, export.copies.bytes, export.copies.name, strict=True
        )
        if n.lower().replace(" ", "") in ("host-to-device", "htod")
    )
    h2d_starts = [s for s, _ in h2d]
    h2d_bytes = list(itertools.accumulate((b for _, b in h2d), initial=0.0))
    per: dict[str, dict[str, float]] = {}
    ranges = export.ranges
    for name, lo, hi in zip(ranges.name, ranges.start, ranges.end, strict=True):
        entry = per.setdefault(
            name, {"count": 0, "time_s": 0.0, "busy": 0.0, "h2d": 0, "bytes": 0.0}
        )
        entry["count"] += 1
        entry["time_s"] += hi - lo
        entry["busy"] += busy.within(lo, hi)
        first, stop = bisect.bisect_left(h2d_starts, lo), bisect.bisect_left(h2d_starts, hi)
        entry["h2d"] += stop - first
        entry["bytes"] += h2d_bytes[stop] - h2d_bytes[first]
    rows = [
        {
            "range": name,
            "count": int(e["count"]),
            "time_s": e["time_s"],
            "gpu_busy_s": e["busy"],
            "utilization": e["busy"] / e["time_s"] if e["time_s"] > 0 else None,
            "h2d_copies": int(e["h2d"]),
            "h2d_bytes": e["bytes"],
        }
        for name, e in per.items()
    ]
    return pl.DataFrame(rows, schema=RANGE_BUSY_SCHEMA).sort(
        "time_s", "range", descending=[True, False]
    )


def analyse_nsys(capture: NsysCapture) -> NsysAnalysis:
    kernels, families = kernel_tables(capture)
    copies = capture.copies.with_columns(
        pl.when(pl.col("time_s") > 0)
        .then(pl.col("bytes") / pl.col("time_s"))
        .alias("bandwidth_bytes_per_s")
    )
    export = capture.events
    ranges = range_table(export) if export is not None else capture.ranges
    if export is not None and not capture.gpu_traced:  # not idle: not recorded
        unknown = ("gpu_busy_s", "utilization", "h2d_copies", "h2d_bytes")
        ranges = ranges.with_columns(pl.lit(None, RANGE_BUSY_SCHEMA[c]).alias(c) for c in unknown)
    return NsysAnalysis(
        capture=capture,
        kernels=kernels,
        families=families,
        copies=copies,
        api=capture.api,
        ranges=ranges,
        gpus=gpu_table(export) if export is not None else None,
        timeline=timeline(export) if export is not None else None,
    )


def step_ranges(ranges: pl.DataFrame) -> pl.DataFrame:
    """The NVTX ranges whose names mark a training or inference step."""
    return ranges.filter(pl.col("range").str.contains(STEP_RANGE.pattern, literal=False))
