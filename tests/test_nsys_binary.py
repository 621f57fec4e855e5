"""Binary Nsight Systems reports (.nsys-rep, .qdrep): recognised by content, exported by the
nsys on PATH (or --nsys), or refused with nsys's own command and the version it needs.

No nsys that can export these reports installs here (Debian's 2022.4.2 is older than both
writers), so the export runs through a stand-in `nsys` that records its command line and
copies a real SQLite export, or fails with the message an old nsys prints."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from generator.cli import main
from generator.errors import UserError
from generator.ingest.nsys.binary import (
    export_command,
    exported,
    looks_like_nsys_report,
    writer_version,
)
from generator.records.import_source import NSYS_DIR

DATA = Path(__file__).parent / "data" / "nsys"
FLAGGEMS = DATA / "binary" / "FlagOpen__FlagGems__report1.nsys-rep"  # nsys 2024.4.1.61
CS336 = DATA / "binary" / "HalfEmptyDrum__cs336_assignment2__report1.nsys-rep"  # 2026.1.2.63
EXPORT = DATA / "NCAR__GPU_workshop__miniweather_baseline.sqlite"

# The last line nsys 2022.4.2 prints for a report from nsys 2024.4 (seen with Debian's nsys).
OLD_NSYS_SAYS = "Version number is invalid: 2024@4@1@61-244134315967v0"


def _stand_in(folder: Path, *, fails: bool = False) -> Path:
    """An `nsys` that logs its arguments, then writes `--output` from a real export (or
    fails as an nsys too old for the report does)."""
    log = folder / "nsys-calls.jsonl"
    script = folder / "nsys"
    body = (
        f"print({OLD_NSYS_SAYS!r}, file=sys.stderr); sys.exit(1)"
        if fails
        else f"shutil.copyfile({str(EXPORT)!r}, args[args.index('--output') + 1])"
    )
    script.write_text(
        "#!/usr/bin/env python3\n"
        "import json, shutil, sys\n"
        "args = sys.argv[1:]\n"
        "if args == ['--version']:\n"
        "    print('NVIDIA Nsight Systems version 2022.4.2.1-df9881f'); sys.exit(0)\n"
        f"with open({str(log)!r}, 'a') as log: log.write(json.dumps(args) + '\\n')\n"
        f"{body}\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def _calls(folder: Path) -> list[list[str]]:
    log = folder / "nsys-calls.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture
def no_nsys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return empty


def test_reports_are_told_apart_by_content_and_name_their_writer(tmp_path: Path) -> None:
    renamed = tmp_path / "capture.bin"
    shutil.copyfile(CS336, renamed)
    assert looks_like_nsys_report(renamed)
    assert not looks_like_nsys_report(EXPORT)
    assert writer_version(FLAGGEMS) == "2024.4.1.61"
    assert writer_version(CS336) == "2026.1.2.63"


def test_the_export_command_is_nsys_own() -> None:
    assert export_command("nsys", Path("r.nsys-rep"), Path("/tmp/x/r.sqlite")) == [
        "nsys",
        "export",
        "--type",
        "sqlite",
        "--force-overwrite",
        "true",
        "--output",
        "/tmp/x/r.sqlite",
        "r.nsys-rep",
    ]


def test_without_nsys_the_error_gives_the_command_and_version(no_nsys: Path) -> None:
    with pytest.raises(UserError) as error, exported(FLAGGEMS):
        pass
    text = str(error.value)
    command = "nsys export --type sqlite --output FlagOpen__FlagGems__report1.sqlite"
    assert f"{command} FlagOpen__FlagGems__report1.nsys-rep" in text
    assert "nsys 2024.4.1.61 or newer" in text
    assert "ncu" not in text.replace("nsys", "")  # never Nsight Compute's advice


def test_an_nsys_too_old_is_quoted_with_the_version_needed(tmp_path: Path) -> None:
    old = _stand_in(tmp_path, fails=True)
    with pytest.raises(UserError) as error, exported(FLAGGEMS, str(old)):
        pass
    text = str(error.value)
    assert OLD_NSYS_SAYS in text
    assert "this nsys is 2022.4.2.1" in text
    assert "nsys 2024.4.1.61 or newer" in text


def test_a_missing_nsys_option_is_a_user_error(tmp_path: Path) -> None:
    with (
        pytest.raises(UserError, match="--nsys"),
        exported(FLAGGEMS, str(tmp_path / "no-such-nsys")),
    ):
        pass


def test_summarize_exports_through_nsys_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    _stand_in(tools)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    assert main(["summarize", "--json", str(CS336)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["form"] == "SQLite export"
    assert summary["kernels"]  # the export's kernels were read
    (call,) = _calls(tools)
    assert call[:6] == ["export", "--type", "sqlite", "--force-overwrite", "true", "--output"]
    assert call[-1] == str(CS336)
    assert not Path(call[6]).exists()  # the temporary export is gone


def test_import_keeps_the_binary_beside_its_export(tmp_path: Path) -> None:
    nsys = _stand_in(tmp_path)
    measurements = tmp_path / "measurements"
    argv = ["import", str(CS336), "--name", "cs336", "--device", "h100-sxm"]
    assert main([*argv, "--nsys", str(nsys), "--measurements", str(measurements)]) == 0
    stored = measurements / "imported" / "cs336" / NSYS_DIR
    export = CS336.with_suffix(".sqlite").name
    assert sorted(p.name for p in stored.iterdir()) == [CS336.name, export]
    assert (stored / CS336.name).read_bytes() == CS336.read_bytes()
    assert (stored / export).read_bytes() == EXPORT.read_bytes()


def test_the_imported_folder_reads_as_its_export(tmp_path: Path) -> None:
    """The report's build reads nsys/ as the capture: the binary beside the export is not a
    second file of it."""
    from generator.ingest.nsys.capture import read_nsys

    nsys = _stand_in(tmp_path)
    measurements = tmp_path / "measurements"
    argv = ["import", str(FLAGGEMS), "--name", "gems", "--device", "a100-40gb-sxm"]
    assert main([*argv, "--nsys", str(nsys), "--measurements", str(measurements)]) == 0
    capture = read_nsys([measurements / "imported" / "gems" / NSYS_DIR])
    assert capture.form == "SQLite export"
    assert [p.suffix for p in capture.files] == [".sqlite"]
