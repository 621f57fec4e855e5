"""A profiler that fails never costs a run its timing, and a later `measure --ncu` (or
`--nsys`) profiles such a run again without timing it again: run folders built through the
real writer (runner.Session.write_record, run_files.measure_one) from fake timed steps, with
the stand-in ncu of tests/standin/ncu (no GPU)."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.progress import Progress

from generator.analysis.results import run_estimate
from generator.config import RunConfig
from generator.findings.run_checks import run_findings, stored_evidence
from generator.ingest.steps import read_steps
from generator.measure import by_blocks, ncu, runner
from generator.measure.profilers import NcuSettings, NsysSettings
from generator.measure.run_files import measure_one
from generator.measure.step import StepResult
from generator.pages.run_profilers import profiler_facts
from generator.records.finding import findings_json
from generator.records.run import RunRecord, read_run
from generator.summaries.run_findings import rederive

TESTS = Path(__file__).parent
STANDIN = str(TESTS / "standin" / "ncu")
DETAILS_CSV = TESTS / "data" / "ncu" / "taytwkim__nn-perf__a1-rep.csv"
H200_RUN = (
    TESTS / "data" / "h200" / "runs" / "B-resnet18-cifar10-b128-train_step-fp32-cuda-3fd7363e"
)
DEVICE = "NVIDIA H200"
NCU_FILES = {"ncu.csv", "ncu-range.csv", "ncu.log"}


def _config() -> RunConfig:
    return RunConfig(
        group="B", model="simple_mlp", dataset="mnist", input_shape=(1, 28, 28), classes=10,
        batch=8, phase="train_step", precision="fp32", device="cuda", warmup=1, iterations=10,
        repeats=1, seed=0, optimizer="sgd", learning_rate=0.01, profile=False,
    )  # fmt: skip


def _rows() -> list[dict[str, Any]]:
    phases = {"forward_s": 1.0e-3, "loss_s": 1.0e-4, "backward_s": 2.0e-3,
              "optimizer_step_s": 5.0e-4}  # fmt: skip
    return [{"invocation": 0, "block": 0, "repeat": 0, "iteration": i, **phases,
             "step_s": 3.6e-3 + 1e-5 * (i % 3)} for i in range(10)]  # fmt: skip


@pytest.fixture
def on_an_h200(monkeypatch: pytest.MonkeyPatch) -> None:
    """The session believes it has the H200 the run was measured on."""
    monkeypatch.setattr(runner, "device_available", lambda device: True)
    monkeypatch.setattr(runner, "device_name", lambda device: DEVICE)
    monkeypatch.setattr(by_blocks, "device_name", lambda device: DEVICE)


def _old_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    """ncu's commands as they were on 2026-11-27: --profile-from-start off in every mode."""
    made = ncu.profile_command

    def old(*args: Any, **kwargs: Any) -> list[str]:
        command = made(*args, **kwargs)
        if "--profile-from-start" in command:
            return command
        at = command.index("--target-processes") + 2
        return [*command[:at], "--profile-from-start", "off", *command[at:]]

    monkeypatch.setattr(ncu, "profile_command", old)


def _settings(clock_control: str = "none") -> NcuSettings:
    plan = ncu.ReplayPlan("range", kernel_count=20)
    return NcuSettings(STANDIN, ["gpu__time_duration.sum"], 60, plan, clock_control)


def _session(root: Path, ncu_settings: NcuSettings | None, **kwargs: Any) -> runner.Session:
    return runner.Session(root, False, ncu_settings, "python -m generator measure --ncu",
                          Console(quiet=True), **kwargs)  # fmt: skip


def _write(root: Path, session: runner.Session) -> tuple[runner.Outcome, Path]:
    config = _config()
    method = {"method": "rounds in one process", "rounds": 1, "stopped_by": "iterations"}

    def measured(folder: Path) -> Any:
        return measure_one(config, folder, session.ncu, StepResult(_rows(), {}), method, {},
                           session.nsys)  # fmt: skip

    outcome = session.write_record(config, "2026-11-28T10:00:00+00:00", measured, None,
                                   name=DEVICE)  # fmt: skip
    return outcome, root / "runs" / config.run_id(DEVICE)


def _record(folder: Path) -> RunRecord:
    record = read_run(folder)
    assert record is not None
    return record


def _h200_message() -> str:
    return str(json.loads((H200_RUN / "run.json").read_text())["error"]["message"])


def _ids(record: RunRecord) -> list[str]:
    return [f["id"] for f in record.findings or []]


def test_a_refused_ncu_keeps_the_timing_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _old_commands(monkeypatch)
    outcome, folder = _write(tmp_path, _session(tmp_path, _settings()))
    assert outcome.status == "ok" and outcome.step is not None and outcome.step.value > 0
    record = _record(folder)
    assert record.status == "ok" and record.timing is not None and record.timing.n == 10
    (finding,) = record.findings or []
    assert finding["id"] == "ncu-failed" and finding["severity"] == "warning"
    assert finding["evidence"] == _h200_message()  # ncu's own words, as on the H200
    assert "--ncu-replay kernel" in finding["fix"] and "--ncu-clock-control none" in finding["fix"]
    assert "re-profiles it without timing it again" in finding["fix"]
    # the attempt is recorded; no file of it is kept or listed
    assert record.ncu is not None and record.ncu["failed"] == _h200_message()
    assert record.ncu["clock_control"] == "none" and record.ncu["replay_mode"] == "range"
    assert [p["pass"] for p in record.ncu["passes"]] == ["range", "kernel"]
    assert not NCU_FILES & set(record.files or [])
    assert sorted(p.name for p in folder.iterdir()) == ["complexity.csv", "run.json", "steps.csv"]
    # rederive derives it again from run.json: it keeps what measure wrote
    assert findings_json(run_findings(stored_evidence(folder, record))) == record.findings
    assert [r.changed for r in rederive(tmp_path)] == [False]
    assert profiler_facts(record) == [
        ("Nsight Compute profile", "failed (the finding ncu-failed): range replay, clocks as found")
    ]


def _failed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    with monkeypatch.context() as patched:
        _old_commands(patched)
        outcome, folder = _write(tmp_path, _session(tmp_path, _settings()))
    assert outcome.status == "ok" and "ncu-failed" in _ids(_record(folder))
    return folder


@pytest.mark.usefixtures("on_an_h200")
def test_re_profiling_adds_the_profile_and_keeps_the_timing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _failed_run(tmp_path, monkeypatch)
    before = _record(folder)
    steps = (folder / "steps.csv").read_bytes()
    session = _session(tmp_path, _settings("base"))
    outcome = session.skip(_config())
    assert outcome is not None and outcome.status == "ok"
    assert outcome.detail == "re-profiled (timing kept)"
    after = _record(folder)
    assert (folder / "steps.csv").read_bytes() == steps
    assert before.timing is not None and after.timing == before.timing
    assert after.history == before.history and after.finished_at == before.finished_at
    assert outcome.step == run_estimate(read_steps(folder), 0.0)  # from the kept steps.csv
    assert "ncu-failed" not in _ids(after) and after.findings == []
    assert after.ncu is not None and "failed" not in after.ncu
    assert after.ncu["clock_control"] == "base" and after.ncu["command"] == session.command
    assert set(after.files or []) >= NCU_FILES and {p.name for p in folder.iterdir()} >= NCU_FILES
    assert (folder / "ncu.csv").read_text() == DETAILS_CSV.read_text()
    assert [p.name for p in (tmp_path / "runs").iterdir()] == [folder.name]  # no staging left
    assert [r.changed for r in rederive(tmp_path)] == [False]
    # profiled now: the next call skips it
    again = session.skip(_config())
    assert again is not None and again.status == "skipped"


@pytest.mark.usefixtures("on_an_h200")
def test_a_run_whose_ncu_fails_again_keeps_its_timing_and_the_new_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _failed_run(tmp_path, monkeypatch)
    steps = (folder / "steps.csv").read_bytes()
    # ncu without counter access: its recorded output, and no report (its exit status 0)
    refusing = tmp_path / "ncu-without-access"
    denied = TESTS / "data" / "ncu" / "ncu-errors" / "Gardenia-Tian__LearningNote4Dev__profile.csv"
    refusing.write_text(f"#!/bin/sh\ncat '{denied}'\n")
    refusing.chmod(refusing.stat().st_mode | stat.S_IEXEC)
    settings = NcuSettings(str(refusing), [], 60, ncu.ReplayPlan("range", kernel_count=20))
    outcome = _session(tmp_path, settings).skip(_config())
    assert outcome is not None and outcome.status == "ok"
    assert outcome.detail == "re-profiled (timing kept); ncu-failed"
    after = _record(folder)
    (finding,) = after.findings or []
    assert finding["id"] == "ncu-failed"
    assert finding["evidence"].startswith(
        "ncu wrote no report in its range pass: ==ERROR== Error: "
    )
    assert "ERR_NVGPUCTRPERM" in finding["evidence"] and "No kernels" in finding["evidence"]
    assert "check-gpu" in finding["fix"]
    assert (folder / "steps.csv").read_bytes() == steps
    assert not NCU_FILES & {p.name for p in folder.iterdir()}


@pytest.mark.usefixtures("on_an_h200")
def test_the_blocks_path_re_profiles_a_measured_run_without_timing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _failed_run(tmp_path, monkeypatch)
    session = _session(tmp_path, _settings())

    def no_blocks(request: Any) -> Any:
        raise AssertionError("a measured run was timed again")

    with Progress(console=Console(quiet=True), disable=True) as bar:
        overall = bar.add_task("runs", total=1)
        by_blocks.measure_by_blocks(session, [_config()], bar, overall, no_blocks, 0)
    (outcome,) = session.outcomes
    assert (outcome.status, outcome.detail) == ("ok", "re-profiled (timing kept)")
    assert "ncu-failed" not in _ids(_record(folder))


@pytest.mark.usefixtures("on_an_h200")
def test_a_failing_nsys_keeps_the_timing_and_is_recorded_again_later(tmp_path: Path) -> None:
    failing = tmp_path / "nsys"
    failing.write_text("#!/bin/sh\necho '==ERROR== no CUDA driver' >&2\nexit 2\n")
    failing.chmod(failing.stat().st_mode | stat.S_IEXEC)
    outcome, folder = _write(
        tmp_path, _session(tmp_path, None, nsys=NsysSettings(str(failing), 60))
    )
    record = _record(folder)
    assert outcome.status == "ok" and record.timing is not None
    (finding,) = record.findings or []
    assert finding["id"] == "nsys-failed"
    assert finding["evidence"] == "nsys exited with status 2: ==ERROR== no CUDA driver"
    assert record.nsys is not None and record.nsys["profile_command"][1] == "profile"
    assert not {"nsys.sqlite", "nsys.log"} & set(record.files or [])
    assert [r.changed for r in rederive(tmp_path)] == [False]
    # a later call with the same failing nsys tries again, and says so
    again = _session(tmp_path, None, nsys=NsysSettings(str(failing), 60)).skip(_config())
    assert again is not None and again.detail == "re-profiled (timing kept); nsys-failed"
    # without --nsys, nothing is profiled: it is skipped
    skipped = _session(tmp_path, None).skip(_config())
    assert skipped is not None and skipped.status == "skipped"
