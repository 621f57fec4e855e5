"""The Device choice page: each measured workload's roofline-bound step time on every
catalog device, next to what was measured, with cost where the catalog cites a price."""

from __future__ import annotations

from typing import Any

import polars as pl

from generator.analysis.device_choice import Workload, device_table
from generator.catalog import Device
from generator.formatting import number, seconds
from generator.pages.page import Generated, Page
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render


def _usd(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"${value:.3g}" if value < 1 else f"${value:,.2f}"


def _summary_rows(items: list[Workload], table: pl.DataFrame) -> list[list[str]]:
    rows = []
    for w in items:
        mine = table.filter((pl.col("workload") == w.label) & pl.col("bound_s").is_not_null())
        best = mine.sort("bound_s").row(0, named=True) if not mine.is_empty() else None
        gap = (
            f"{number(w.measured_s / w.measured_bound_s, 3)}×"
            if w.measured_s and w.measured_bound_s
            else "n/a"
        )
        rows.append(
            [
                w.label + (f" ({w.caveat})" if w.caveat else ""),
                w.how,
                w.measured_device,
                seconds(w.measured_s),
                seconds(w.measured_bound_s),
                gap,
                f"{best['device']}: {seconds(best['bound_s'])} ({best['limited_by']})"
                if best
                else "n/a",
            ]
        )
    return rows


def _cost_rows(items: list[Workload], table: pl.DataFrame) -> list[list[str]]:
    priced = table.filter(pl.col("cost_low_usd_per_step").is_not_null())
    rows = []
    for row in priced.to_dicts():
        steps = row["steps_per_epoch"]
        epoch = (
            f"{_usd(row['cost_low_usd_per_step'] * steps)} – {_usd(row['cost_high_usd_per_step'] * steps)}"
            if steps
            else "n/a (not a training step)"
        )
        rows.append(
            [
                row["workload"],
                row["device"],
                seconds(row["bound_s"]),
                f"{_usd(row['cost_low_usd_per_step'])} – {_usd(row['cost_high_usd_per_step'])}",
                str(steps) if steps else "n/a",
                epoch,
            ]
        )
    return rows


def device_choice_page(items: list[Workload], devices: tuple[Device, ...]) -> Page:
    """The page, with its full table (workload × device) offered as data."""
    from generator.charts import bound_heatmap  # altair: import on use

    table = device_table(items, devices)
    cells: list[dict[str, Any]] = [
        {
            "workload": r["workload"],
            "device": r["device"],
            "bound_s": r["bound_s"],
            "limited_by": r["limited_by"],
            "mark": (r["limited_by"] or "?")[0],
        }
        for r in table.filter(pl.col("bound_s").is_not_null()).to_dicts()
    ]
    priced = [d for d in devices if d.price_usd_per_hour]
    path = f"{GENERATED_DIR}/device-choice.md"
    book = ChartBook(path)
    markdown = render(
        "device_choice.md.j2",
        title=front_matter_title("Device choice"),
        summary=_summary_rows(items, table),
        chart=book.embed(bound_heatmap(cells), "device-bound-heatmap"),
        costs=_cost_rows(items, table),
        priced=[(d.name, d.price_usd_per_hour, d.price_source) for d in priced],
        missing=[d.name for d in devices if not any(c["device"] == d.name for c in cells)],
    )
    return Page(
        path,
        "Device choice",
        markdown,
        book.specs,
        {"bound-per-device": table},
    )


PAGE = Generated(None, lambda report: [device_choice_page(report.workloads, report.catalog)])
