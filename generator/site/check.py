"""Stage 3, check: the findings that need more than one export's analysis. Each export's
own checks run with its analysis; here, the timing checks of every measured run."""

from __future__ import annotations

from dataclasses import dataclass

from generator.findings import Finding, timing_findings
from generator.site.analyse import Analysed


@dataclass(frozen=True)
class Checked:
    analysed: Analysed
    run_findings: dict[str, tuple[Finding, ...]]  # ok run -> its timing findings


def check(analysed: Analysed) -> Checked:
    step_times = analysed.loaded.step_times
    return Checked(analysed, {run: tuple(timing_findings(t)) for run, t in step_times.items()})
