"""A finding as it is stored (run.json, `summarize --json`) and shown: a stable id, a
severity, the evidence with its numbers, and the fix. Every finding is declared once in
`findings/specs.py`; the checks that raise them live in `findings/`, their thresholds in
`analysis/thresholds.py`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass


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


def findings_json(findings: Sequence[Finding]) -> list[dict[str, str]]:
    return [finding.as_dict() for finding in findings]


def finding_lines(findings: Sequence[Mapping[str, str]]) -> list[str]:
    """The findings as `summarize` prints them (findings_json's objects), under any summary:
    severity, id and title, then the evidence and the fix."""
    lines = []
    for finding in findings:
        lines.append(f"  {finding['severity']:<8} [{finding['id']}] {finding['title']}")
        lines.append(f"           evidence: {finding['evidence']}")
        lines.append(f"           fix: {finding['fix']}")
    return lines
