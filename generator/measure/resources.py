"""A run's compile time, measured memory and energy, from its blocks' records: what
run.json's `compile`, `memory` and `energy` say (the findings they raise:
findings/resource_checks.py)."""

from __future__ import annotations

import statistics
from typing import TypedDict

from generator.analysis.thresholds import MEMORY_MISMATCH_FACTOR
from generator.measure.compiled import PHASES_NOTE
from generator.records.run_parts import (
    BlockCompile,
    BlockEnergy,
    BlockMemory,
    CompileSummary,
    Footprint,
    MeasuredMemory,
    MemorySummary,
)


class BlockResources(TypedDict):
    """What one block measured besides its steps (`measure.block.BlockResult`)."""

    compile: BlockCompile | None
    memory: BlockMemory | None
    energy: BlockEnergy | None


def compile_summary(blocks: list[BlockCompile | None], mode: str) -> CompileSummary | None:
    """The compile time of the first block (cold: nothing cached yet) and of the others
    (warm: inductor's cache from the first), the graphs, and the recompiles."""
    records = [b for b in blocks if b is not None]
    if not records:
        return None
    cold = records[0]
    warm = [b["compile_s"] for b in records[1:]]
    return {
        "mode": mode,
        "cold_compile_s": cold["compile_s"],
        "cold_cache": cold.get("cache", {}),
        "warm_compile_s": statistics.median(warm) if warm else None,
        "warm_cache": records[-1].get("cache", {}) if warm else None,
        "graphs": max(b["graphs"] for b in records),
        "graph_breaks": max(b.get("graph_breaks", 0) for b in records),
        "recompiles_in_warmup": sum(b["recompiles_in_warmup"] for b in records),
        "recompiles_during_timing": sum(b["recompiles_during_timing"] for b in records),
        "cache_shared": "inductor's FX graph and AOTAutograd caches (TORCHINDUCTOR_CACHE_DIR), "
        "one folder per configuration for one measure call: the first block compiles cold",
        "phases": PHASES_NOTE,
    }


def memory_summary(blocks: list[BlockMemory | None], analytic: Footprint) -> MemorySummary:
    """The median over blocks of the step's measured bytes, beside the analytic total."""
    known = [
        (b, int(step))
        for b in blocks
        if b is not None and (step := b.get("step_bytes")) is not None
    ]
    if not known:
        return with_footprint({"measured": None, "why": "not measured"}, analytic)
    last = known[-1][0]
    measured: MeasuredMemory = {}
    if "method" in last:
        measured["method"] = last["method"]
    if "peak_window" in last:
        measured["peak_window"] = last["peak_window"]
    measured["step_bytes"] = statistics.median(step for _, step in known)
    measured["max_step_bytes"] = max(step for _, step in known)
    measured["blocks"] = len(known)
    return with_footprint({"measured": measured}, analytic) | {
        "mismatch_factor": MEMORY_MISMATCH_FACTOR
    }


def with_footprint(memory: MemorySummary, analytic: Footprint) -> MemorySummary:
    """run.json's `memory` with another analytic footprint (counted again) and its ratio."""
    measured, total = memory.get("measured"), analytic["total_bytes"]
    ratio = measured["step_bytes"] / total if measured and total else None
    return {**memory, "analytic": analytic, **({"ratio": ratio} if measured else {})}
