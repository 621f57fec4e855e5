"""What a run's compile record and measured memory say (run.json's `compile` and
`memory`, measure/resources.py): a model that compiled again while it was timed, and a
measured peak far from the analytic footprint."""

from __future__ import annotations

from typing import Any

from generator.analysis.thresholds import MEMORY_MISMATCH_FACTOR
from generator.formatting import number
from generator.records.finding import Finding


def resource_findings(compiled: dict[str, Any] | None, memory: dict[str, Any]) -> list[Finding]:
    found = []
    if compiled and compiled["recompiles_during_timing"]:
        found.append(Finding(
            "recompiled", "warning", "The model recompiled during the timed steps",
            f"dynamo compiled {compiled['recompiles_during_timing']} new graph(s) while the "
            "steps were timed: their compile time is inside the step times",
            "find what changes between calls (TORCH_LOGS=recompiles) and keep it fixed",
        ))  # fmt: skip
    ratio = memory.get("ratio")
    factor = MEMORY_MISMATCH_FACTOR
    if ratio is not None and not 1 / factor <= ratio <= factor:
        measured = memory["measured"]
        found.append(Finding(
            "memory-mismatch", "info", "Measured memory is far from the analytic footprint",
            f"the step's measured peak ({number(measured['step_bytes'] / 2**20, 3)} MiB, "
            f"{measured.get('method', '')}) is {number(ratio, 3)}× its analytic footprint "
            f"({number(memory['analytic']['total_bytes'] / 2**20, 3)} MiB), outside "
            f"1/{factor:g}..{factor:g}",
            "above: allocator pools, workspaces and loaded kernels the count leaves out (they "
            "dominate a small model); below: activations freed or recomputed early",
        ))  # fmt: skip
    return found
