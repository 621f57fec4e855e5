"""Forward, loss, backward and optimizer-step latency of every measured training step
(seed 003 compared forward and backward latency): analysis.phases, drawn per device."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from generator.analysis.interval import Interval
from generator.analysis.odd_ratios import PHASES, Odd
from generator.analysis.phases import PARTS, PartTime, StepParts, describe, training_parts
from generator.formatting import number, seconds
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render

PATH = f"{GENERATED_DIR}/step-parts.md"


def _time(part: PartTime | None) -> str:
    if part is None:
        return "n/a"
    return part.time.text(seconds)


def _ratio(value: Interval | None, as_percent: bool = False) -> str:
    if value is None:
        return "n/a"
    return value.percent_text() if as_percent else value.times_text()


def _table(found: list[StepParts]) -> list[list[str]]:
    return [
        [s.device, s.label, str(s.samples),
         *(_time(s.part(name)) for name in PARTS.values()),
         _ratio(s.time_ratio), number(s.flop_ratio, 3), _ratio(s.rate_ratio, as_percent=True)]
        for s in found
    ]  # fmt: skip


def parts_frame(found: list[StepParts]) -> pl.DataFrame:
    """One row per workload: each part's median and interval, and the ratios (download)."""
    rows: list[dict[str, Any]] = []
    for s in found:
        row: dict[str, Any] = {
            "device": s.device, "model": s.model, "dataset": s.dataset, "batch": s.batch,
            "precision": s.precision, "compile": s.compile, "workload": s.workload,
            "runs": ", ".join(s.run_ids),
            "samples": s.samples,
        }  # fmt: skip
        for column, name in PARTS.items():
            part = s.part(name)
            stem = column.removesuffix("_s")
            row |= {
                f"{stem}_median_s": part.median_s if part else None,
                f"{stem}_ci_low_s": part.low_s if part else None,
                f"{stem}_ci_high_s": part.high_s if part else None,
                f"{stem}_interval": part.time.kind if part else None,
            }
        for key, value in (("backward_over_forward_time", s.time_ratio),
                           ("backward_over_forward_flop_rate", s.rate_ratio)):  # fmt: skip
            row |= {
                key: value.value if value else None,
                f"{key}_low": value.low if value else None,
                f"{key}_high": value.high if value else None,
                f"{key}_interval": value.kind if value else None,
            }
        row["backward_over_forward_flops"] = s.flop_ratio
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)


def with_cause(text: str, item: StepParts, odd: Sequence[Odd]) -> str:
    """A step's sentence, and where its backward pass took less time than its forward, what
    the data says decided that (analysis/odd_ratios.py)."""
    found = next(
        (o for o in odd if o.kind == PHASES and o.expected.workload == item.workload), None
    )
    if found is None:
        return text
    return (
        f"{text} Backward under forward goes against the expected direction: {found.cause.words}."
    )


def step_parts_page(report: Report) -> Page:
    from generator.charts.analyses import parts_chart  # altair: import on use

    found = training_parts(report.runs, report.steps, report.results)
    book = ChartBook(PATH)
    devices = []
    for device in dict.fromkeys(s.device for s in found):
        mine = [s for s in found if s.device == device]
        rows = [
            {"label": s.label, "part": p.part, "median_s": p.median_s, "low_s": p.low_s,
             "high_s": p.high_s}
            for s in mine
            for p in s.parts
        ]  # fmt: skip
        slug = "".join(c if c.isalnum() else "-" for c in device.lower()).strip("-")
        chart = book.embed(
            parts_chart(rows, f"Median time of each part of the training step on {device}"),
            f"step-parts-{slug}",
        )
        sentences = [with_cause(text, s, report.odd) for s in mine if (text := describe(s))]
        devices.append({"name": device, "chart": chart, "sentences": sentences})
    markdown = render(
        "step_parts.md.j2",
        title=front_matter_title("Forward, backward and optimizer time"),
        devices=devices,
        rows=_table(found),
    )
    return Page(
        PATH, "Forward, backward and optimizer time", markdown, book.specs,
        {"step-parts": parts_frame(found)},
    )  # fmt: skip


PAGE = Generated("Experiments", lambda report: [step_parts_page(report)])
