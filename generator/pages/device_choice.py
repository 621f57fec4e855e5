"""The Device choice pages: the fastest each measured workload's step could run on every
catalog device (the larger of its roofline floor and its launch floor), next to what was
measured, with cost per 1,000 steps and per epoch where the catalog cites a price.

One page for all of them was 44,000 px tall, so the hub (in the nav) explains the floors and
links one page per experiment group, published exports and traces first; each part page
holds at most WORKLOADS_PER_PAGE workloads (a larger group continues on further pages). The
hub offers the whole workload × device table as data, each part its own rows."""

from __future__ import annotations

import math
import posixpath
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
from generator.memo import remembered
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render

SMALLEST_DOLLARS = 1e-6  # below a millionth of a dollar the amount is written as "under"
HUB_PATH = f"{GENERATED_DIR}/device-choice.md"
PART_DIR = f"{GENERATED_DIR}/device-choice"  # one page per group (out of the nav)
WORKLOADS_PER_PAGE = 30  # the largest group here (H, 30 workloads) stays on one page
PUBLISHED = "published"  # the part of the workloads that no run of this report measured


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


def _cost_rows(items: list[Workload], table: pl.DataFrame, priced: list[str]) -> list[list[str]]:
    """One row per workload, one column per priced device (catalog names): the floor there
    and what it costs per 1,000 steps and per epoch."""
    cells = {(r["workload"], r["device"]): r for r in table.to_dicts()}
    rows = []
    for w in items:
        first = cells.get((w.label, priced[0])) if priced else None
        steps = first["steps_per_epoch"] if first else None
        epoch = (
            f"{steps:,} steps ({first['epoch']})"
            if steps and first
            else "n/a (not a training step, or no training-set size for its dataset)"
        )
        rows.append([w.label, epoch, *(_cost_cell(cells.get((w.label, d))) for d in priced)])
    return rows


def _cost_cell(row: dict[str, Any] | None) -> str:
    if row is None or row["bound_s"] is None or row["usd_per_1000_steps_low"] is None:
        return "n/a (no floor: no datasheet peak for the precision)"
    cost = dollar_range(row["usd_per_1000_steps_low"], row["usd_per_1000_steps_high"])
    text = (
        f"datasheet floor {_floor_words(row['bound_s'], row['limited_by'])}: {cost} per 1,000 steps"
    )
    if row["steps_per_epoch"]:
        text += f"; {dollar_range(row['usd_per_epoch_low'], row['usd_per_epoch_high'])} per epoch"
    return text


def _priced(devices: tuple[Device, ...]) -> list[tuple[str, str, str, str, str]]:
    return [
        (
            d.name,
            dollars(d.price_usd_per_hour[0]),
            dollars(d.price_usd_per_hour[1]),
            *price_link(d.price_source),
        )
        for d in devices
        if d.price_usd_per_hour
    ]


def part_page(
    path: str,
    title: str,
    items: list[Workload],
    devices: tuple[Device, ...],
) -> Page:
    """One group's workloads: what was measured, the floor on every device, the cost."""
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
    book = ChartBook(path)
    slug = posixpath.basename(path).removesuffix(".md")
    priced = _priced(devices)
    markdown = render(
        "device_choice_part.md.j2",
        title=front_matter_title(title),
        heading=title,
        hub=posixpath.relpath(HUB_PATH, posixpath.dirname(path)),
        launch=LAUNCH,
        summary=_summary_rows(items, table, [d.id for d in devices if d.kind == "gpu"]),
        chart=book.embed(bound_heatmap(cells), f"device-bound-heatmap-{slug}"),
        priced=priced,
        priced_names=[name for name, *_ in priced],
        costs=_cost_rows(items, table, [name for name, *_ in priced]),
        epochs=sorted(EPOCH_NAMES.values()),
        missing=[d.name for d in devices if not any(c["device"] == d.name for c in cells)],
    )
    return Page(path, title, markdown, book.specs, {"bound-per-device": table}, in_nav=False)


def workload_parts(
    items: list[Workload], groups: dict[str, str], titles: dict[str, str]
) -> list[tuple[str, str, list[Workload]]]:
    """(slug, title, workloads) per page: published exports and traces first, then each
    experiment group in its natural order (C, C-gpu, C-mnist, D), a group of more than
    WORKLOADS_PER_PAGE workloads over several pages. groups: workload label -> group id
    (a measured run's); titles: group id -> its title."""
    by_part: dict[str, list[Workload]] = {}
    for w in items:
        by_part.setdefault(groups.get(w.label, PUBLISHED), []).append(w)

    def order(part: str) -> tuple[bool, str, str]:
        base, _, variant = part.partition("-")
        return part != PUBLISHED, base, variant

    parts = []
    for part in sorted(by_part, key=order):
        members = by_part[part]
        name = (
            "Published exports and traces"
            if part == PUBLISHED
            else f"{part}: {titles.get(part, '')}"
        )
        count = math.ceil(len(members) / WORKLOADS_PER_PAGE)
        for page_number in range(1, count + 1):
            chunk = members[
                (page_number - 1) * WORKLOADS_PER_PAGE : page_number * WORKLOADS_PER_PAGE
            ]
            slug = part if page_number == 1 else f"{part}-{page_number}"
            title = name if count == 1 else f"{name} (page {page_number} of {count})"
            parts.append((slug, title, chunk))
    return parts


def device_choice_pages(
    items: list[Workload],
    devices: tuple[Device, ...],
    launch_calls: tuple[float, int] | None = None,
    groups: dict[str, str] | None = None,
    titles: dict[str, str] | None = None,
) -> list[Page]:
    """The hub, with the whole table (workload × device) offered as data, then one page per
    part (`workload_parts`). launch_calls: the median host time of a launch call in the
    traces here (µs) and how many were timed."""
    parts = workload_parts(items, groups or {}, titles or {})
    pages = [  # a part the new run is not in is kept (generator/memo)
        remembered(
            "part_page",
            part_page,
            f"{PART_DIR}/{slug}.md",
            f"Device choice: {title}",
            chunk,
            devices,
        )
        for slug, title, chunk in parts
    ]
    markdown = render(
        "device_choice.md.j2",
        title=front_matter_title("Device choice"),
        latency=si(LAUNCH_LATENCY_S, "s"),
        latency_source=LAUNCH_LATENCY_SOURCE,
        launch_calls=None
        if launch_calls is None
        else (si(launch_calls[0] * 1e-6, "s"), f"{launch_calls[1]:,}"),
        launch=LAUNCH,
        parts=[
            (title, f"device-choice/{slug}.md", f"{len(chunk):,}") for slug, title, chunk in parts
        ],
        priced=_priced(devices),
        epochs=sorted(EPOCH_NAMES.values()),
    )
    hub = Page(
        HUB_PATH,
        "Device choice",
        markdown,
        tables={"bound-per-device": device_table(items, devices)},
    )
    return [hub, *pages]


def _render(report: Report) -> list[Page]:
    items = with_launch_counts(report.workloads, report.traces, report.runs)
    groups = (
        dict(zip(report.runs["run_id"], report.runs["group"], strict=True))
        if {"run_id", "group"} <= set(report.runs.columns)
        else {}
    )
    titles = {g.id: g.title for g in report.experiments.groups} if report.experiments else {}
    return device_choice_pages(
        items, report.catalog, launch_calls_measured(report.traces), groups, titles
    )


PAGE = Generated(None, _render)
