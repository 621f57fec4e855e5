"""`measure --nsys` on a CPU machine: its commands, its refusals, and the run files it
writes, with a stand-in `nsys` that answers as the real one is documented to (it writes the
report, then the SQLite export)."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from generator.cli import main
from generator.config import RunConfig
from generator.errors import UserError
from generator.measure import nsys
from generator.measure.profilers import NSYS_FILE, NsysSettings, _run_nsys
from generator.summaries.nsys import summarize_nsys
from tests.nsys_sqlite import training_steps


def test_the_profile_command_records_the_bracketed_step(tmp_path: Path) -> None:
    command = nsys.profile_command("nsys", tmp_path / "profile", tmp_path / "c.json", "py")
    assert command[:2] == ["nsys", "profile"]
    flags = dict(zip(command[2:12:2], command[3:12:2], strict=True))
    assert flags == {
        "--trace": "cuda,nvtx,osrt",
        "--capture-range": "cudaProfilerApi",  # the child's cudaProfilerStart/Stop
        "--capture-range-end": "stop",
        "--output": str(tmp_path / "profile"),
        "--force-overwrite": "true",
    }
    assert command[12:] == ["py", "-m", "generator.measure.ncu_child", str(tmp_path / "c.json")]
    export = nsys.export_command("nsys", tmp_path / "profile", tmp_path / "x.sqlite")
    assert export[:4] == ["nsys", "export", "--type", "sqlite"]
    assert export[-1] == f"{tmp_path / 'profile'}.nsys-rep" and str(tmp_path / "x.sqlite") in export


def test_nsys_mode_says_why_it_cannot_run(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UserError, match="needs a CUDA device") as raised:
        nsys.find_nsys(device_available=False)
    assert raised.value.key == "--nsys"
    monkeypatch.setenv("PATH", "")
    with pytest.raises(UserError, match="`nsys` on PATH"):
        nsys.find_nsys(device_available=True)


def _stand_in(folder: Path, export: Path, status: int = 0) -> str:
    """An `nsys` that writes OUTPUT.nsys-rep for `profile` and copies `export` to the
    --output of `export`, or fails with `status`."""
    script = folder / "nsys"
    script.write_text(
        f"#!{sys.executable}\n"
        "import shutil, sys\n"
        "args = sys.argv[1:]\n"
        f"if {status}:\n"
        "    print('==ERROR== no CUDA driver', file=sys.stderr)\n"
        f"    sys.exit({status})\n"
        "out = args[args.index('--output') + 1]\n"
        "if args[0] == 'profile':\n"
        "    open(out + '.nsys-rep', 'w').write('report')\n"
        "    print('Generated: ' + out + '.nsys-rep')\n"
        "else:\n"
        f"    shutil.copy({str(export)!r}, out)\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def _config() -> RunConfig:
    return RunConfig(
        group="X", model="resnet18", dataset="cifar10", batch=8, phase="train_step",
        precision="fp32", device="cuda", input_shape=(3, 32, 32), classes=10, warmup=2,
        iterations=5, repeats=1, seed=0, optimizer="sgd", learning_rate=0.01, profile=False,
    )  # fmt: skip


def test_a_run_keeps_its_export_and_the_commands(tmp_path: Path) -> None:
    export = training_steps().write(tmp_path / "made.sqlite")
    run = tmp_path / "run"
    run.mkdir()
    settings = NsysSettings(_stand_in(tmp_path, export), timeout_s=60)
    recorded = _run_nsys(_config(), run, settings)
    assert sorted(p.name for p in run.iterdir()) == ["nsys.log", NSYS_FILE]  # no report left
    assert recorded["profile_command"][1] == "profile" and recorded["export_command"][1] == "export"
    assert "Generated:" in (run / "nsys.log").read_text(encoding="utf-8")
    summary = summarize_nsys([run / NSYS_FILE])
    assert (
        summary["form"] == "SQLite export" and summary["gpus"][0]["name"] == "NVIDIA H100 80GB HBM3"
    )


def test_a_failing_nsys_is_reported_with_its_words(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    settings = NsysSettings(_stand_in(tmp_path, tmp_path / "none", status=2), timeout_s=60)
    with pytest.raises(nsys.NsysFailed, match="status 2: ==ERROR== no CUDA driver"):
        _run_nsys(_config(), run, settings)


def test_nsys_is_refused_on_slurm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = Path(__file__).resolve().parents[1] / "measurements" / "experiments.toml"
    code = main(["measure", "--config", str(config), "--nsys", "--executor", "slurm",
                 "--measurements", str(tmp_path)])  # fmt: skip
    assert code == 1
    assert "--nsys records on this machine only" in capsys.readouterr().err


def test_run_json_takes_the_nsys_commands() -> None:
    from generator.records.run import Measured

    fields = Measured.model_fields
    assert "nsys" in fields and json.dumps(fields["nsys"].default) == "null"
