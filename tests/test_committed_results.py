"""Issue 31's promises, checked on the committed measurements themselves: one result per
CPU configuration, results of one configuration that agree within the interval the report
states for them, and a calibration check that met its bar."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import polars as pl

from generator.analysis.pooling import pool_runs
from generator.findings.calibration_checks import coverage
from generator.records.calibration import read_calibrations, session_cvs
from generator.records.run import read_run
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


def test_several_results_of_one_configuration_agree_within_the_stated_interval(
    tmp_path: Path,
) -> None:
    """GPU configurations measured in two groups before results were shared stay two run
    folders; the report states one pooled result whose interval holds both."""
    loaded = load_measurements(MEASUREMENTS, tmp_path)
    pooled = pool_runs(loaded.runs, loaded.steps, session_cvs(loaded.calibrations))
    several = pooled.filter(pl.col("pooled_runs") > 1)
    assert several.height > 0  # the H100's B/E and J/J-gpu duplicates
    for row in several.to_dicts():
        assert row["ci_low_s"] <= row["spread_low_s"], row["run_id"]
        assert row["spread_high_s"] <= row["ci_high_s"], row["run_id"]


def test_the_committed_calibration_met_its_bar() -> None:
    calibrations = read_calibrations(MEASUREMENTS)
    found = coverage(calibrations)
    assert found is not None and found.total >= 12
    assert found.covered >= found.total - found.total // 12  # 11 of 12, or better
    assert found.min_minutes_after >= 30
    assert len({item.run_id for c in calibrations for item in c.configurations}) >= 12
