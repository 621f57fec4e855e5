"""A page per imported multi-rank capture (under Traces): every rank's steps split into
compute, communication, their overlap and idle time; the straggler of each step; a rank x
step heatmap; and every rank's steps on one roofline."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from generator.analysis.multirank import STRAGGLER_SCHEMA
from generator.analysis.roofs import roofs_text
from generator.analysis.views import CaptureView
from generator.charts.ranks import heatmap, rank_label, split_bars
from generator.charts.trace import trace_roofline
from generator.formatting import number, percent, seconds, si
from generator.pages.finding_html import admonitions
from generator.pages.page import Page
from generator.pages.render import ChartBook, render, source_context
from generator.pages.trace_profile import TRACE_DIR, roof_lines
from generator.summaries.multirank import SPLIT, per_rank

POINT_KIND = "analytic FLOPs / step time"


def capture_path(view: CaptureView) -> str:
    return f"{TRACE_DIR}/{view.slug}.md"


def _rank_rows(view: CaptureView, ranks: pl.DataFrame) -> list[list[str]]:
    info = {r.rank: r for r in view.capture.ranks}
    rows = []
    for row in ranks.to_dicts():
        rank = info[row["rank"]]
        work = f"{rank.kernels} kernels" if rank.on_gpu else f"{rank.ops} ops"
        rows.append(
            [rank_label(row["rank"]), rank.rank_from, work, str(row["steps"])]
            + [seconds(row[c]) for c in SPLIT]
            + [si(row["flops"], "FLOP")]
        )
    return rows


def _straggler_rows(stragglers: pl.DataFrame) -> list[list[str]]:
    return [
        [
            r["step"],
            rank_label(r["straggler_rank"]),
            seconds(r["compute_s"]),
            seconds(r["others_compute_s"]),
            seconds(r["lag_s"]),
            percent(100 * r["lag_share"]) if r["lag_share"] is not None else "n/a",
            rank_label(r["slowest_step_rank"]),
            seconds(r["slowest_step_s"]),
        ]
        for r in stragglers.iter_rows(named=True)
    ]


def _step_rows(steps: pl.DataFrame) -> list[list[str]]:
    return [
        [
            rank_label(r["rank"]),
            r["step"],
            seconds(r["step_s"]),
            si(r["flops"], "FLOP"),
            number(r["arithmetic_intensity"]),
            si(r["step_flops_per_s"], "FLOP/s"),
            si(r["attained_flops_per_s"], "FLOP/s"),
            r["bound"] or "n/a",
            percent(100 * r["efficiency"]) if r["efficiency"] is not None else "n/a",
        ]
        for r in steps.sort("rank", "start_s").iter_rows(named=True)
    ]


def _roof_points(steps: pl.DataFrame) -> list[dict[str, Any]]:
    return [
        {"label": f"{rank_label(r['rank'])} {r['step']}", "rank": rank_label(r["rank"]),
         "ai": r["arithmetic_intensity"], "attained": r["step_flops_per_s"],
         "time_s": r["step_s"]}
        for r in steps.iter_rows(named=True)
    ]  # fmt: skip


def capture_page(view: CaptureView) -> Page:
    path = capture_path(view)
    charts = ChartBook(path, files=False)  # as a trace page: saved from the chart menu
    capture, source = view.capture, view.source
    steps = capture.steps
    rows = steps.to_dicts()
    roofs = capture.roofs
    ranks = per_rank(capture)  # each rank's median step
    markdown = render(
        "rank_capture.md.j2",
        **source_context(source),
        device=view.device_name,
        roof_line=roofs_text({p: roofs[p] for p in steps["path"].to_list() if p in roofs} or roofs),
        ranks=len(capture.ranks),
        world_size=capture.world_size or "not recorded",
        backend=capture.backend or "not recorded",
        on_gpu=any(r.on_gpu for r in capture.ranks),
        common_steps=len(capture.common_steps),
        point_kind=POINT_KIND,
        findings_html=admonitions(view.findings),
        rank_rows=_rank_rows(view, ranks),
        split_chart=charts.embed(
            split_bars(ranks.to_dicts(), "Each rank's median step, split into its parts"),
            f"split-{view.slug}",
        ),
        compute_map=charts.embed(
            heatmap(rows, "compute_s", "Compute time per rank and step"),
            f"compute-{view.slug}",
        ),
        step_map=charts.embed(
            heatmap(rows, "step_s", "Step time per rank and step"), f"steps-{view.slug}"
        ),
        straggler_rows=_straggler_rows(capture.stragglers),
        roof_chart=charts.embed(
            trace_roofline(
                _roof_points(steps),
                roof_lines(roofs, [p for p in steps["path"].to_list() if p]),
                "rank",
                "Every rank's steps on one roof: analytic FLOPs / step time",
                labels=False,
            ),
            f"roof-{view.slug}",
        ),
        step_rows=_step_rows(steps),
    )
    tables = {
        "steps": steps,
        "stragglers": capture.stragglers.cast(STRAGGLER_SCHEMA),  # type: ignore[arg-type]
        "ranks": ranks,
    }
    return Page(path, source.title, markdown, charts.specs, tables, chart_files=False)


def _capture_row(view: CaptureView) -> dict[str, Any]:
    capture = view.capture
    return {
        "href": f"{view.slug}/",
        "title": view.source.title,
        "cells": [
            str(len(capture.ranks)),
            capture.backend or "not recorded",
            view.device_name,
            str(len(capture.common_steps)),
            ", ".join(f.id for f in view.findings) or "none",
        ],
    }


def index_section(views: Sequence[CaptureView]) -> str:
    """The multi-rank captures' table on the Traces index."""
    return render("rank_capture_index.md.j2", rows=[_capture_row(view) for view in views])
