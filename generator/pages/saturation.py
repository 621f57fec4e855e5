"""Throughput against batch size per model, and each series' saturation point (seed 003
plotted it; seed 002 claims diminishing returns): analysis.saturation's rule, drawn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from generator.analysis.odd_ratios import BATCH, Odd
from generator.analysis.results import Result
from generator.analysis.saturation import (
    GAIN_PER_DOUBLING,
    MIN_BATCHES,
    PHASE_NAMES,
    Series,
    describe,
    gain_words,
    rate,
    signed_percent,
    throughput_series,
)
from generator.pages.page import Generated, Page
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render

PATH = f"{GENERATED_DIR}/saturation.md"
_STATUS = {"saturates": "saturates", "rising": "still rising", "undetermined": "undetermined"}


def _variant(series: Series) -> str:
    return f"{PHASE_NAMES.get(series.phase, series.phase)} ({series.dataset}, {series.precision})"


def _chart_rows(found: list[Series]) -> list[dict[str, Any]]:
    return [
        {"series": s.name, "model": s.model, "variant": _variant(s), "batch": p.batch,
         "throughput": p.throughput, "low": p.low, "high": p.high,
         "saturation": p.batch == s.point}
        for s in found
        for p in s.points
    ]  # fmt: skip


def points_frame(found: list[Series]) -> pl.DataFrame:
    """One row per point, with the step that leaves it (the download)."""
    rows = []
    for s in found:
        for i, p in enumerate(s.points):
            step = s.steps[i] if i < len(s.steps) else None
            rows.append(
                {"device": s.device, "model": s.model, "dataset": s.dataset, "phase": s.phase,
                 "precision": s.precision, "batch": p.batch, "workload": p.workload,
                 "throughput": p.throughput, "throughput_low": p.low, "throughput_high": p.high,
                 "next_batch": step.larger if step else None,
                 "gain_per_doubling": step.gain if step else None,
                 "gain_low": step.gain_low if step else None,
                 "gain_high": step.gain_high if step else None,
                 "gain_interval": step.ratio.kind if step else None,
                 "throughput_interval": p.rate.kind,
                 "step_call": step.call if step else None,
                 "series_status": s.status, "saturation_batch": s.point,
                 "saturation_earliest": s.earliest}
            )  # fmt: skip
    return pl.DataFrame(rows, infer_schema_length=None)


def _odd_step(series: Series, i: int, odd: Sequence[Odd]) -> Odd | None:
    """The step from the series' point `i` to the next, where the larger batch took less time
    per step than the smaller (a gain above +100 % per doubling), with its cause."""
    if i + 1 >= len(series.points):
        return None
    pair = {series.points[i].workload, series.points[i + 1].workload}
    return next(
        (o for o in odd if o.kind == BATCH and o.other is not None
         and {o.expected.workload, o.other.workload} == pair),
        None,
    )  # fmt: skip


def _table(found: list[Series], odd: Sequence[Odd]) -> list[list[str]]:
    rows = []
    for s in found:
        for i, p in enumerate(s.points):
            step = s.steps[i] if i < len(s.steps) else None
            gain = f"{gain_words(step)}: {step.call}" if step else ""
            if (against := _odd_step(s, i, odd)) is not None:
                gain += f"; the larger batch's step is shorter: {against.cause.kind}"
            mark = " ◯" if p.batch == s.point else ""
            rows.append(
                [s.device, s.name, f"{p.batch}{mark}",
                 p.rate.text(rate), gain,
                 _STATUS[s.status] if i == 0 else ""]
            )  # fmt: skip
    return rows


def saturation_page(
    runs: pl.DataFrame, results: Mapping[str, Result], odd: Sequence[Odd] = ()
) -> Page:
    from generator.charts.analyses import saturation_chart  # altair: import on use

    found = throughput_series(runs, results)
    book = ChartBook(PATH)
    devices = []
    for device in dict.fromkeys(s.device for s in found):
        mine = [s for s in found if s.device == device]
        slug = "".join(c if c.isalnum() else "-" for c in device.lower()).strip("-")
        chart = book.embed(
            saturation_chart(_chart_rows(mine), f"Throughput against batch on {device}"),
            f"saturation-{slug}",
        )
        against = [o.sentence() for s in mine for i in range(len(s.steps))
                   if (o := _odd_step(s, i, odd)) is not None]  # fmt: skip
        sentences = [describe(s) for s in mine] + [
            "Against the expected direction (a larger batch's step takes no less time than a "
            f"smaller one's: throughput gains at most +100 % per doubling): {text}"
            for text in against
        ]
        devices.append({"name": device, "chart": chart, "sentences": sentences})
    counts = {status: sum(s.status == status for s in found) for status in _STATUS}
    markdown = render(
        "saturation.md.j2",
        title=front_matter_title("Throughput against batch"),
        threshold=signed_percent(GAIN_PER_DOUBLING),
        min_batches=MIN_BATCHES,
        devices=devices,
        counts=counts,
        series=len(found),
        rows=_table(found, odd),
    )
    return Page(
        PATH,
        "Throughput against batch",
        markdown,
        book.specs,
        {"throughput-by-batch": points_frame(found)},
    )


PAGE = Generated(
    "Experiments", lambda report: [saturation_page(report.runs, report.results, report.odd)]
)
