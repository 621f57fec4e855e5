"""Latency against analytic FLOPs and parameters (seed 003's Spearman matrix): per set of
runs on one device, phase, precision and batch, the points, ρ with its bootstrap interval, a
log-log chart and a sentence of what the interval supports."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from generator.analysis.bootstrap import MIN_INTERVAL_POINTS, MIN_POINTS, RESAMPLES, SEED, Interval
from generator.analysis.latency_correlation import (
    QUANTITIES,
    LatencySet,
    latency_sets,
    points_frame,
    rho_frame,
    sentence,
    set_title,
)
from generator.analysis.latency_matrix import VARIABLES, LatencyMatrix, latency_matrices
from generator.analysis.results import Result
from generator.formatting import si, slug
from generator.memo import remembered
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render
from generator.pages.run_text import step_text

PATH = f"{GENERATED_DIR}/latency-correlation.md"
TITLE = "Latency against FLOPs and parameters"


def _slug(found: LatencySet) -> str:
    return slug(f"{found.device_label}-{found.phase}-{found.precision}-b{found.batch}")


def rho_cell(value: Interval | None, over: str = "models") -> str:
    """'0.89 [0.61, 0.98]'; without an interval, why."""
    if value is None:
        return "n/a"
    if value.resamples == 0:
        return f"{value.value:.2f} (too few {over} for an interval)"
    if value.used == 0 or math.isnan(value.low):
        return f"{value.value:.2f} (no usable resample)"
    return f"{value.value:.2f} [{value.low:.2f}, {value.high:.2f}] (bootstrap over {over})"


def _used(found: LatencySet) -> str:
    used = {f"{v.used} / {v.resamples}" for v in found.rho.values() if v and v.resamples}
    return ", ".join(sorted(used)) or f"no interval (under {MIN_INTERVAL_POINTS} models)"


def _summary(sets: list[LatencySet]) -> list[list[str]]:
    return [
        [set_title(s), str(s.points.height), rho_cell(s.rho["modelled_flops"]),
         rho_cell(s.rho["params"]), _used(s)]
        for s in sets
    ]  # fmt: skip


def _latency(result: Result | None) -> str:
    return step_text(result.step) if result else "n/a"


def _point_rows(found: LatencySet, results: Mapping[str, Result]) -> list[list[str]]:
    """Each model's latency: its configuration's one result, with its interval's kind."""
    return [
        [row["label"], row["dataset"], _latency(results.get(row["workload"])),
         si(row["modelled_flops"], "FLOP"), si(row["params"], "")]
        for row in found.points.to_dicts()
    ]  # fmt: skip


def _chart_rows(found: LatencySet) -> list[dict[str, Any]]:
    columns = ("label", "model", "median_s", "ci_low_s", "ci_high_s", "modelled_flops", "params")
    return [{c: row[c] for c in columns} for row in found.points.to_dicts()]


# seed 003's two numbers of its matrix (measurements/literature/seeds.csv) -> the pair they rank
CONFIGS = "configurations"  # what the matrix's bootstrap resamples
SEED_RHO = {"003-corr-cpu-gpu": ("cpu_s", "gpu_s"), "003-corr-params": ("cpu_s", "params")}


def _matrix(found: LatencyMatrix, seed_rho: Mapping[str, float]) -> dict[str, Any]:
    """The matrix as rows of cells (upper triangle), and seed 003's numbers beside ours."""
    names = list(VARIABLES)
    rows = [
        [VARIABLES[a]]
        + [rho_cell(found.rho[(a, b)], CONFIGS) if i < j else "" for j, b in enumerate(names)]
        for i, a in enumerate(names)
        if i < len(names) - 1
    ]
    beside = [
        {"pair": f"{VARIABLES[a]} against {VARIABLES[b]}", "ours": rho_cell(found.rho[(a, b)], CONFIGS),
         "seed": f"{seed_rho[row]:.2f}", "row": row}
        for row, (a, b) in SEED_RHO.items()
        if row in seed_rho
    ]  # fmt: skip
    return {
        "cpu": found.cpu_label,
        "gpu": found.gpu_label,
        "batches": ", ".join(str(b) for b in found.batches),
        "points": found.points.height,
        "models": found.models,
        "columns": [VARIABLES[b] for b in names[1:]],
        "rows": [[row[0], *row[2:]] for row in rows],
        "beside": beside,
    }


def latency_page(
    sets: list[LatencySet],
    results: Mapping[str, Result],
    seed_rho: Mapping[str, float] | None = None,
) -> Page:
    from generator.charts.comparisons import latency_scatter  # altair: import on use

    book = ChartBook(PATH)
    sections = [
        {
            "title": set_title(s),
            "sentences": [sentence(s, quantity) for quantity in QUANTITIES],
            "rows": _point_rows(s, results),
            "chart": book.embed(
                # a set the new run is not in keeps its chart (generator/memo)
                remembered(
                    "latency_scatter",
                    latency_scatter,
                    _chart_rows(s),
                    f"{set_title(s)}: latency against work",
                ),
                f"latency-{_slug(s)}",
            ),
        }
        for s in sets
    ]
    markdown = render(
        "latency_correlation.md.j2",
        title_yaml=front_matter_title(TITLE),
        title=TITLE,
        summary=_summary(sets),
        matrices=[_matrix(m, seed_rho or {}) for m in latency_matrices(sets)],
        sections=sections,
        resamples=RESAMPLES,
        seed=SEED,
        min_points=MIN_POINTS,
        min_interval=MIN_INTERVAL_POINTS,
    )
    return Page(
        PATH,
        TITLE,
        markdown,
        book.specs,
        {"latency-points": points_frame(sets), "spearman": rho_frame(sets)},
    )


def _render(report: Report) -> list[Page]:
    seed_rho = {r.row.id: r.row.published for r in report.replications if r.row.id in SEED_RHO}
    return [latency_page(latency_sets(report.runs, report.results), report.results, seed_rho)]


PAGE = Generated("Measurements", _render)
