"""A run timed while other processes held the CPU: its blocks' conditions name the busy
processes (`measure/conditions.BusyProcesses`, sampled over each block), and a block whose
other processes used a material share of a core is contended. On a 2-core machine a
compiled (OpenMP) step then waits on every parallel region's barrier for a descheduled
thread: on this VM such blocks ran 10 to 190 times slower than quiet ones."""

from __future__ import annotations

import statistics

import polars as pl

from generator.analysis.per_workload import blocks_by_number
from generator.analysis.thresholds import CONTENDED_CORE_SHARE, CONTENDED_SLOWDOWN
from generator.findings.specs import CONTENDED_BLOCKS
from generator.formatting import number, percent
from generator.records.finding import Finding
from generator.records.run_parts import ConditionsSample, RunConditions


def _share(block: ConditionsSample) -> float:
    """Other processes' CPU over the block, in cores (100 % = one core)."""
    return sum(float(p["cpu_percent"]) for p in block.get("busy_processes") or ()) / 100


def _block_medians(steps: pl.DataFrame) -> dict[int, float]:
    return {b: statistics.median(t) for b, t in blocks_by_number(steps).items()}


def _key(block: ConditionsSample) -> int:
    return int(block["block"])


def contention_findings(
    conditions: RunConditions | None, steps: pl.DataFrame | None
) -> list[Finding]:
    """`contended-blocks`: blocks during which other processes used at least
    CONTENDED_CORE_SHARE of a core, with how much slower their median step was than the
    quiet blocks' (where both exist; nothing when it was under CONTENDED_SLOWDOWN: short
    blocks catch a kernel thread's burst that the step never felt). Runs without blocks or
    busy-process samples: nothing."""
    blocks = [b for b in (conditions or {}).get("blocks") or () if "busy_processes" in b]
    contended = [b for b in blocks if _share(b) >= CONTENDED_CORE_SHARE]
    if not contended:
        return []
    names = sorted({p["name"] for b in contended for p in b.get("busy_processes") or ()})
    low, high = (percent(100 * f(map(_share, contended))) for f in (min, max))
    evidence = (
        f"{len(contended)} of {len(blocks)} blocks ran while other processes "
        f"({', '.join(names)}) used {low if low == high else f'{low} to {high}'} of a core"
    )
    medians = _block_medians(steps) if steps is not None else {}
    hit = [medians[_key(b)] for b in contended if _key(b) in medians]
    quiet = [medians[_key(b)] for b in blocks if b not in contended and _key(b) in medians]
    if hit and quiet:
        ratio = statistics.median(hit) / statistics.median(quiet)
        if ratio < CONTENDED_SLOWDOWN:  # the contention does not show in the step times
            return []
        evidence += f"; their median step is {number(ratio)}× the quiet blocks'"
    if len(medians) > len(blocks):  # a `measure --force` before 2026-11-27 kept its own only
        evidence += (
            f" (other processes were sampled in {len(blocks)} of its {len(medians)} blocks; "
            "the others were not judged)"
        )
    return [
        CONTENDED_BLOCKS.found(
            "Timed while other processes used the CPU",
            evidence,
        )
    ]
