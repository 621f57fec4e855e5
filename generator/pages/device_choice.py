"""The Device choice page: the fastest each measured workload's step could run on every catalog
device (the larger of its roofline floor and its launch floor), next to what was measured,
with cost per 1,000 steps and per epoch where the catalog cites a price."""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from generator.analysis.device_choice import (
    EPOCH_NAMES,
    LAUNCH,
    LAUNCH_LATENCY_S,
    LAUNCH_LATENCY_SOURCE,
    Workload,
    device_table,
    launch_calls_measured,
    measured_floor,
    with_launch_counts,
)
from generator.catalog import Device
from generator.formatting import number, seconds, si
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render

SMALLEST_DOLLARS = 1e-6  # below a millionth of a dollar the amount is written as "under"


def dollars(value: float | None) -> str:
    """Ordinary dollars: two significant figures below $1 ("$0.0079"), cents above
    ("$1,234.57"); never an exponent."""
    if value is None or math.isnan(value):
        return "n/a"
    if value >= 1:
        return f"${value:,.2f}"
    if value < SMALLEST_DOLLARS:
        return "under $0.000001" if value > 0 else "$0"
    decimals = 1 - math.floor(math.log10(value))
    return f"${value:.{decimals}f}"


def dollar_range(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "n/a"
    return dollars(low) if dollars(low) == dollars(high) else f"{dollars(low)} – {dollars(high)}"


def price_link(source: str) -> tuple[str, str]:
    """(URL, what it is) of a catalog price_source: "URL (note)" or a bare URL."""
    url, _, note = source.strip().partition(" ")
    return url, note.strip().removeprefix("(").removesuffix(")") or url


def _floor_words(seconds_: float | None, limit: str | None) -> str:
    return "n/a" if seconds_ is None else f"{seconds(seconds_)} ({limit})"


def _summary_rows(items: list[Workload], table: pl.DataFrame, gpus: list[str]) -> list[list[str]]:
    """One row per workload; the fastest floor among the catalog's GPUs, the devices whose
    floor counts launches (a CPU's counts none, so a tiny step would look fastest there)."""
    # equal launch floors tie: the device with the lowest roofline floor under it wins
    fastest: dict[str, dict[str, Any]] = {}
    on_gpus = table.filter(pl.col("bound_s").is_not_null() & pl.col("device_id").is_in(gpus))
    for row in on_gpus.sort("bound_s", "roofline_s", "device").to_dicts():
        fastest.setdefault(row["workload"], row)
    rows = []
    for w in items:
        best = fastest.get(w.label)
        there, limit = measured_floor(w)
        gap = f"{number(w.measured_s / there, 3)}×" if w.measured_s and there else "n/a"
        kernels = (
            f"{number(w.kernels, 4)} ({w.kernels_how})" if w.kernels else "n/a (no GPU profile)"
        )
        rows.append(
            [
                w.label
                + (f" ({w.caveat})" if w.caveat else "")
                + (
                    f" and {w.runs - 1:,} more run{'s' if w.runs > 2 else ''} of this workload"
                    if w.runs > 1
                    else ""
                ),
                w.how,
                w.measured_device,
                seconds(w.measured_s),
                _floor_words(there, limit),
                gap,
                kernels,
                f"{best['device']}: {_floor_words(best['bound_s'], best['limited_by'])}"
                if best
                else "n/a",
            ]
        )
    return rows


def _cost_rows(table: pl.DataFrame) -> list[list[str]]:
    priced = table.filter(pl.col("usd_per_1000_steps_low").is_not_null())
    rows = []
    for row in priced.to_dicts():
        steps = row["steps_per_epoch"]
        epoch = (
            f"{steps:,} steps ({row['epoch']})"
            if steps
            else "n/a (not a training step, or no training-set size for its dataset)"
        )
        rows.append(
            [
                row["workload"],
                row["device"],
                _floor_words(row["bound_s"], row["limited_by"]),
                dollar_range(row["usd_per_1000_steps_low"], row["usd_per_1000_steps_high"]),
                epoch,
                dollar_range(row["usd_per_epoch_low"], row["usd_per_epoch_high"])
                if steps
                else "n/a",
            ]
        )
    return rows


def device_choice_page(
    items: list[Workload],
    devices: tuple[Device, ...],
    launch_calls: tuple[float, int] | None = None,
) -> Page:
    """The page, with its full table (workload × device) offered as data. launch_calls: the
    median host time of a launch call in the traces here (µs) and how many were timed."""
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
        latency=si(LAUNCH_LATENCY_S, "s"),
        latency_source=LAUNCH_LATENCY_SOURCE,
        launch_calls=None
        if launch_calls is None
        else (si(launch_calls[0] * 1e-6, "s"), f"{launch_calls[1]:,}"),
        launch=LAUNCH,
        summary=_summary_rows(items, table, [d.id for d in devices if d.kind == "gpu"]),
        chart=book.embed(bound_heatmap(cells), "device-bound-heatmap"),
        costs=_cost_rows(table),
        epochs=sorted(EPOCH_NAMES.values()),
        priced=[
            (
                d.name,
                dollars(d.price_usd_per_hour[0]),
                dollars(d.price_usd_per_hour[1]),
                *price_link(d.price_source),
            )
            for d in priced
            if d.price_usd_per_hour
        ],
        missing=[d.name for d in devices if not any(c["device"] == d.name for c in cells)],
    )
    return Page(
        path,
        "Device choice",
        markdown,
        book.specs,
        {"bound-per-device": table},
    )


def _render(report: Report) -> list[Page]:
    items = with_launch_counts(report.workloads, report.traces, report.runs)
    return [device_choice_page(items, report.catalog, launch_calls_measured(report.traces))]


PAGE = Generated(None, _render)
