"""A run page's lines on its profilers (run.json's `ncu` and `nsys` blocks,
measure/profilers.py): how ncu replayed the step and whether it locked the clocks, which
changes kernel times, and a profiler that failed (its message is the run's finding)."""

from __future__ import annotations

from generator.records.run import RunRecord

CLOCKS = {"base": "clocks locked to base", "none": "clocks as found"}


def profiler_facts(record: RunRecord) -> list[tuple[str, str]]:
    facts = []
    if record.ncu:
        ncu = record.ncu
        clocks = CLOCKS.get(str(ncu.get("clock_control")), "clock control not recorded")
        mode = ncu.get("replay_mode") or "kernel"
        done = "failed (the finding ncu-failed)" if ncu.get("failed") else "profiled"
        facts.append(("Nsight Compute profile", f"{done}: {mode} replay, {clocks}"))
    if record.nsys:
        failed = record.nsys.get("failed")
        facts.append(("Nsight Systems capture", "failed (the finding nsys-failed)" if failed
                      else "recorded (nsys.sqlite)"))  # fmt: skip
    return facts
