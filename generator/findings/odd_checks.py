"""A comparison against its expected direction that nothing measured explains (a reduced
precision slower than fp32, a smaller batch slower per step than a larger one, a GPU slower
than the CPU, a backward pass faster than its forward; analysis/odd_ratios.py): the runs of
the step that should have been faster get a finding, which their pages show."""

from __future__ import annotations

from collections.abc import Iterable

from generator.analysis.odd_ratios import Odd
from generator.findings.specs import UNEXPLAINED_COMPARISON
from generator.records.finding import Finding


def unexplained(odd: Iterable[Odd]) -> dict[str, tuple[Finding, ...]]:
    """Run id -> its `unexplained-comparison` findings, one per such comparison."""
    found: dict[str, tuple[Finding, ...]] = {}
    for item in odd:
        if item.cause.explained:
            continue
        finding = UNEXPLAINED_COMPARISON.found(
            f"a {item.kind} comparison against its expected direction, unexplained",
            item.sentence(),
        )
        for run_id in item.expected.run_ids:
            found[run_id] = (*found.get(run_id, ()), finding)
    return found
