"""ncu mode: profile exactly one training step, after warmup, in a child process.

PyTorch runs backward on its own thread, so per-thread NVTX ranges would miss it: the
child brackets the step with cudaProfilerStart/Stop (`--profile-from-start off`) and the
phase ranges are pushed with process scope (`--nvtx-push-pop-scope process`)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from generator.errors import UserError
from generator.ingest.metric_map import METRIC_COLUMNS

# Recorded with the run: base clocks and flushed caches make kernels slower than in a
# normal run, and a reader must know which was used.
CLOCK_CONTROL = "base"
CACHE_CONTROL = "all"


def ncu_metrics() -> list[str]:
    """Every name the ingest maps (all aliases: ncu answers n/a for names a GPU lacks)."""
    names: list[str] = []
    for column in METRIC_COLUMNS:
        for alias in column.aliases:
            if alias not in names:
                names.append(alias)
    return names


def profile_command(
    ncu: str, report: Path, config_json: Path, python: str | None = None
) -> list[str]:
    """The ncu command that runs the child step under the profiler."""
    return [
        ncu,
        "--target-processes", "all",
        "--profile-from-start", "off",
        "--nvtx",
        "--nvtx-push-pop-scope", "process",
        "--clock-control", CLOCK_CONTROL,
        "--cache-control", CACHE_CONTROL,
        "--metrics", ",".join(ncu_metrics()),
        "--export", str(report),
        "--force-overwrite",
        python or sys.executable, "-m", "generator.measure.ncu_child", str(config_json),
    ]  # fmt: skip


def export_command(ncu: str, report: Path) -> list[str]:
    """Turns the report into the long CSV layout the ingest reads (written to ncu.csv)."""
    return [ncu, "--import", str(report), "--csv", "--page", "details"]


def find_ncu(device_available: bool) -> str:
    """The ncu executable, or a UserError saying why ncu mode cannot run here."""
    if not device_available:
        raise UserError(
            "--ncu needs a CUDA device, and this machine has none",
            key="--ncu",
            fix="run `nox -s measure -- --ncu` on a GPU machine, or import an ncu CSV "
            "collected elsewhere into measurements/imported/",
        )
    ncu = shutil.which("ncu")
    if ncu is None:
        raise UserError(
            "--ncu needs Nsight Compute's `ncu` on PATH, and it is not there",
            key="--ncu",
            fix="install Nsight Compute (it comes with the CUDA toolkit) and add its folder to PATH",
        )
    return ncu
