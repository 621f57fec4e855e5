"""Nsight Systems' binary report (`.nsys-rep`, `.qdrep` before 2021): only nsys itself reads
it. With an `nsys` on PATH (or `--nsys PATH`) the report is exported to a temporary SQLite
file, which the SQLite path reads; without one, or with an nsys too old for the report, the
error gives the exact command and the nsys version the report needs.

The report's first bytes name the nsys that wrote it: `NVIDIA Tegra Profiler Report
2024@4@1@61-244134315967`. An nsys reads reports of its own version and older ones only
(Debian bookworm's 2022.4.2 fails on those from 2023.1 on, "Version number is invalid").
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from generator.errors import UserError
from generator.ingest.sniff import starts_with

MAGIC = b"NVIDIA Tegra Profiler Report "
_WRITER = re.compile(rb"(\d{4})@(\d+)@(\d+)(?:@(\d+))?")
_NSYS_VERSION = re.compile(r"(\d{4})\.(\d+)\.(\d+)(?:\.(\d+))?")
EXPORT_TIMEOUT_S = 600


def looks_like_nsys_report(path: Path) -> bool:
    """A binary Nsight Systems report, by its first bytes."""
    return starts_with(path, MAGIC)


def writer_version(path: Path) -> str | None:
    """The nsys version that wrote the report ("2024.4.1.61"), from its first bytes."""
    with path.open("rb") as handle:
        head = handle.read(256)
    found = _WRITER.search(head[len(MAGIC) :]) if head.startswith(MAGIC) else None
    return ".".join(g.decode() for g in found.groups() if g is not None) if found else None


def export_command(nsys: str, report: Path, output: Path) -> list[str]:
    """nsys's own conversion: every table, overwriting a stale output."""
    return [
        nsys,
        "export",
        "--type",
        "sqlite",
        "--force-overwrite",
        "true",
        "--output",
        str(output),
        str(report),
    ]


def user_command(report: Path) -> str:
    return f"nsys export --type sqlite --output {report.with_suffix('.sqlite').name} {report.name}"


def find_nsys(given: str | None) -> str | None:
    """`--nsys PATH`, else the nsys on PATH, else None."""
    if given:
        found = shutil.which(given)
        if found is None:
            raise UserError(
                f"--nsys {given}: no such executable",
                key="--nsys",
                fix="give the path of the nsys program (e.g. /opt/nvidia/nsight-systems/"
                "2025.1.1/bin/nsys), or leave --nsys out to use the one on PATH",
            )
        return found
    return shutil.which("nsys")


def _needs(version: str | None) -> str:
    return f"nsys {version} or newer" if version else "an nsys as new as the one that wrote it"


@contextmanager
def exported(report: Path, nsys_option: str | None = None) -> Iterator[Path]:
    """The report as an SQLite export in a temporary folder, removed afterwards. Raises
    UserError when no nsys can export it, with the command to run where one can."""
    version = writer_version(report)
    nsys = find_nsys(nsys_option)
    if nsys is None:
        raise UserError(
            f"this is a binary Nsight Systems report (written by nsys {version or 'unknown'}); "
            "only nsys can read it, and none is on PATH",
            file=report,
            fix=f"export it with {_needs(version)}: {user_command(report)}, and pass the "
            ".sqlite file; or put that nsys on PATH (or pass --nsys PATH)",
        )
    with tempfile.TemporaryDirectory(prefix="ra-nsys-") as folder:
        output = Path(folder) / report.with_suffix(".sqlite").name
        command = export_command(nsys, report, output)
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=EXPORT_TIMEOUT_S, check=False
            )
        except subprocess.TimeoutExpired:
            raise UserError(
                f"nsys export ran for over {EXPORT_TIMEOUT_S} s and was stopped",
                file=report,
                fix=f"export it yourself, then pass the .sqlite file: {user_command(report)}",
            ) from None
        if done.returncode != 0 or not output.is_file():
            said = _last_line(done.stderr or done.stdout)
            raise UserError(
                f"{nsys} could not export the report (written by nsys {version or 'unknown'}"
                f"; this nsys is {_nsys_version(nsys) or 'of unknown version'}): {said}",
                file=report,
                fix=f"export it with {_needs(version)}: {user_command(report)}, and pass the "
                ".sqlite file (or --nsys PATH of that nsys)",
            )
        yield output


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no message"


def _nsys_version(nsys: str) -> str | None:
    try:
        done = subprocess.run(
            [nsys, "--version"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = _NSYS_VERSION.search(done.stdout)
    return found.group(0) if found else None
