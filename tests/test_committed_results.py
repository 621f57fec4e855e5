"""Issue 31's and 49's promises, checked on the committed measurements themselves: one result
per CPU configuration, calibrated; several runs of one configuration each timed in one process
shown apart rather than pooled; and a calibration check that met its bar."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl

from generator.analysis.result_columns import runs_download
from generator.analysis.results import results
from generator.findings.calibration_checks import coverage
from generator.records.calibration import read_calibrations, session_cvs
from generator.records.run import read_run
from generator.site.context import build_context
from generator.site.load import load_measurements
from tests.helpers import REPO

MEASUREMENTS = REPO / "measurements"


def test_every_cpu_configuration_is_one_result_timed_in_blocks() -> None:
    records = [read_run(folder) for folder in sorted((MEASUREMENTS / "runs").iterdir())]
    cpu = [r for r in records if r is not None and r.config.device == "cpu" and r.status == "ok"]
    assert len(cpu) >= 30
    assert [w for w, n in Counter(r.workload for r in cpu).items() if n > 1] == []
    assert {r.timing.method for r in cpu if r.timing is not None} == {"blocks"}
    assert all(r.timing is not None and (r.timing.blocks or 0) >= 5 for r in cpu)


def test_several_runs_of_one_configuration_are_shown_apart_not_pooled(tmp_path: Path) -> None:
    """GPU configurations measured in two groups before results were shared stay two run
    folders, each timed in one process. Issue 49: the report states no interval for them
    (a t interval over two processes has one degree of freedom: B's H100 step read
    6.666 ms [197.3 µs, 225.2 ms]); it shows each run's value and how far apart they are."""
    loaded = load_measurements(build_context(MEASUREMENTS, tmp_path))
    found = results(loaded.runs, loaded.steps, session_cvs(loaded.calibrations))
    pooled = runs_download(loaded.runs, found)  # as runs.md's download states them
    several = pooled.filter(pl.col("pooled_runs") > 1)
    assert several.height > 0  # the H100's B/E and J/J-gpu duplicates
    for row in several.to_dicts():
        result = found[row["workload"]]
        assert row["ci_low_s"] is None and row["interval"] == "not calibrated", row["run_id"]
        assert result.disagreement is not None and "disagree by" in result.why_uncalibrated()
        assert row["spread_low_s"] <= row["median_s"] <= row["spread_high_s"], row["run_id"]


def test_every_cpu_and_h200_result_is_calibrated_and_every_h100_one_is_not(
    tmp_path: Path,
) -> None:
    """The H100's runs were timed in one process (2026-11-23); the H200's six in blocks
    (2026-11-27)."""
    loaded = load_measurements(build_context(MEASUREMENTS, tmp_path))
    found = results(loaded.runs, loaded.steps, session_cvs(loaded.calibrations)).values()
    assert all(r.step.calibrated for r in found if r.device == "cpu")
    h200 = [r for r in found if r.device_label == "NVIDIA H200 SXM"]
    assert len(h200) == 6 and all(r.step.calibrated for r in h200)
    assert not any(r.step.calibrated for r in found if r.device_label == "NVIDIA H100 SXM")


# The compiled runs' calls from when the between-call variation is Paule and Mandel's
# (hierarchical.session_cv): the two calls before it checked intervals with sigma = 0 and
# put 19 of 24 inside, all misses ResNet-18's.
PAULE_MANDEL_SINCE = "2026-11-27T08:50:00+00:00"


def _of_mode(calibrations: list[Any], compiled: bool, since: str = "") -> list[Any]:
    from generator.records.run_modes import EAGER, mode_of_run_id

    return [
        c.model_copy(update={"configurations": [
            i for i in c.configurations if (mode_of_run_id(i.run_id) != EAGER) == compiled
        ]})
        for c in calibrations
        if c.started_at >= since
    ]  # fmt: skip


def test_the_committed_calibration_met_its_bar_and_every_miss_is_flagged() -> None:
    """Eager results: 11 of 12 re-measurements inside, or better, over every call. Compiled
    results: the same bar over the calls since the between-call variation is weighed
    (2026-11-27: 23 of 24; before, 19 of 24, the ResNet-18 ones re-measured 9 to 17 %
    slower). Whatever the coverage, each result whose newest re-measurement missed
    carries `not-reproduced` on its page."""
    from generator.findings.calibration_checks import latest_remeasurements, not_reproduced

    calibrations = read_calibrations(MEASUREMENTS)
    for compiled, since in ((False, ""), (True, PAULE_MANDEL_SINCE)):
        found = coverage(_of_mode(calibrations, compiled, since))
        assert found is not None and found.total >= 12 * (1 + compiled), compiled
        assert found.covered >= found.total - found.total // 12, compiled  # 11 of 12
        assert found.min_minutes_after >= 30
    before = coverage(
        _of_mode([c for c in calibrations if c.started_at < PAULE_MANDEL_SINCE], True)
    )
    assert before is not None and before.covered < before.total - before.total // 12
    assert len({item.run_id for c in calibrations for item in c.configurations}) >= 12
    records = {
        folder.name: record
        for folder in (MEASUREMENTS / "runs").iterdir()
        if (record := read_run(folder)) is not None
    }
    newest = latest_remeasurements(calibrations, records)
    misses = {run for run, (_, item) in newest.items() if not item.inside}
    assert set(not_reproduced(calibrations, records)) == misses
