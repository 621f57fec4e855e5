"""A run's compile time, measured memory and energy, from its blocks' records: what
run.json's `compile`, `memory` and `energy` say (the findings they raise:
findings/resource_checks.py)."""

from __future__ import annotations

import statistics
from typing import Any

from generator.analysis.thresholds import MEMORY_MISMATCH_FACTOR
from generator.measure.compiled import PHASES_NOTE


def compile_summary(blocks: list[dict[str, Any] | None], mode: str) -> dict[str, Any] | None:
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


def memory_summary(blocks: list[dict[str, Any] | None], analytic: dict[str, Any]) -> dict[str, Any]:
    """The median over blocks of the step's measured bytes, beside the analytic total."""
    known = [b for b in blocks if b is not None and b.get("step_bytes") is not None]
    if not known:
        return with_footprint({"measured": None, "why": "not measured"}, analytic)
    measured = {
        **{k: v for k, v in known[-1].items() if k.endswith(("method", "window"))},
        "step_bytes": statistics.median(int(b["step_bytes"]) for b in known),
        "max_step_bytes": max(int(b["step_bytes"]) for b in known),
        "blocks": len(known),
    }
    return with_footprint({"measured": measured}, analytic) | {
        "mismatch_factor": MEMORY_MISMATCH_FACTOR
    }


def with_footprint(memory: dict[str, Any], analytic: dict[str, Any]) -> dict[str, Any]:
    """run.json's `memory` with another analytic footprint (counted again) and its ratio."""
    measured, total = memory.get("measured"), analytic["total_bytes"]
    ratio = measured["step_bytes"] / total if measured and total else None
    return {**memory, "analytic": analytic, **({"ratio": ratio} if measured else {})}
