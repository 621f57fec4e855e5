"""A page per imported Nsight Systems capture or rocprofv3 JSON (under Traces): each GPU's
utilization and its timeline (SQLite export, rocprofv3), kernel time by family and by name,
copies by direction, the CUDA or HIP API calls, the NVTX ranges and rocprofv3's hardware
counters, with what the files given cannot tell."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from generator.analysis.kernel_names import name_says
from generator.analysis.views import NsysView
from generator.charts.ranks import utilization_timeline
from generator.charts.trace import time_bars
from generator.formatting import percent, seconds, short_name, si
from generator.pages.finding_html import admonitions
from generator.pages.page import Page
from generator.pages.render import ChartBook, render, source_context
from generator.pages.trace_profile import TRACE_DIR

TOP = 25  # kernels, API calls and ranges in the tables (all are in the downloads)


def nsys_path(view: NsysView) -> str:
    return f"{TRACE_DIR}/{view.slug}.md"


def _share(value: float | None) -> str:
    return percent(100 * value) if value is not None else "n/a"


def _rows(frame: pl.DataFrame | None, cells: list[str]) -> list[list[str]]:
    if frame is None:
        return []
    out = []
    for row in frame.head(TOP).iter_rows(named=True):
        line = []
        for cell in cells:
            value = row.get(cell)
            if cell in (
                "time_s",
                "wall_s",
                "busy_s",
                "gpu_busy_s",
                "longest_gap_s",
                "idle_in_gaps_s",
            ):
                line.append(seconds(value))
            elif cell in ("total", "mean"):
                line.append(f"{value:.6g}" if isinstance(value, float) else "n/a")
            elif cell in ("share", "utilization"):
                line.append(_share(value))
            elif cell in ("bytes", "h2d_bytes"):
                line.append(si(value, "B"))
            elif cell == "bandwidth_bytes_per_s":
                line.append(si(value, "B/s") if value else "n/a")
            elif cell in ("name", "kernel"):
                line.append(short_name(str(value), 90))
            elif cell == "name_says":  # the kernel name's own fields
                line.append(name_says(row.get("name")))
            else:
                line.append(str(value))
        out.append(line)
    return out


def nsys_page(view: NsysView) -> Page:
    path = nsys_path(view)
    charts = ChartBook(path, files=False)  # as a trace page: saved from the chart menu
    analysis, source = view.analysis, view.source
    capture = analysis.capture
    timeline = analysis.timeline
    # an SQLite export without GPU tables has a timeline of nothing: not idle, not recorded
    gpu_timeline = analysis.has_timeline and capture.gpu_traced
    words = capture.words
    counters = capture.counters
    markdown = render(
        "nsys.md.j2",
        **source_context(source),
        device=view.device_name,
        form=capture.form,
        tool=words.tool,
        rocprof=counters is not None,
        api_label=words.api,
        range_label=words.ranges,
        trace_command=words.trace,
        counter_rows=_rows(counters, ["counter", "kernel", "dispatches", "total", "mean"]),
        counter_count=counters.height if counters is not None else 0,
        reports=", ".join(capture.reports),
        files=[p.name for p in capture.files],
        findings_html=admonitions(view.findings),
        missing=view.missing,
        gpu_rows=_rows(analysis.gpus, ["device", "name", "wall_s", "busy_s", "utilization",
                                       "idle_gaps", "idle_in_gaps_s", "longest_gap_s"]),
        timeline_chart=charts.embed(
            utilization_timeline(
                timeline.to_dicts() if timeline is not None else [],
                capture.gpus,
                "GPU busy over the capture",
            ),
            f"busy-{view.slug}",
        ) if gpu_timeline else "",
        kernel_time=seconds(analysis.kernel_time_s),
        has_kernels="kernels" in capture.reports,
        family_chart=charts.embed(
            time_bars(analysis.families.to_dicts(), "family", "Kernel time by family"),
            f"families-{view.slug}",
        ),
        family_rows=_rows(analysis.families, ["family", "count", "time_s", "share"]),
        kernel_rows=_rows(analysis.kernels, ["name", "family", "name_says", "count", "time_s",
                                             "share"]),
        kernel_count=analysis.kernels.height,
        copy_rows=_rows(analysis.copies, ["operation", "count", "time_s", "bytes",
                                          "bandwidth_bytes_per_s"]),
        api_rows=_rows(analysis.api, ["name", "count", "time_s"]),
        api_count=analysis.api.height,
        range_rows=_rows(
            analysis.ranges,
            ["range", "count", "time_s", "gpu_busy_s", "utilization", "h2d_copies", "h2d_bytes"]
            if gpu_timeline
            else ["range", "count", "time_s"],
        ),
        range_count=analysis.ranges.height,
        timeline=gpu_timeline,
        untraced=analysis.has_timeline and not capture.gpu_traced,
        from_export=capture.events is not None,
        has_memory=bool({"memtime", "memsize"} & set(capture.reports)),
    )  # fmt: skip
    tables = {"kernels": analysis.kernels, "families": analysis.families,
              "copies": analysis.copies, "api": analysis.api, "ranges": analysis.ranges}  # fmt: skip
    if analysis.gpus is not None:
        tables["gpus"] = analysis.gpus
    if counters is not None:
        tables["counters"] = counters
    return Page(path, source.title, markdown, charts.specs, tables, chart_files=False)


def _nsys_row(view: NsysView) -> dict[str, Any]:
    analysis = view.analysis
    gpus = analysis.gpus
    busy = (
        percent(100 * float(gpus["busy_s"].sum()) / float(gpus["wall_s"].sum()))
        if gpus is not None and not gpus.is_empty() and float(gpus["wall_s"].sum()) > 0
        else "n/a (sums only)"
    )
    return {
        "href": f"{view.slug}/",
        "title": view.source.title,
        "cells": [
            analysis.capture.form,
            view.device_name,
            seconds(analysis.kernel_time_s) if "kernels" in analysis.capture.reports else "n/a",
            busy,
            ", ".join(f.id for f in view.findings) or "none",
        ],
    }


def index_section(views: Sequence[NsysView]) -> str:
    """The Nsight Systems and rocprofv3 captures' table on the Traces index."""
    return render("nsys_index.md.j2", rows=[_nsys_row(view) for view in views])
