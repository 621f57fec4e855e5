"""What a finding is, as declared (`specs.py` holds every one): its id, severity, what it
catches, its usual fix, and the checks that raise it, each in the stage that runs it."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, cast

from generator.records.finding import Finding

Severity = Literal["error", "warning", "info"]


class Stage(StrEnum):
    """Where a finding's check runs."""

    EXPORT = "export"  # one ncu export: summarize, import, its report page
    TRACE = "trace"  # one torch.profiler trace: summarize, import, a run's profiled step
    NSYS = "nsys"  # one Nsight Systems (or rocprofv3) capture
    RANKS = "ranks"  # one multi-rank capture
    RUN = "run"  # a measured run's own files: measure writes them, rederive derives them again
    REPORT = "report"  # the report's check stage, across runs (site/check.py)


@dataclass(frozen=True)
class Check:
    """A function that raises a finding, as `module.function` under generator/findings/
    (named, not imported: the check imports its spec)."""

    stage: Stage
    function: str

    def resolve(self) -> Callable[..., list[Finding]]:
        module, name = self.function.rsplit(".", 1)
        found = getattr(importlib.import_module(f"generator.findings.{module}"), name)
        return cast("Callable[..., list[Finding]]", found)


@dataclass(frozen=True)
class FindingSpec:
    id: str
    severity: Severity
    catches: str  # what it means: the Findings page's row and `--help`
    fix: str  # the usual fix; a check may word one that fits its data better
    checks: tuple[Check, ...]
    milder: Severity | None = None  # a severity it is also raised at, by its check's rule

    def found(
        self, title: str, evidence: str, fix: str | None = None, *, milder: bool = False
    ) -> Finding:
        """This finding, with its evidence (and a fix fitting it, else the usual one)."""
        if milder and self.milder is None:
            raise ValueError(f"{self.id} has no milder severity")
        severity = self.milder if milder and self.milder else self.severity
        return Finding(self.id, severity, title, evidence, self.fix if fix is None else fix)

    def row(self, mark: str = "*") -> str:
        """What it catches after its severity, e.g. '*warning* or *info*: ...': the Findings
        page's words (and, with mark "", `--help`'s)."""
        severities = " or ".join(f"{mark}{s}{mark}" for s in (self.severity, self.milder) if s)
        return f"{severities}: {self.catches}"
