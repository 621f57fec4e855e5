"""nsys mode: record one profiled step (training or inference), after warmup, in a child
process under Nsight Systems, and keep its SQLite export as the run's `nsys.sqlite`.

The child is ncu mode's (`ncu_child`): it brackets the step with cudaProfilerStart/Stop,
so `--capture-range=cudaProfilerApi` records that step and nothing of the warmup, with an
NVTX range per phase. nsys needs no counter access, so this works where ncu is refused.
The export is what `summarize` and `import` read (`ingest/nsys/sqlite.py`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from generator.measure.ncu import find_profiler

TRACE = "cuda,nvtx,osrt"


def profile_command(
    nsys: str, report: Path, config_json: Path, python: str | None = None
) -> list[str]:
    """The nsys command that runs the child step under the profiler; `report` is the
    output path without its `.nsys-rep` suffix."""
    return [
        nsys, "profile",
        "--trace", TRACE,
        "--capture-range", "cudaProfilerApi",
        "--capture-range-end", "stop",
        "--output", str(report),
        "--force-overwrite", "true",
        python or sys.executable, "-m", "generator.measure.ncu_child", str(config_json),
    ]  # fmt: skip


def export_command(nsys: str, report: Path, sqlite: Path) -> list[str]:
    """Turns `report.nsys-rep` into the SQLite export the ingest reads."""
    return [
        nsys, "export", "--type", "sqlite", "--force-overwrite", "true",
        "--output", str(sqlite), f"{report}.nsys-rep",
    ]  # fmt: skip


def find_nsys(device_available: bool) -> str:
    """The nsys executable, or a UserError saying why nsys mode cannot run here."""
    return find_profiler(
        "nsys",
        "Nsight Systems",
        device_available,
        "import an nsys capture recorded elsewhere "
        "(`python -m generator import capture.sqlite --name ...`)",
    )


class NsysFailed(RuntimeError):
    """nsys exited non-zero or ran out of time; the message ends with its last lines."""


def run_nsys(command: list[str], timeout_s: float, log: Path | None = None) -> None:
    """Run an nsys command; its messages are appended to `log` when given."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise NsysFailed(f"nsys did not finish in {timeout_s:.0f} s") from None
    if log is not None:
        with log.open("a", encoding="utf-8") as file:
            file.write(f"$ {' '.join(command)}\n{done.stdout}{done.stderr}\n")
    if done.returncode != 0:
        lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
        tail = " | ".join(lines[-8:]) or "(no output)"
        raise NsysFailed(f"nsys exited with status {done.returncode}: {tail}")
