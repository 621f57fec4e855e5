"""A finding as it is stored (run.json, `summarize --json`) and shown: a stable id, a
severity, the evidence with its numbers, and the fix. The checks that raise them live in
`findings/`; their thresholds in `analysis/thresholds.py`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

FINDING_IDS = (
    "incomplete-step",
    "above-roof",
    "bytes-upper-bound",
    "above-ceiling",
    "not-reproduced",
    "tensor-work-uncounted",
    "fp16-tensor-pipe",
    "flops-mismatch",
    "fewer-flops-algorithm",
    "tensor-padding",
    "noisy-timing",
    "timing-drift",
    "throttled",
    "contended-blocks",
    "implausible-clock",
    "missing-metric",
    "missing-shapes",
    "uncounted-ops",
    "profiler-overhead",
    "recompiled",
    "memory-mismatch",
    "straggler-rank",
    "exposed-communication",
    "rank-problem",
    "host-bound",
    "launch-overhead",
    "h2d-copies",
    "dominant-kernel",
    "ncu-failed",
    "nsys-failed",
    "unexplained-comparison",
)


@dataclass(frozen=True)
class Finding:
    id: str
    severity: str  # "error", "warning" or "info"
    title: str
    evidence: str
    fix: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def stored_findings(stored: Sequence[dict[str, str]] | None, *ids: str) -> tuple[Finding, ...]:
    """Findings as a file holds them (run.json's `findings`), those with the given ids only
    when ids are given."""
    return tuple(Finding(**f) for f in stored or () if not ids or f["id"] in ids)


def findings_json(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    return [finding.as_dict() for finding in findings]
