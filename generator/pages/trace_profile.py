"""The "Traces" pages: one per torch.profiler trace (imported ones, and each measured run's
profiled step), and an index. Points are analytic FLOPs over measured time, per op, per
layer and per phase."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import polars as pl
from markupsafe import Markup

from generator.analysis.bound_words import bound_cell
from generator.analysis.roofs import SOURCE_WORDS, Roof, roofs_named, roofs_text
from generator.analysis.step_verdict import TIME_BASES
from generator.analysis.trace_analysis import TraceAnalysis
from generator.analysis.trace_roofline import POINT_KIND, WHOLE_CPU, WHOLE_GPU
from generator.analysis.view_verdicts import trace_roof, trace_verdict
from generator.analysis.views import TraceView
from generator.charts.trace import time_bars, trace_roofline
from generator.formatting import number, percent, seconds, si
from generator.pages.device_line import device_line
from generator.pages.finding_html import admonitions
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, one_line, render
from generator.pages.run_lists import link, page_count, paged, summarize
from generator.records.peaks import PEAK_LABELS

TRACE_DIR = f"{GENERATED_DIR}/traces"
TOP_OPS = 25


def roof_lines(
    roofs: Mapping[str, Roof], paths: list[str], verdict: Roof | None = None
) -> list[dict[str, Any]]:
    """The roofs of the paths the points run on, and the verdict's roof among them: the
    chart draws the roof its page's text names."""
    drawn = [roofs[p] for p in dict.fromkeys(p for p in paths if p) if p in roofs]
    if verdict is not None and verdict not in drawn:
        drawn.append(verdict)
    return [
        {
            "label": f"{r.precision} {si(r.peak_flops_per_s, 'FLOP/s')} ({SOURCE_WORDS[r.source]})",
            "device": r.device,
            "precision": PEAK_LABELS.get(r.precision, r.precision),
            "source": r.source,
            "peak": r.peak_flops_per_s,
            "bandwidth": r.bandwidth_bytes_per_s,
        }
        for r in drawn
    ]


def _point_cells(row: dict[str, Any], key: str) -> list[str]:
    return [
        str(row[key]),
        str(row.get("counted_as", "")),
        seconds(row["time_s"]),
        si(row["flops"], "FLOP"),
        si(row["bytes"], "B"),
        number(row["arithmetic_intensity"]),
        si(row["attained_flops_per_s"], "FLOP/s"),
        row["path"] or "n/a",
        bound_cell(row["bound"], row["efficiency"]),
        percent(100 * row["efficiency"]) if row["efficiency"] is not None else "n/a",
    ]


def parts_sentence(analysis: TraceAnalysis) -> str:
    """The whole every share is of and its parts (trace_roofline.PARTS), which sum to it,
    e.g. "the GPU's busy time, 12.3 ms (kernels + memcpy + memset): modelled 61 %, ..."."""
    whole_s = sum(analysis.parts.values())
    if whole_s <= 0:
        return "no time was recorded"
    whole = WHOLE_GPU if analysis.attribution.on_gpu else WHOLE_CPU
    parts = ", ".join(
        f"{name} {percent(100 * t / whole_s)}" for name, t in analysis.parts.items() if t > 0
    )
    return f"{whole}, {seconds(whole_s)}: {parts}"


def _layer_frame(view: TraceView) -> pl.DataFrame | None:
    if view.layers is None or view.layers.is_empty():
        return None
    return view.layers.with_columns(
        pl.when(pl.col("bytes") > 0).then(pl.col("flops") / pl.col("bytes")).alias("ai"),
        pl.when(pl.col("time_s") > 0).then(pl.col("flops") / pl.col("time_s")).alias("attained"),
    )


def _layer_sentence(view: TraceView, layers: pl.DataFrame | None) -> str:
    if layers is None or view.forward_range_s is None:
        return ""
    forward = float(layers.filter(pl.col("phase") == "forward")["time_s"].sum())
    if view.analysis.attribution.on_gpu:
        # On a GPU a layer's time is its kernels' time; the forward range is the CPU launching
        # them (asynchronously, slowed by the profiler), so it is no denominator.
        phase = view.analysis.by_phase.filter(pl.col("phase") == "forward")["time_s"]
        kernels = float(phase.sum()) if len(phase) else None
        return (
            f"The forward layers' kernel time adds up to {seconds(forward)}, "
            f"{percent(100 * forward / kernels) if kernels else 'n/a'} of the forward phase's "
            f"kernel time ({seconds(kernels)}); the CPU spent {seconds(view.forward_range_s)} "
            "in the forward range launching them under the profiler."
        )
    return (
        f"The forward layers' op time adds up to {seconds(forward)}, "
        f"{percent(100 * forward / view.forward_range_s)} of the profiled step's forward range "
        f"({seconds(view.forward_range_s)}): the rest is Python and dispatch time between ops, "
        "which no op owns."
    )


def trace_page(view: TraceView) -> Page:
    analysis = view.analysis
    path = f"{TRACE_DIR}/{view.slug}.md"
    charts = ChartBook(path, files=False)
    ops = analysis.by_op.to_dicts()
    op_points = [
        {"label": r["op"], "family": r["family"] or "other", "ai": r["arithmetic_intensity"],
         "attained": r["attained_flops_per_s"], "time_s": r["time_s"]}
        for r in ops
    ]  # fmt: skip
    verdict = trace_verdict(analysis, view.roof)
    roofs = roof_lines(analysis.roofs, [r["path"] for r in ops], trace_roof(analysis, view.roof))
    layers = _layer_frame(view)
    layer_chart = family_chart = ""
    if layers is not None:
        layer_points = [
            {"label": r["layer"], "phase": r["phase"], "ai": r["ai"], "attained": r["attained"],
             "time_s": r["time_s"]}
            for r in layers.to_dicts()
        ]  # fmt: skip
        layer_chart = charts.embed(
            # the roofs of the paths the trace's ops run on (a layer's ops share its FLOPs)
            trace_roofline(layer_points, roofs, "phase",
                           "Per-layer roofline: analytic FLOPs / measured time"),
            f"layers-{view.slug}",
        )  # fmt: skip
        # in first-seen order: an unordered group_by made every build a new page and chart
        families = (
            layers.group_by("family", maintain_order=True).agg(pl.col("time_s").sum()).to_dicts()
        )
        family_chart = charts.embed(
            time_bars(families, "family", "Time by layer family (forward and backward)"),
            f"families-{view.slug}",
        )
    phases = analysis.by_phase.to_dicts()
    total = analysis.total
    markdown = render(
        "trace.md.j2",
        title=view.title,
        title_yaml=front_matter_title(view.title),
        kind=view.kind,
        origin=view.origin,
        citation=one_line(view.citation),
        point_kind=POINT_KIND,
        device_line=device_line(analysis.match),
        verdict=verdict.words() if verdict else None,
        basis=verdict.basis() if verdict else None,
        basis_note=TIME_BASES[verdict.time_basis] if verdict else None,
        run_page=f"../runs/{view.slug.removeprefix('run-')}.md" if view.kind == "run" else None,
        roof_line=roofs_text(_used(analysis.roofs, [r["path"] for r in ops])),
        on_gpu=analysis.attribution.on_gpu,
        totals=_point_cells({**total, "what": "all", "counted_as": "every op"}, "what"),
        parts=parts_sentence(analysis),
        counted_flops=si(view.counted_flops, "FLOP") if view.counted_flops else None,
        ratio=number(float(total["flops"]) / view.counted_flops)  # type: ignore[arg-type]
        if view.counted_flops and total["flops"]
        else None,
        findings_html=admonitions(view.findings),
        op_chart=charts.embed(
            trace_roofline(
                op_points, roofs, "family", "Per-op roofline: analytic FLOPs / measured time"
            ),
            f"ops-{view.slug}",
        ),
        phase_rows=[_point_cells(r, "phase") for r in phases],
        phase_chart=charts.embed(
            time_bars(phases, "phase", "Time by phase"), f"phases-{view.slug}"
        ),
        step_rows=[_point_cells(r, "step") for r in analysis.by_step.to_dicts()],
        range_rows=[_point_cells(r, "range") for r in analysis.by_range.to_dicts()[:TOP_OPS]],
        layer_chart=layer_chart,
        family_chart=family_chart,
        layer_sentence=_layer_sentence(view, layers),
        op_rows=[_point_cells(r, "op") for r in ops[:TOP_OPS]],
        op_count=len(ops),
    )
    tables = {"ops": analysis.by_op, "phases": analysis.by_phase, "steps": analysis.by_step}
    if layers is not None:
        tables["layers"] = layers
    # A run's trace is reached from the Traces index and its run page: one nav entry per
    # run would make every page of a thousand-run report carry a thousand-entry nav.
    return Page(
        path, view.title, markdown, charts.specs, tables, in_nav=view.kind != "run",
        chart_files=False,
    )  # fmt: skip


def _index_row(view: TraceView, up: str = "") -> dict[str, Any]:
    """`up`: from a page served one folder deeper than the index ("../"); the table is raw
    HTML, whose links MkDocs does not rewrite."""
    total = view.analysis.total
    device = view.analysis.match.device
    return {
        "href": f"{up}{view.slug}/",
        "title": view.title,
        "cells": [
            view.kind,
            device.name if device else (_device_of(view.analysis.roofs) or "unknown"),
            seconds(float(total["time_s"])),  # type: ignore[arg-type]
            si(total["flops"], "FLOP"),  # type: ignore[arg-type]
            number(total["arithmetic_intensity"]),  # type: ignore[arg-type]
            si(total["attained_flops_per_s"], "FLOP/s"),  # type: ignore[arg-type]
            bound_cell(total["bound"], total["efficiency"]),  # type: ignore[arg-type]
        ],
    }


def _used(roofs: Mapping[str, Roof], paths: list[str]) -> Mapping[str, Roof]:
    """The roofs of the paths the ops run on (all of them where none has a path)."""
    used = {p: roofs[p] for p in paths if p in roofs}
    return used or roofs


def _device_of(roofs: Mapping[str, Roof]) -> str | None:
    named = roofs_named(roofs)
    return named[0] if named else None


def list_path(group: str, number: int) -> str:
    return f"{TRACE_DIR}/list-{group}-{number}.md"


UNGROUPED = "ungrouped"  # a run whose group the report does not know


def run_trace_groups(
    views: Sequence[TraceView], run_groups: Mapping[str, str | None], order: Sequence[str] = ()
) -> dict[str, list[TraceView]]:
    """The runs' traces by their run's experiment group (`run_groups`: run id -> group),
    the groups in `order` first, then the others by name; each group's traces in the
    views' order. A run added later changes its own group's list alone."""
    grouped: dict[str, list[TraceView]] = {}
    for view in views:
        if view.kind == "run":
            group = run_groups.get(view.slug.removeprefix("run-")) or UNGROUPED
            grouped.setdefault(group, []).append(view)
    first = [g for g in order if g in grouped]
    return {g: grouped[g] for g in [*first, *sorted(set(grouped) - set(first))]}


def traces_index(
    views: list[TraceView],
    sections: Sequence[str] = (),
    groups: Mapping[str, list[TraceView]] | None = None,
) -> Page:
    """Every trace in one table; above run_lists.SUMMARY_FROM traces, the imported ones,
    with the runs' traces on list pages of run_lists.PAGE_SIZE per experiment group
    (`groups`, from run_trace_groups). `sections`: the input kinds' own tables above it
    (`kind_sections`)."""
    path = f"{TRACE_DIR}/index.md"
    paged = summarize(len(views))
    shown = [v for v in views if v.kind != "run"] if paged else views
    runs = sum(1 for v in views if v.kind == "run") if paged else 0
    if groups is None:
        groups = run_trace_groups(views, {})
    frame = pl.DataFrame(
        [{"trace": v.title, "kind": v.kind, **v.analysis.total} for v in views]
    ) if views else pl.DataFrame()  # fmt: skip
    return Page(
        path,
        "Profiler traces",
        render(
            "traces_index.md.j2",
            rows=[_index_row(v) for v in shown],
            point_kind=POINT_KIND,
            run_traces=f"{runs:,}" if runs else None,
            lists=[
                (
                    group,
                    f"{len(of):,}",
                    [link(path, list_path(group, n)) for n in range(1, page_count(len(of)) + 1)],
                )
                for group, of in groups.items()
            ]
            if runs
            else [],
            sections=[Markup(section) for section in sections],
        ),
        tables={"traces": frame},
    )


def trace_lists(views: list[TraceView], groups: Mapping[str, list[TraceView]]) -> list[Page]:
    """The runs' traces, PAGE_SIZE to a page and one list per experiment group (`groups`,
    from run_trace_groups), when the index leaves them out."""
    if not summarize(len(views)):
        return []
    pages = []
    for group, runs in groups.items():
        for page in paged(runs, partial(list_path, group)):
            markdown = render(
                "trace_list.md.j2",
                group=group,
                number=page.number,
                count=page.count,
                index=link(page.path, f"{TRACE_DIR}/index.md"),
                previous=page.previous,
                next=page.next,
                rows=[_index_row(v, "../") for v in page.items],
                point_kind=POINT_KIND,
            )
            title = f"Run traces of {group}, page {page.number} of {page.count}"
            pages.append(Page(page.path, title, markdown, in_nav=False))
    return pages


def kind_sections(report: Report) -> list[str]:
    """Each input kind's section of the index, newest kind first, for the kinds that found
    something."""
    return [
        kind.index(views)
        for kind in reversed(report.kinds)
        if kind.index is not None and (views := report.of(kind))
    ]


def _index(report: Report) -> list[Page]:
    sections = kind_sections(report)
    if not report.traces and not sections:
        return []
    groups = run_trace_groups(
        report.traces,
        dict(zip(report.runs["run_id"], report.runs["group"], strict=True)),
        [g.id for g in report.experiments.groups] if report.experiments else (),
    )
    index = traces_index(report.traces, sections, groups)
    return [index, *trace_lists(report.traces, groups)]


INDEX = Generated("Traces", _index)
PAGE = Generated(
    "Traces",
    # drawn with the trace's analysis, in the trace cache's worker (site/trace_cache.py)
    lambda report: [report.trace_pages.get(v.slug) or trace_page(v) for v in report.traces],
)
# Every registered input kind's pages (`Report.kinds`), one per view, in registration order.
KIND_PAGES = Generated(
    "Traces", lambda report: [kind.page(v) for kind in report.kinds for v in report.of(kind)]
)
