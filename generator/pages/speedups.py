"""Speedups: one device against another on the configurations both measured (CPU against GPU
first of all, seed 004's tables), and each precision against fp32 on one device, each ratio
of two results' medians with the report's one ratio interval (`Interval.ratio`), a sentence of the range and a log-axis chart."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from generator.analysis.odd_ratios import Odd
from generator.analysis.speedups import (
    BASELINE_PRECISION,
    Speedup,
    SpeedupTable,
    device_speedups,
    precision_speedups,
    speedups_frame,
    summary,
    times,
)
from generator.formatting import seconds, slug
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render

PATH = f"{GENERATED_DIR}/speedups.md"
TITLE = "Speedups"


def table_title(table: SpeedupTable) -> str:
    if table.kind == "device":
        return f"{table.faster} against {table.slower}"
    return f"{table.faster} against {table.slower} on {table.device}"


def _label(row: Speedup, table: SpeedupTable) -> str:
    """A configuration in a chart's axis: what varies between the table's rows."""
    text = f"{row.model} ({row.dataset}) b{row.batch} {row.phase}"
    return f"{text} {row.precision}" if table.kind == "device" else text


def _rows(table: SpeedupTable) -> list[list[str]]:
    """Four columns (configuration, each side's median, the speedup): eight clipped the
    speedup off the page's column."""
    return [
        [f"{row.model} ({row.dataset}), batch {row.batch}, {row.phase}"
         + (f", {row.precision}" if table.kind == "device" else ""),
         row.slow.step.text(seconds), row.fast.step.text(seconds), times(row.ratio)]
        for row in table.rows
    ]  # fmt: skip


def _chart(table: SpeedupTable, book: ChartBook) -> Any:
    from generator.charts.comparisons import speedup_chart  # altair: import on use

    rows = [
        {"label": _label(r, table), "phase": r.phase, "speedup": r.ratio.value,
         "low": r.ratio.low, "high": r.ratio.high}
        for r in table.rows
    ]  # fmt: skip
    axis = f"speedup of {table.faster} over {table.slower} (×, log scale)"
    chart_id = f"speedup-{slug(table_title(table))}"
    return book.embed(speedup_chart(rows, table_title(table), axis), chart_id)


def _section(table: SpeedupTable, book: ChartBook, odd: Sequence[Odd]) -> dict[str, Any]:
    return {
        "title": table_title(table),
        "slower": table.slower,
        "faster": table.faster,
        "summary": summary(table, odd),
        "rows": _rows(table),
        "chart": _chart(table, book),
    }


def speedups_page(
    devices: list[SpeedupTable], precisions: list[SpeedupTable], odd: Sequence[Odd] = ()
) -> Page:
    book = ChartBook(PATH)
    markdown = render(
        "speedups.md.j2",
        title_yaml=front_matter_title(TITLE),
        title=TITLE,
        devices=[_section(t, book, odd) for t in devices],
        precisions=[_section(t, book, odd) for t in precisions],
        baseline=BASELINE_PRECISION,
    )
    return Page(
        PATH, TITLE, markdown, book.specs, {"speedups": speedups_frame(devices + precisions)}
    )


def _render(report: Report) -> list[Page]:
    return [
        speedups_page(
            device_speedups(report.results),
            precision_speedups(report.results),
            report.odd,
        )
    ]


PAGE = Generated("Measurements", _render)
