"""What a run's compile record and measured memory say (run.json's `compile` and
`memory`, measure/resources.py): a model that compiled again while it was timed, and a
measured peak far from the analytic footprint. Both are RUN checks (run_checks)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.analysis.thresholds import MEMORY_MISMATCH_FACTOR
from generator.findings.run_checks import RunEvidence
from generator.findings.specs import MEMORY_MISMATCH, RECOMPILED
from generator.formatting import number
from generator.records.finding import Finding


def recompiled(run: RunEvidence) -> list[Finding]:
    compiled = run.compiled
    if not compiled or not compiled["recompiles_during_timing"]:
        return []
    return [RECOMPILED.found(
        "The model recompiled during the timed steps",
        f"dynamo compiled {compiled['recompiles_during_timing']} new graph(s) while the "
        "steps were timed: their compile time is inside the step times",
    )]  # fmt: skip


def memory_mismatch(run: RunEvidence) -> list[Finding]:
    memory = run.memory
    ratio = memory.get("ratio")
    factor = MEMORY_MISMATCH_FACTOR
    if ratio is None or 1 / factor <= ratio <= factor:
        return []
    measured = memory["measured"]
    return [MEMORY_MISMATCH.found(
        "Measured memory is far from the analytic footprint",
        f"the step's measured peak ({number(measured['step_bytes'] / 2**20, 3)} MiB, "
        f"{measured.get('method', '')}) is {number(ratio, 3)}× its analytic footprint "
        f"({number(memory['analytic']['total_bytes'] / 2**20, 3)} MiB), outside "
        f"1/{factor:g}..{factor:g}",
    )]  # fmt: skip


def resource_findings(
    compiled: Mapping[str, Any] | None, memory: Mapping[str, Any]
) -> list[Finding]:
    """Both, from run.json's `compile` and `memory` blocks."""
    run = RunEvidence(compiled=compiled, memory=memory)
    return [*recompiled(run), *memory_mismatch(run)]
