"""'Do the intervals hold?': the empirical coverage of the stated intervals (the `remeasure`
calls in measurements/calibration/), each re-measurement, and the level variations of every
result timed in blocks."""

from __future__ import annotations

from typing import Any

import polars as pl

from generator.catalog import device_label
from generator.findings.calibration_checks import coverage
from generator.formatting import number, percent, seconds
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import render
from generator.pages.run_text import run_label
from generator.records.calibration import session_cvs

PATH = f"{GENERATED_DIR}/calibration.md"


def _link(run_id: str, labels: dict[str, str]) -> str:
    return f"[{labels.get(run_id, run_id)}](runs/{run_id}.md)"


def calibration_page(report: Report) -> Page:
    labels = {row["run_id"]: run_label(row) for row in report.runs.to_dicts()}
    found = coverage(report.calibrations)
    items = [(c, item) for c in report.calibrations for item in c.configurations]
    rows = [
        {
            "link": _link(item.run_id, labels),
            "committed": seconds(item.committed.median_s),
            "interval": f"[{seconds(item.committed.interval95_s[0])}, "
            f"{seconds(item.committed.interval95_s[1])}]",
            "again": seconds(item.remeasured.median_s),
            "ratio": number(item.ratio, 3),
            "minutes": number(item.minutes_after, 3),
            "inside": "yes" if item.inside else "**no**",
        }
        for _, item in items
    ]
    misses = ", ".join(_link(item.run_id, labels) for _, item in items if not item.inside)
    table = pl.DataFrame(
        [{"call_started_at": c.started_at, **item.model_dump(mode="json")} for c, item in items]
    ) if items else pl.DataFrame()  # fmt: skip
    stated = {row["run_id"]: row for row in report.runs.to_dicts()}
    levels = [_levels(run_id, record.timing, labels, stated.get(run_id))
              for run_id, record in sorted(report.records.items())
              if record.timing is not None and record.timing.levels]  # fmt: skip
    sessions = [
        {"device": device_label(name), "cv": percent(100 * cv, 2)}
        for name, cv in sorted(session_cvs(list(report.calibrations)).items())
    ]
    markdown = render(
        "calibration.md.j2",
        sentence=found.sentence() if found else None,
        misses=misses,
        rows=rows,
        levels=levels,
        sessions=sessions,
    )
    tables = {"remeasurements": table} if items else {}
    include = (
        f"{found.sentence()} Each re-measurement is on [Do the intervals hold?]"
        "(measurements/calibration.md)."
        if found
        else "No re-measurement is on record yet: `python -m generator remeasure` makes one, "
        "and [Do the intervals hold?](measurements/calibration.md) shows it."
    )
    return Page(PATH, "Do the intervals hold?", markdown, tables=tables,
                includes={"calibration-coverage": include})  # fmt: skip


def _levels(
    run_id: str, timing: Any, labels: dict[str, str], row: dict[str, Any] | None
) -> dict[str, str]:
    """`row`: the run's pooled row, whose interval is the one every page states."""
    levels = timing.levels
    median, low, high = (row["median_s"], row["ci_low_s"], row["ci_high_s"]) if row else (
        timing.median_s, *(timing.remeasure_ci95_s or timing.median_ci95_s or (None, None)))  # fmt: skip
    half = (
        "±" + percent(100 * max(median - low, high - median) / median, 2)
        if low is not None and high is not None else "n/a"
    )  # fmt: skip
    return {
        "link": _link(run_id, labels),
        "blocks": str(levels.get("blocks")),
        "steps": number(levels.get("iterations_per_block"), 3),
        "within": percent(100 * levels.get("within_block_cv", 0.0), 2),
        "between": percent(100 * levels.get("between_block_cv", 0.0), 2),
        "medians": percent(100 * levels.get("block_median_cv", 0.0), 2),
        "half": half,
    }


PAGE = Generated("Method", lambda report: [calibration_page(report)])
