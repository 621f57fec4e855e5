"""The Seed rooflines page: every roofline figure of the seed reports redrawn under the right
roofs with the seed's own published points (analysis/seed_rooflines.py and
analysis/seed_003_rooflines.py), each chart with one sentence on what changes against the
seed's figure, its points and roofs in a table, and both as a download."""

from __future__ import annotations

from typing import Any

import polars as pl

from generator.analysis.seed_003_rooflines import (
    batch_one_workloads,
    seed_003_devices,
    seed_003_measured,
    seed_003_models,
)
from generator.analysis.seed_inputs import counts_by_workload
from generator.analysis.seed_rooflines import (
    SEED_ROOF,
    DrawnRoof,
    Redrawn,
    differs,
    seed_000_appendix,
    seed_001_figure,
)
from generator.catalog import Device
from generator.charts.vega import VegaSpec
from generator.formatting import number, si
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render
from generator.records.peaks import PEAK_LABELS

PATH = f"{GENERATED_DIR}/seed-rooflines.md"
TITLE = "Seed rooflines, redrawn"
# a figure's kinds of point, in order, when it has several (the batch sizes of Fig. 7)
MARKERS = ("circle", "square", "diamond", "triangle-up", "cross", "triangle-down")
SEED_DASH = (2, 3)  # the seed's own roof, where the work does not run under it
OPEN_ROWS = 12  # a figure with more points folds its table


def figures(report: Report) -> list[Redrawn]:
    """The seed figures this report can redraw, in the seeds' order."""
    counts = counts_by_workload(report.complexity.frames.get("seed_workloads.csv"), report.runs)
    found = (
        seed_000_appendix(report.replications, report.catalog),
        seed_001_figure(report.replications, report.catalog),
        seed_003_devices(report.replications, report.catalog),
        seed_003_models(
            report.replications, report.catalog, counts, batch_one_workloads(report.runs)
        ),
        seed_003_measured(report.results, report.points),
    )
    return [f for f in found if f is not None]


def chart(figure: Redrawn, catalog: tuple[Device, ...]) -> VegaSpec:
    """The figure's roofs and points: roofs alone as the Hardware page draws the catalog's
    (`multi_device_roofline`), roofs with points as the Overview draws every step
    (`overview_roofline`), the seed's roof dotted."""
    from generator.charts import multi_device_roofline, overview_roofline  # altair: on use
    from generator.charts.device_roofs import SOURCE_DASHES

    title = f"Seed {figure.seed}, {figure.where}, redrawn"
    if not figure.points:
        by_name = {d.name: d for d in catalog}
        devices = [by_name[d.roof.device] for d in figure.roofs if d.roof.device in by_name]
        keys = {by_name[d.roof.device].id: d.roof.precision for d in figure.roofs}
        return multi_device_roofline(devices, figure.roofs[0].roof.precision, title, keys)
    points = [
        {"device": p.device, "label": p.label, "kind": p.kind, "ai": p.ai, "attained": p.attained}
        for p in figure.points
    ]
    roofs = [
        {"device": d.roof.device, "label": d.roof.label, "source": d.source,
         "precision": PEAK_LABELS[d.roof.precision], "peak": d.roof.peak_flops_per_s,
         "bandwidth": d.roof.bandwidth_bytes_per_s}
        for d in figure.roofs
    ]  # fmt: skip
    kinds = list(dict.fromkeys(p.kind for p in figure.points))
    shapes = dict(zip(kinds, MARKERS, strict=False)) if len(kinds) > 1 else None
    dashes = {**SOURCE_DASHES, SEED_ROOF: SEED_DASH}
    return overview_roofline(points, roofs, title, dashes, shapes)


def points_frame(figure: Redrawn) -> pl.DataFrame:
    """A figure's points (base units), each with the roof it sits under; its roofs where it
    has no point."""
    if not figure.points:
        return roofs_frame(figure)
    roofs = {d.roof.device: d.roof for d in figure.roofs if d.source != SEED_ROOF}
    rows = [
        {"label": p.label, "seed_rows": ", ".join(p.rows) or None, "configuration": p.what,
         "device": p.device, "kind": p.kind, "ai_flop_per_byte": p.ai,
         "attained_flop_per_s": p.attained, "roof": roofs[p.device].label,
         "roof_peak_flop_per_s": roofs[p.device].peak_flops_per_s,
         "roof_bandwidth_byte_per_s": roofs[p.device].bandwidth_bytes_per_s,
         "ridge_flop_per_byte": roofs[p.device].ridge_ai, "side": p.side, "note": p.note or None}
        for p in figure.points
    ]  # fmt: skip
    return pl.DataFrame(rows, infer_schema_length=None)


def roofs_frame(figure: Redrawn) -> pl.DataFrame:
    """A figure's roofs (base units), the seed's own values beside them where it gave them."""
    rows = [
        {"device": d.roof.device, "precision": d.roof.precision, "source": d.source,
         "peak_flop_per_s": d.roof.peak_flops_per_s,
         "bandwidth_byte_per_s": d.roof.bandwidth_bytes_per_s,
         "ridge_flop_per_byte": d.roof.ridge_ai, "seed_peak_flop_per_s": d.seed_peak,
         "seed_bandwidth_byte_per_s": d.seed_bandwidth, "seed_ridge_flop_per_byte": d.seed_ridge,
         "seed_rows": ", ".join(d.rows) or None}
        for d in figure.roofs
    ]  # fmt: skip
    return pl.DataFrame(rows, infer_schema_length=None)


def _seed_values(drawn: DrawnRoof) -> str:
    """The seed's own peak, bandwidth and ridge where they differ from the roof's."""
    ridge, bandwidth = drawn.seed_ridge, drawn.seed_bandwidth
    if drawn.seed_peak is None or ridge is None:
        return f"no such peak; bandwidth {si(bandwidth, 'B/s')}" if bandwidth else "not printed"
    if not differs(ridge, drawn.roof.ridge_ai):
        return "the same"
    over = bandwidth or drawn.roof.bandwidth_bytes_per_s
    return f"{si(drawn.seed_peak, 'FLOP/s')}, {si(over, 'B/s')}, ridge {number(ridge, 3)}"


def _context(figure: Redrawn, book: ChartBook, report: Report) -> dict[str, Any]:
    reference = report.references.get(figure.seed)
    roofs = [
        {"name": f"{d.roof.device} · {PEAK_LABELS[d.roof.precision]} ({d.source})",
         "peak": si(d.roof.peak_flops_per_s, "FLOP/s"),
         "bandwidth": si(d.roof.bandwidth_bytes_per_s, "B/s"),
         "ridge": number(d.roof.ridge_ai, 3),
         "seed": _seed_values(d),
         "rows": ", ".join(d.rows)}
        for d in figure.roofs
    ]  # fmt: skip
    points = [
        {"label": p.label, "rows": ", ".join(p.rows), "what": p.what, "device": p.device,
         "ai": number(p.ai, 4), "attained": si(p.attained, "FLOP/s"), "side": p.side,
         "note": p.note}
        for p in figure.points
    ]  # fmt: skip
    return {
        "key": figure.key,
        "seed": figure.seed,
        "where": figure.where,
        "title": figure.title,
        "citation": reference.bibliographic if reference else "",
        "sentence": figure.sentence,
        "chart": book.embed(chart(figure, report.catalog), f"{figure.key}-roofline"),
        "roofs": roofs,
        "points": points,
        "folded": len(points) > OPEN_ROWS,
    }


def seed_rooflines_page(report: Report) -> Page | None:
    found = figures(report)
    if not found:
        return None
    book = ChartBook(PATH)
    markdown = render(
        "seed_rooflines.md.j2",
        title_yaml=front_matter_title(TITLE),
        title=TITLE,
        figures=[_context(f, book, report) for f in found],
    )
    tables = {f.key: points_frame(f) for f in found}
    return Page(PATH, TITLE, markdown, book.specs, tables)


def _render(report: Report) -> list[Page]:
    page = seed_rooflines_page(report)
    return [page] if page else []


PAGE = Generated("Results", _render)
