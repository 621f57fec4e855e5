"""A profiler that failed on a measured run (run.json's `ncu` or `nsys` block holds its
`failed` message, measure/profilers.py): the run keeps its timing and lacks the counters or
the capture, and the fix says how to profile it again without timing it again. A warning,
not an error: the report's errors mark a number that is wrong, and this timing holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.findings.run_checks import RunEvidence
from generator.findings.specs import NCU_FAILED, NSYS_FAILED
from generator.records.finding import Finding

PROFILER_FAILED = (NCU_FAILED.id, NSYS_FAILED.id)
RANGE_REFUSAL = "not supported during range replay"


def ncu_failed(run: RunEvidence) -> list[Finding]:
    ncu = run.ncu
    if not ncu or not ncu.get("failed"):
        return []
    return [NCU_FAILED.found(
        "Nsight Compute failed: the run's timing is kept, its counters are missing",
        str(ncu["failed"]), _ncu_fix(ncu, run.group),
    )]  # fmt: skip


def nsys_failed(run: RunEvidence) -> list[Finding]:
    nsys = run.nsys
    if not nsys or not nsys.get("failed"):
        return []
    command = f"`nox -s measure -- --nsys --device cuda --group {run.group}`"
    return [NSYS_FAILED.found(
        "Nsight Systems failed: the run's timing is kept, its capture is missing",
        str(nsys["failed"]),
        f"{_cause(str(nsys['failed']), '--nsys-timeout')}, then {command} records it "
        "without timing it again",
    )]  # fmt: skip


def profiler_findings(
    ncu: Mapping[str, Any] | None, nsys: Mapping[str, Any] | None, group: str
) -> list[Finding]:
    """ncu-failed and nsys-failed, from the blocks run.json records (in that order)."""
    run = RunEvidence(ncu=ncu, nsys=nsys, group=group)
    return [*ncu_failed(run), *nsys_failed(run)]


def _ncu_fix(ncu: Mapping[str, Any], group: str) -> str:
    message = str(ncu["failed"])
    mode = str(ncu.get("replay_mode") or "range")
    flags = ["--ncu"]
    if RANGE_REFUSAL in message:
        cause = (
            "this Nsight Compute refused an option of the range-replay command (the "
            "commands in run.json's ncu.passes); today's commands pass none it refuses, or "
            "profile with kernel replay alone"
        )
        mode = "kernel"
    elif "clock" in message.lower():
        cause = "ncu may not set this GPU's clocks (a shared or cloud machine)"
        flags.append("--ncu-clock-control none")
    elif "ERR_NVGPUCTRPERM" in message:
        cause = (
            "ncu may not read this GPU's counters: `python -m generator check-gpu` says how "
            "to allow it"
        )
    else:
        cause = _cause(message, "--ncu-timeout")
    if mode != "range":
        flags.append(f"--ncu-replay {mode}")
    if ncu.get("clock_control") == "none" and "--ncu-clock-control none" not in flags:
        flags.append("--ncu-clock-control none")
    command = f"`nox -s measure -- {' '.join(flags)} --device cuda --group {group}`"
    return f"{cause}; then {command} re-profiles it without timing it again"


def _cause(message: str, timeout_flag: str) -> str:
    if "did not finish" in message:
        return f"give the profiler more time ({timeout_flag} SECONDS)"
    return "fix the cause in the profiler's message above"
