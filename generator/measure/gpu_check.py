"""`python -m generator check-gpu`: before a long measurement on a GPU machine, say in one
command what is there (torch, CUDA, cuDNN, the GPU, its driver, ncu) and whether ncu may read
hardware counters. Without counter access `measure --ncu` fails on every run; the timing,
profiler-trace and ceilings paths still work, so the check says which paths are open."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from generator.measure.provenance import environment

# One small kernel, one counter: enough for ncu to prove it can read the hardware.
PROBE_SCRIPT = (
    "import torch; x = torch.ones(1 << 20, device='cuda'); "
    "print(float((x * 2).sum())); torch.cuda.synchronize()"
)
PROBE_METRIC = "sm__cycles_elapsed.avg"
# ncu prints this when the driver restricts counters to administrators.
PERMISSION_ERROR = "ERR_NVGPUCTRPERM"


def probe_command(ncu: str, python: str | None = None) -> list[str]:
    return [
        ncu, "--target-processes", "all", "--metrics", PROBE_METRIC,
        python or sys.executable, "-c", PROBE_SCRIPT,
    ]  # fmt: skip


def counter_access(output: str, returncode: int) -> tuple[bool, str]:
    """Read the probe's output: (counters readable, why not)."""
    if PERMISSION_ERROR in output:
        return False, (
            "the driver lets only administrators read GPU counters (ERR_NVGPUCTRPERM): run as "
            "root, or load the driver with NVreg_RestrictProfilingToAdminUsers=0"
        )
    if returncode == 0 and PROBE_METRIC in output:
        return True, ""
    errors = [line for line in output.splitlines() if "==ERROR==" in line]
    return False, (errors[-1] if errors else f"ncu exited with status {returncode}")


def _ncu_version(ncu: str) -> str | None:
    try:
        out = subprocess.run([ncu, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    return lines[-1].strip() if lines else None


def check_gpu(timeout_s: float = 300.0) -> dict[str, Any]:
    """What `measure` can do on this machine, as a dict (printed as JSON by the CLI)."""
    import torch

    cuda = torch.cuda.is_available()
    report: dict[str, Any] = {
        "cuda_available": cuda,
        "environment": environment("cuda" if cuda else "cpu", Path.cwd()),
    }
    if cuda:
        props = torch.cuda.get_device_properties(0)
        report["gpu"] = {
            "name": props.name,
            "multiprocessors": props.multi_processor_count,
            "memory_bytes": props.total_memory,
            "l2_cache_bytes": getattr(props, "L2_cache_size", None),
            "count": torch.cuda.device_count(),
        }
    ncu = shutil.which("ncu")
    report["ncu"] = {"path": ncu, "version": _ncu_version(ncu) if ncu else None}
    if cuda and ncu:
        try:
            done = subprocess.run(
                probe_command(ncu), capture_output=True, text=True, timeout=timeout_s
            )
            readable, why = counter_access(done.stdout + done.stderr, done.returncode)
        except subprocess.TimeoutExpired:
            readable, why = False, f"the ncu probe did not finish in {timeout_s:.0f} s"
        report["ncu"]["counter_access"] = readable
        if why:
            report["ncu"]["why_not"] = why
    report["paths"] = {
        "timing_and_trace": True,
        "cuda_timing": cuda,
        "ncu_counters": bool(report["ncu"].get("counter_access")),
    }
    return report
