"""'Do the intervals hold?': the empirical coverage of the stated intervals (the `remeasure`
calls in measurements/calibration/), each re-measurement, and the level variations of every
result timed in blocks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import polars as pl

from generator.analysis.interval import MIN_BLOCKS, Interval
from generator.analysis.results import Result
from generator.catalog import device_label
from generator.findings.calibration_checks import coverage, not_reproduced
from generator.formatting import number, percent, seconds
from generator.hierarchical import Levels
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import render
from generator.pages.run_text import half_width, run_label
from generator.records.calibration import CalibrationFile, session_cvs
from generator.records.run_modes import EAGER, mode_of_run_id

PATH = f"{GENERATED_DIR}/calibration.md"


def _session_name(key: str) -> str:
    """A `records.calibration.session_key` as a reader names it."""
    name, _, mode = key.partition("|")
    return _with_mode(device_label(name), mode or EAGER)


def _mode_name(mode: str) -> str:
    return mode if mode == EAGER else f"torch.compile {mode}"


def _with_mode(device: str, mode: str) -> str:
    """A device's results in one compile mode, as a reader names them (eager: the device)."""
    return device if mode == EAGER else f"{device}, {_mode_name(mode)}"


def _eager_first(mode: str) -> tuple[bool, str]:
    return mode != EAGER, mode


def _interval(low: float, high: float) -> str:
    """The committed 95 % interval, or in words where its ends are more than MAX_SPAN×
    apart (interval.py's rule: such an interval says only that the value is not known)."""
    if Interval(1.0, low, high).too_wide:
        span = f"{number(high / low, 2)}× apart" if low > 0 else "its low end not above 0"
        return (
            f"too uncertain for an interval: its ends, {seconds(low)} and {seconds(high)}, "
            f"are {span}"
        )
    return f"[{seconds(low)}, {seconds(high)}]"


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
            "interval": _interval(*item.committed.interval95_s),
            "again": seconds(item.remeasured.median_s),
            "ratio": number(item.ratio, 3),
            "minutes": number(item.minutes_after, 3),
            "inside": "yes" if item.inside else "**no**",
        }
        for _, item in items
    ]
    missed = dict.fromkeys(item.run_id for _, item in items if not item.inside)  # once each
    flagged = not_reproduced(report.calibrations, report.records)
    misses = ", ".join(_link(run_id, labels) for run_id in missed if run_id in flagged)
    since = ", ".join(_link(run_id, labels) for run_id in missed if run_id not in flagged)
    table = pl.DataFrame(
        [{"call_started_at": c.started_at, **item.model_dump(mode="json")} for c, item in items]
    ) if items else pl.DataFrame()  # fmt: skip
    stated = {r: result for result in report.results.values() for r in result.run_ids}
    levels = [_levels(run_id, labels, stated[run_id])
              for run_id, record in sorted(report.records.items())
              if run_id in stated and _own_levels(run_id, stated[run_id]) is not None
              and record.timing is not None and record.timing.method == "blocks"]  # fmt: skip
    sessions = [
        {"device": _session_name(key), "cv": percent(100 * cv, 2)}
        for key, cv in sorted(session_cvs(list(report.calibrations)).items())
    ]
    calibrated, uncalibrated = _split(report, labels, items)
    markdown = render(
        "calibration.md.j2",
        answer=answer(report),
        calibrated=calibrated,
        uncalibrated=uncalibrated,
        min_blocks=MIN_BLOCKS,
        sentence=found.sentence() if found else None,
        misses=misses,
        since=since,
        calls=_calls(report.calibrations),
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


def _calls(calibrations: Sequence[CalibrationFile]) -> list[dict[str, str]]:
    """Each call's coverage, eager and compiled apart (their intervals carry their own
    between-call variation, `records.calibration.session_key`)."""
    rows = []
    for call in sorted(calibrations, key=lambda c: c.started_at):
        by_mode: dict[str, list[bool]] = {}
        for item in call.configurations:
            by_mode.setdefault(mode_of_run_id(item.run_id), []).append(item.inside)
        for mode, inside in sorted(by_mode.items(), key=lambda pair: _eager_first(pair[0])):
            rows.append({
                "call": f"{call.started_at[:16].replace('T', ' ')} UTC",
                "mode": _mode_name(mode),
                "inside": f"{sum(inside)} of {len(inside)}",
                # recorded for the call's one mode, or for eager when it checked both
                "variation": percent(100 * call.session_cv, 2)
                if len(by_mode) == 1 or mode == EAGER else "not recorded",
            })  # fmt: skip
    return rows


def _split(
    report: Report, labels: dict[str, str], items: list[tuple[Any, Any]]
) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """What was calibrated, per device (its configurations and how many re-measurements fell
    inside), and each result that was not, with why and the command that re-measures it."""
    side_of = _sides(report)
    results = sorted(report.results.values(), key=lambda r: (r.device_label, r.run_ids))
    calibrated = []
    sides = {(r.device_label, r.compile) for r in results if r.step.calibrated}
    for device, mode in sorted(sides, key=lambda side: (side[0], *_eager_first(side[1]))):
        ours = [r for r in results if (r.device_label, r.compile) == (device, mode)]
        found = coverage(report.calibrations, partial(_on_side, side_of, (device, mode)))
        count = sum(r.step.calibrated for r in ours)
        calibrated.append({
            "device": _with_mode(device, mode),
            "configurations": str(count),
            "of": str(len(ours)),
            "remeasured": f"{found.configurations if found else 0} of {count}",
            "coverage": f"{found.covered} of {found.total}" if found else "none yet",
            "observed": found.interval_text() if found else "n/a",
            "nominal": found.against_nominal() if found else "not checked yet",
        })  # fmt: skip
    uncalibrated = [
        {
            "link": _link(result.run_ids[0], labels),
            "device": result.device_label,
            "kind": result.step.short_kind(),
            "why": _why(result),
            "command": f"`{result.remeasure}`",
        }
        for result in results
        if not result.step.calibrated
    ]
    return calibrated, uncalibrated


def _on_side(side_of: Callable[[str], tuple[str, str]], side: tuple[str, str], run_id: str) -> bool:
    return side_of(run_id) == side


def _sides(report: Report) -> Callable[[str], tuple[str, str]]:
    """Run id -> (its device, its compile mode): the side of the report its intervals are."""
    device_of = {row["run_id"]: row["device_label"] for row in report.runs.to_dicts()}
    return lambda run_id: (str(device_of.get(run_id, "?")), mode_of_run_id(run_id))


def answer(report: Report) -> str:
    """The page's answer to its title, which the landing page states too: how many calibrated
    configurations were re-measured, how many re-measurements fell inside, the observed
    coverage with its Clopper-Pearson interval, against the nominal 95 %."""
    found = coverage(report.calibrations)
    calibrated = [r for r in report.results.values() if r.step.calibrated]
    if found is None:
        return f"none of the {len(calibrated)} calibrated configurations has been re-measured yet"
    checked = {item.run_id for c in report.calibrations for item in c.configurations}
    again = sum(any(run in checked for run in r.run_ids) for r in calibrated)
    return (
        f"{again} of the {len(calibrated)} calibrated configurations were re-measured; "
        f"{found.covered} of {found.total} re-measurements fell inside the interval stated "
        "before them: "
        f"{found.interval_text()}, {found.against_nominal()}"
    )


def _why(result: Result) -> str:
    if len(result.runs) > 1:
        gap = percent(100 * (result.disagreement or 0.0))
        return f"{len(result.runs)} runs, each timed in one process, {gap} apart"
    if result.step.processes > 1:
        return f"{result.step.processes} blocks, fewer than {MIN_BLOCKS}"
    return "timed in one process"


def _own_levels(run_id: str, result: Result) -> Levels | None:
    """The variation at each level of one run of `result` (timed in blocks)."""
    return next((run.levels for run in result.runs if run.run_id == run_id), None)


def _levels(run_id: str, labels: dict[str, str], result: Result) -> dict[str, str]:
    """`result`: the run's result, whose interval is the one every page states."""
    levels = _own_levels(run_id, result)
    assert levels is not None
    return {
        "link": _link(run_id, labels),
        "blocks": str(levels.blocks),
        "steps": number(levels.iterations_per_block, 3),
        "within": percent(100 * levels.within_block_cv, 2),
        "between": percent(100 * levels.between_block_cv, 2),
        "medians": percent(100 * levels.block_median_cv, 2),
        "half": half_width(result.step),
    }


PAGE = Generated("Method", lambda report: [calibration_page(report)])
