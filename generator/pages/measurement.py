"""A kernel page per ncu export (imported, or measured here with `--ncu`) and their index."""

from __future__ import annotations

from generator.analysis import hierarchy
from generator.analysis.bound_words import bound_cell
from generator.analysis.kernel_names import name_says
from generator.analysis.kernels import counted_share, family_shares
from generator.analysis.step_verdict import TIME_BASES
from generator.analysis.view_verdicts import export_verdict
from generator.analysis.views import MeasurementView
from generator.charts.captions import roofline_caption
from generator.formatting import number, percent, seconds, short_name, si
from generator.pages.counts import ncu_text
from generator.pages.data import measurement_frames, steps_frame
from generator.pages.device_line import device_line
from generator.pages.finding_html import admonitions
from generator.pages.page import Generated, Page
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, one_line, render

TOP_KERNELS = 15


def _totals_rows(view: MeasurementView) -> list[tuple[str, str]]:
    step, bound = view.step, view.bound
    placed, kernels, share = counted_share(view.kernels)
    rows = [
        ("kernels", str(step.kernels)),
        (
            "kernels with counted FLOPs and bytes (on the roofline)",
            f"{placed} of {kernels}"
            + (f", {percent(100 * share)} of the kernel time" if share is not None else ""),
        ),
        ("FLOPs", si(step.flops, "FLOP")),
        *((f"FLOPs, {p}", si(v, "FLOP")) for p, v in step.flops_by_precision.items()),
        ("DRAM bytes", si(step.dram_bytes, "B")),
        ("L2 bytes", si(step.l2_bytes, "B")),
        ("L1 bytes", si(step.l1_bytes, "B")),
        ("time (sum of kernels)", seconds(step.time_s)),
        ("attained", si(step.attained_flops_per_s, "FLOP/s")),
        ("arithmetic intensity (DRAM)", f"{number(step.arithmetic_intensity)} FLOP/byte"),
        ("SM % (time-weighted)", percent(step.sm_pct)),
        ("DRAM % (time-weighted)", percent(step.dram_pct)),
    ]
    if view.tensor is not None and view.tensor.estimate_flops is not None:
        rows.append(
            (
                "tensor FLOPs, uncounted (estimate, not in FLOPs above)",
                f"{si(view.tensor.estimate_flops, 'FLOP')} ({view.tensor.estimate_label})",
            )
        )
    if view.analytic is not None:
        forward = view.ranges.get("forward")
        a = view.analytic
        rows += [
            (
                f"analytic forward FLOPs ({a['model']}, {a['dataset']}, batch {a['batch']})",
                si(a["forward_flops"], "FLOP"),
            ),
            ("counted FLOPs in the forward range", si(forward.flops if forward else None, "FLOP")),
            (
                "analytic step FLOPs (forward, loss, backward, SGD update)",
                si(a["step_flops"], "FLOP"),
            ),
        ]
    if bound is not None:
        rows += [
            ("roof precision", bound.precision),
            ("peak", si(bound.peak_flops_per_s, "FLOP/s")),
            ("bandwidth", si(bound.bandwidth_bytes_per_s, "B/s")),
            ("ridge point", f"{number(bound.ridge_ai)} FLOP/byte"),
            ("bound", bound_cell(bound.bound, bound.efficiency)),
            ("roof at this AI", si(bound.roof_flops_per_s, "FLOP/s")),
            ("efficiency (attained / roof)", percent(100 * bound.efficiency)),
        ]
    return rows


def _range_rows(view: MeasurementView) -> list[list[str]]:
    total_time = view.step.time_s
    rows = []
    for name, t in view.ranges.items():
        share = (
            percent(100 * t.time_s / total_time) if t.time_s is not None and total_time else "n/a"
        )
        rows.append(
            [
                name,
                str(t.kernels),
                si(t.flops, "FLOP"),
                si(t.dram_bytes, "B"),
                seconds(t.time_s),
                share,
                number(t.arithmetic_intensity),
                si(t.attained_flops_per_s, "FLOP/s"),
                percent(t.sm_pct),
                percent(t.dram_pct),
            ]
        )
    return rows


# Innermost NVTX range of a phase → the analytic count of that phase (complexity totals).
PHASE_ANALYTIC = {
    "forward": "forward_flops",
    "loss": "loss_flops",
    "backward": "backward_flops",
    "optimizer_step": "optimizer_flops",
}


def _phase_check_rows(view: MeasurementView) -> list[list[str]]:
    """Counted against analytic FLOPs for each range named after a phase."""
    if view.analytic is None:
        return []
    rows = []
    for name, t in view.ranges.items():
        analytic = view.analytic.get(PHASE_ANALYTIC.get(name, ""))
        if analytic is None:
            continue
        rows.append(
            [
                name,
                str(t.kernels),
                si(t.flops, "FLOP"),
                si(analytic, "FLOP"),
                number(t.flops / analytic, 3) if t.flops is not None and analytic else "n/a",
                percent(100 * t.tensor_flops / t.flops) if t.flops else "n/a",
            ]
        )
    return rows


def _kernel_rows(view: MeasurementView) -> list[list[str]]:
    top = view.kernels.sort("time_s", descending=True, nulls_last=True).head(TOP_KERNELS)
    return [
        [
            str(k["kernel_id"]),
            k["kernel_name"] or "",
            short_name(k["kernel_name"], 90),
            name_says(k["kernel_name"]),
            k["nvtx_range"] or "(no range)",
            seconds(k["time_s"]),
            si(k["flops"], "FLOP"),
            si(k["dram_total_bytes"], "B"),
            number(k["arithmetic_intensity"]),
            si(k["attained_flops_per_s"], "FLOP/s"),
        ]
        for k in top.iter_rows(named=True)
    ]


def _warnings(view: MeasurementView) -> list[dict[str, str]]:
    """What findings do not cover (missing metrics are the missing-metric finding)."""
    found = []
    if view.match.device is None:
        found.append({"title": "No device", "text": view.match.note or "no catalog device"})
    return found


def _chart_caption(view: MeasurementView) -> str:
    drawable, kernels, share = counted_share(view.kernels)
    device = view.match.device
    return roofline_caption(drawable, kernels - drawable, device.name if device else None, share)


def _family_rows(view: MeasurementView) -> list[list[str]]:
    return [
        [
            row["family"],
            str(row["kernels"]),
            seconds(row["time_s"]),
            percent(row["time_pct"]),
            si(row["flops"], "FLOP"),
            si(row["dram_bytes"], "B"),
        ]
        for row in family_shares(view.kernels).to_dicts()
    ]


def _family_range_rows(view: MeasurementView) -> list[list[str]]:
    if view.kernels["nvtx_range"].null_count() == view.kernels.height:
        return []
    return [
        [
            row["nvtx_range"],
            row["family"],
            str(row["kernels"]),
            seconds(row["time_s"]),
            percent(row["time_pct"]),
        ]
        for row in family_shares(view.kernels, by_range=True).to_dicts()
    ]


def measurement_page(view: MeasurementView) -> Page:
    device = view.match.device
    verdict = export_verdict(view)
    path = f"{GENERATED_DIR}/{view.slug}.md"
    charts = ChartBook(path)
    levels = hierarchy.levels(view)  # None: the export has no L1/L2 bytes
    hierarchy_html = None
    if levels is not None:
        from generator.charts.hierarchical import hierarchical_chart  # altair: import on use

        hierarchy_html = {
            "summary": hierarchy.summary(levels),
            "rows": hierarchy.step_rows(levels),
            "chart": charts.embed(
                hierarchical_chart(levels, f"{view.title}: L1, L2 and DRAM"),
                f"hierarchical-{view.slug}",
            ),
        }
    markdown = render(
        "measurement.md.j2",
        title=view.title,
        title_yaml=front_matter_title(view.title),
        origin=view.origin,
        citation=one_line(view.citation),
        device_line=device_line(view.match),
        verdict=verdict.words() if verdict else None,
        basis=verdict.basis() if verdict else None,
        basis_note=TIME_BASES[verdict.time_basis] if verdict else None,
        run_page=f"runs/{view.slug.removeprefix('run-')}.md"
        if view.slug.startswith("run-")
        else None,
        model=view.model,
        workload=one_line(view.workload),
        batch=view.batch if view.batch is not None else "n/a",
        phase=view.phase,
        precision=view.precision,
        notes=one_line(view.notes),
        ingest_notes=[one_line(n) for n in view.ingest_notes],
        license=one_line(view.license),
        warnings=_warnings(view),
        findings_html=admonitions(view.findings),
        totals_rows=_totals_rows(view),
        chart_html=charts.embed(view.chart, f"roofline-{view.slug}"),
        chart_caption=_chart_caption(view),
        hierarchy=hierarchy_html,
        range_rows=_range_rows(view),
        phase_check_rows=_phase_check_rows(view),
        family_rows=_family_rows(view),
        family_range_rows=_family_range_rows(view),
        top_count=min(TOP_KERNELS, view.kernels.height),
        kernel_rows=_kernel_rows(view),
        csv_path=view.csv_path,
        device_id=device.id if device else "NAME",
    )
    return Page(
        path,
        view.title,
        markdown,
        charts.specs,
        measurement_frames(view),
        # A run profiled with --ncu is reached from the index and its run page, not the nav.
        in_nav=not view.slug.startswith("run-"),
    )


def measurements_index(views: list[MeasurementView]) -> Page:
    rows = []
    for view in views:
        rows.append(
            {
                "href": f"{view.slug}/",
                "title": view.title,
                "cells": [
                    view.match.device.name if view.match.device else "unknown",
                    str(view.step.kernels),
                    si(view.step.flops, "FLOP"),
                    si(view.step.dram_bytes, "B"),
                    seconds(view.step.time_s),
                    number(view.step.arithmetic_intensity),
                    si(view.step.attained_flops_per_s, "FLOP/s"),
                    bound_cell(view.bound.bound, view.bound.efficiency) if view.bound else "n/a",
                ],
            }
        )
    return Page(
        f"{GENERATED_DIR}/index.md",
        "Kernels",
        render("measurements_index.md.j2", rows=rows, counts=ncu_text(views)),
        tables={"steps": steps_frame(views)},
    )


INDEX = Generated("Kernels", lambda report: [measurements_index(report.views)])
PAGE = Generated(
    "Kernels",
    lambda report: [
        report.measurement_pages.get(v.slug) or measurement_page(v) for v in report.views
    ],
)
