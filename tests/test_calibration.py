"""The calibration check as the report shows it: the coverage sentence, `not-reproduced` on a
miss (and not on a result measured again since), the calibration file's versioning, the
calibration page, and the sentence on the Methodology page through the include marker."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import polars as pl
import pytest

from generator.errors import UserError
from generator.findings.calibration_checks import coverage, not_reproduced
from generator.records.calibration import (
    CalibrationFile,
    read_calibration,
    read_calibrations,
    session_cvs,
    write_calibration,
)
from generator.records.run import RunRecord
from generator.stats import clopper_pearson
from tests.helpers import result_row


def item(run_id: str, median: float, inside: bool, committed: float = 1.0) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "workload": "w-" + run_id,
        "committed": {
            "median_s": committed,
            "interval95_s": [0.95, 1.05],
            "blocks": 5,
            "samples": 100,
        },
        "committed_finished_at": "2026-11-25T07:00:00+00:00",
        "remeasured": {
            "median_s": median,
            "interval95_s": [median * 0.95, median * 1.05],
            "blocks": 5,
            "samples": 100,
        },
        "minutes_after": 42.0,
        "inside": inside,
        "ratio": median / committed,
    }


def calibration(started: str, items: list[dict[str, Any]]) -> CalibrationFile:
    return CalibrationFile.model_validate({
        "started_at": started, "finished_at": started, "device": "cpu",
        "device_name": "AMD EPYC (2 threads)", "command": "python -m generator remeasure",
        "seed": 1, "configurations": items,
    })  # fmt: skip


def record(run_id: str, finished: str) -> RunRecord:
    return RunRecord.model_validate({
        "run_id": run_id, "config": {"group": "A", "model": "m", "dataset": "d", "batch": 1,
                                     "phase": "train_step", "precision": "fp32", "device": "cpu"},
        "config_hash": "0" * 16, "device_name": "AMD EPYC (2 threads)", "started_at": finished,
        "environment": {}, "command": "measure", "status": "ok", "finished_at": finished,
    })  # fmt: skip


def test_coverage_pools_every_call() -> None:
    first = calibration("2026-11-25T08:00:00+00:00", [item("a", 1.0, True), item("b", 1.2, False)])
    second = calibration("2026-11-26T08:00:00+00:00", [item("a", 1.01, True)])
    found = coverage([first, second])
    assert found is not None and (found.covered, found.total, found.calibrations) == (2, 3, 2)
    assert found.sentence() == (
        "Our 95 % intervals covered 2 of 3 re-measurements of 2 configurations: 66.7 % "
        "[9.43, 99.2] (95 % Clopper-Pearson), consistent with the nominal 95 % (2 "
        "re-measurement calls, 2026-11-25 to 2026-11-26, each at least 42 minutes after the "
        "result it checks)."
    )
    assert coverage([]) is None


def test_the_coverage_is_judged_against_the_nominal_95_percent_by_its_binomial_interval() -> None:
    """Issue 66: "64 of 72 (89 %)" never said whether that is consistent with 95 %."""
    assert clopper_pearson(5, 10) == pytest.approx((0.18709, 0.81291), abs=1e-5)  # tables
    assert clopper_pearson(0, 10) == pytest.approx((0.0, 1 - 0.025 ** (1 / 10)))
    assert clopper_pearson(10, 10) == pytest.approx((0.025 ** (1 / 10), 1.0))
    assert clopper_pearson(64, 72) == pytest.approx((0.79275, 0.95079), abs=1e-5)
    with pytest.raises(ValueError):
        clopper_pearson(3, 2)
    at = "2026-11-25T08:00:00+00:00"
    held = coverage([calibration(at, [item(str(i), 1.0, i < 64) for i in range(72)])])
    assert held is not None and held.against_nominal() == "consistent with the nominal 95 %"
    low = coverage([calibration(at, [item(str(i), 1.0, i < 50) for i in range(72)])])
    assert low is not None and low.against_nominal().startswith("below the nominal 95 %")
    assert low.interval_text().startswith("69.4 % [57.5, 79.8]")


def test_not_reproduced_names_both_numbers_and_skips_results_measured_since() -> None:
    calls = [calibration("2026-11-25T08:00:00+00:00", [item("a", 1.0, True), item("b", 1.2, False),
                                                         item("c", 1.3, False)])]  # fmt: skip
    records = {
        "a": record("a", "2026-11-25T07:00:00+00:00"),
        "b": record("b", "2026-11-25T07:00:00+00:00"),
        "c": record("c", "2026-11-25T09:00:00+00:00"),  # measured again after the check
    }
    found = not_reproduced(calls, records)
    assert list(found) == ["b"]
    (finding,) = found["b"]
    assert finding.id == "not-reproduced" and finding.severity == "warning"
    assert "1.2 s (1.2× the committed 1 s), outside its interval [950 ms, 1.05 s]" in (
        finding.evidence
    )
    assert "42 minutes later" in finding.evidence
    later = calibration("2026-11-25T10:00:00+00:00", [item("b", 1.0, True)])
    assert not_reproduced([*calls, later], records) == {}  # its newest check held


def test_calibration_files_round_trip_and_refuse_a_newer_version(tmp_path: Path) -> None:
    written = write_calibration(tmp_path, calibration("2026-11-25T08:00:00+00:00",
                                                      [item("a", 1.0, True)]))  # fmt: skip
    assert written.name == "20261125T080000Z.json"
    assert [c.total for c in read_calibrations(tmp_path)] == [1]
    data = json.loads(written.read_text())
    data["schema_version"] = 9
    written.write_text(json.dumps(data))
    with pytest.raises(UserError, match="newer than this tool reads"):
        read_calibration(written)
    assert read_calibrations(tmp_path / "nothing") == []


def test_calibration_page_and_methodology_include() -> None:
    """The built report from the committed measurements: the page states the coverage, and
    the Methodology page carries the same sentence through its marker."""
    from generator.pages.calibration import calibration_page
    from generator.site.mkdocs_hooks import WITH_INCLUDES

    methodology = (Path(__file__).parents[1] / "docs" / "methodology.md").read_text()
    assert "<!-- generated: calibration-coverage -->" in methodology
    assert WITH_INCLUDES == ("methodology.md",)
    runs = pl.DataFrame({"run_id": ["b"], "model": ["m"], "batch": [1], "phase": ["train_step"],
                         "precision": ["fp32"], "device": ["cpu"],
                         "device_label": ["AMD EPYC (2 threads)"]})  # fmt: skip
    calls = [
        calibration("2026-11-25T08:00:00+00:00", [item("b", 1.2, False), item("x", 1.0, True)])
    ]
    # the page reads these four of the Report: b's result is not calibrated (one process)
    result = result_row(
        {"run_id": "b", "model": "m", "dataset": "d", "batch": 1, "phase": "train_step",
         "precision": "fp32", "device": "cpu", "device_label": "AMD EPYC (2 threads)",
         "median_s": 1.0, "ci_low_s": 0.9, "ci_high_s": 1.1, "group": "G"},
        "within one process", 1,
    )["result"]  # fmt: skip
    report = SimpleNamespace(runs=runs, records={}, calibrations=calls, results={"w": result})
    page = calibration_page(report)  # type: ignore[arg-type]
    assert "## What was not calibrated" in page.markdown
    assert "`nox -s measure -- --group G --device cpu --force`" in page.markdown
    assert "Our 95 % intervals covered 1 of 2 re-measurements" in page.markdown
    assert "**Do they hold?** 0 of the 0 calibrated configurations were re-measured; 1 of 2 " in (
        page.markdown
    )
    assert "[m b1 train_step fp32 AMD EPYC](runs/b.md)" in page.markdown
    assert "| **no** |" in page.markdown
    assert page.includes["calibration-coverage"].startswith("Our 95 % intervals covered 1 of 2")
    assert page.tables["remeasurements"].height == 2


def test_session_cvs_per_device_from_checks_that_recorded_their_spreads() -> None:
    spread = {"block_median_cv": 0.01}
    checks = []
    for at, ratio in enumerate((1.10, 0.92, 1.08, 0.95)):
        found = item(f"r{at}", ratio, False)
        found["committed"] |= spread
        found["remeasured"] |= spread
        checks.append(found)
    old_style = item("r9", 3.0, False)  # no spreads recorded: not used
    by_device = session_cvs([calibration("2026-11-25T08:00:00+00:00", [*checks, old_style])])
    assert list(by_device) == ["AMD EPYC (2 threads)"]
    # (mean of r^2 - 2 x 0.01^2 / 5) / 2, r the log ratios above: with every check's own
    # variance equal, Paule and Mandel's root is the method of moments' value
    squares = [math.log(r) ** 2 - 2 * 0.01**2 / 5 for r in (1.10, 0.92, 1.08, 0.95)]
    assert by_device["AMD EPYC (2 threads)"] == pytest.approx(math.sqrt(sum(squares) / 4 / 2))
    assert session_cvs([calibration("2026-11-25T08:00:00+00:00", [old_style])]) == {}


def test_compiled_runs_have_their_own_between_invocation_variation() -> None:
    """A compiled step's processes vary in their own way (bimodal blocks on this VM): the
    variation its re-measurements show is kept apart from the device's eager one, so it does
    not widen every eager interval of the device."""
    from generator.records.calibration import read_calibrations, session_cvs, session_key
    from generator.records.run_modes import mode_of_run_id
    from tests.helpers import REPO

    assert (
        mode_of_run_id("T-mnist-simple_mlp-mnist-b64-inference-fp32-cpu-compile-ab241f42")
        == "compile"
    )
    assert mode_of_run_id("A-resnet18-cifar10-b64-train_step-fp32-cpu-9a29afff") == "eager"
    assert mode_of_run_id("X-m-d-b1-inference-fp32-cuda-max-autotune-no-cudagraphs-1a2b3c4d") == (
        "max-autotune-no-cudagraphs"
    )
    eager, compiled = (
        session_key("AMD EPYC (2 threads)"),
        session_key("AMD EPYC (2 threads)", "compile"),
    )
    spread = {"block_median_cv": 0.01}
    checks = []
    for run, ratios in (("A-x-cpu-9a29afff", (1.01, 0.99)),
                        ("T-x-cpu-compile-ab241f42", (1.5, 0.6))):  # fmt: skip
        for at, ratio in enumerate(ratios):
            found = item(f"{run}-{at}", ratio, True)
            found["run_id"] = run
            found["committed"] |= spread
            found["remeasured"] |= spread
            checks.append(found)
    cvs = session_cvs([calibration("2026-11-25T08:00:00+00:00", checks)])
    assert set(cvs) == {eager, compiled} and eager != compiled
    assert cvs[eager] < 0.02 < 0.3 < cvs[compiled]  # the compiled ratios do not widen eager's
    # the committed records calibrate both: this machine's eager and compiled runs
    assert {eager, compiled} <= set(session_cvs(read_calibrations(REPO / "measurements")))


def test_a_run_that_missed_twice_is_listed_once_and_one_inside_since_is_not_flagged() -> None:
    from generator.pages.calibration import calibration_page

    runs = pl.DataFrame({"run_id": ["b", "c"], "model": ["m", "n"], "batch": [1, 1],
                         "phase": ["train_step"] * 2, "precision": ["fp32"] * 2,
                         "device": ["cpu"] * 2,
                         "device_label": ["AMD EPYC (2 threads)"] * 2})  # fmt: skip
    calls = [
        calibration("2026-11-25T08:00:00+00:00", [item("b", 1.2, False), item("c", 1.2, False)]),
        calibration("2026-11-25T09:00:00+00:00", [item("b", 1.3, False), item("c", 1.0, True)]),
    ]
    measured = SimpleNamespace(finished_at="2026-11-25T07:00:00+00:00", timing=None)
    report = SimpleNamespace(
        runs=runs, records={"b": measured, "c": measured}, calibrations=calls, results={}
    )
    page = calibration_page(report)  # type: ignore[arg-type]
    box = page.markdown.split('!!! abstract "Coverage"')[1].split("Each call,")[0]
    flagged, since = box.split("are flagged")[1].split("Missed in a call")
    assert flagged.count("[m b1 train_step fp32 AMD EPYC](runs/b.md)") == 1  # the table: twice
    assert "runs/c.md" not in flagged and "(runs/c.md)" in since and "runs/b.md" not in since
    assert "| 2026-11-25 08:00 UTC | eager | 0 % | 0 of 2 |" in page.markdown
    assert "| 2026-11-25 09:00 UTC | eager | 0 % | 1 of 2 |" in page.markdown


def test_coverage_is_stated_per_device_and_compile_mode_eager_first() -> None:
    """Eager and compiled results carry their own between-call variation, so the page
    counts their re-measurements apart: in "What was calibrated" and in each call's row."""
    from generator.pages.calibration import calibration_page

    eager, compiled = "e-cpu-1234abcd", "k-cpu-compile-1234abcd"
    runs = pl.DataFrame({"run_id": [eager, compiled], "model": ["m", "m"], "batch": [1, 1],
                         "phase": ["inference"] * 2, "precision": ["fp32"] * 2,
                         "device": ["cpu"] * 2,
                         "device_label": ["AMD EPYC (2 threads)"] * 2})  # fmt: skip
    calls = [
        calibration("2026-11-25T08:00:00+00:00", [item(compiled, 1.3, False)]),
        calibration(
            "2026-11-25T09:00:00+00:00", [item(compiled, 1.0, True), item(eager, 1.0, True)]
        ),
    ]
    result = {
        run_id: SimpleNamespace(device_label="AMD EPYC (2 threads)", compile=mode,
                                run_ids=(run_id,), step=SimpleNamespace(calibrated=True))
        for run_id, mode in ((eager, "eager"), (compiled, "compile"))
    }  # fmt: skip
    report = SimpleNamespace(runs=runs, records={}, calibrations=calls, results=result)
    markdown = calibration_page(report).markdown  # type: ignore[arg-type]
    table = markdown.split("## What was calibrated")[1].split("!!!")[0]
    rows = [line for line in table.splitlines() if line.startswith("| AMD")]
    assert rows == [
        "| AMD EPYC (2 threads) | 1 | 1 | 1 of 1 | 1 of 1 | 100 % [2.5, 100] (95 % "
        "Clopper-Pearson) | consistent with the nominal 95 % |",
        "| AMD EPYC (2 threads), torch.compile compile | 1 | 1 | 1 of 1 | 1 of 2 | 50 % [1.26, "
        "98.7] (95 % Clopper-Pearson) | consistent with the nominal 95 % |",
    ]
    assert "**Do they hold?** 2 of the 2 calibrated configurations were re-measured; 2 of" in (
        markdown
    )
    assert "| 2026-11-25 08:00 UTC | torch.compile compile | 0 % | 0 of 1 |" in markdown
    call = markdown.split("| 2026-11-25 09:00 UTC |")[1:]
    assert [c.split("|")[0].strip() for c in call] == ["eager", "torch.compile compile"]
    assert "not recorded" in call[1]  # a call of both modes records eager's variation only


def test_a_committed_interval_wider_than_five_times_is_written_in_words() -> None:
    """Issue 65: the Calibration page printed "[789.7 µs, 37.15 ms]", 47× apart; every
    other page writes such an interval in words (analysis/interval.py's MAX_SPAN)."""
    from generator.pages.calibration import _interval

    wide = _interval(789.7e-6, 37.15e-3)
    assert "[" not in wide and "47× apart" in wide and "789.7 µs" in wide
    assert _interval(5.34e-3, 5.66e-3) == "[5.34 ms, 5.66 ms]"
