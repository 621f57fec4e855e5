"""A finding: a stable id, a severity, the evidence with its numbers, and the fix; the
thresholds the checks use, named so the methodology page and the tests can quote them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

FINDING_IDS = (
    "incomplete-step",
    "above-roof",
    "tensor-work-uncounted",
    "flops-mismatch",
    "fewer-flops-algorithm",
    "tensor-padding",
    "noisy-timing",
    "timing-drift",
    "throttled",
    "implausible-clock",
    "missing-metric",
    "missing-shapes",
    "uncounted-ops",
)

# Thresholds, named so the methodology page and the tests can quote them.
BACKWARD_KERNEL_RATIO = 1 / 3  # backward kernels below forward / 3: the range missed them
COUNTED_TO_ANALYTIC_MIN = 0.6  # counted training FLOPs below 60 % of the analytic count
ROOF_TOLERANCE = 1.05  # datasheet peaks are at boost clock; allow 5 % before calling it wrong
CLOCK_TOLERANCE = 1.10
TIME_AGREEMENT = 0.20  # |duration - cycles/clock| / duration
NOISY_CI = 0.03  # the median's 95 % interval wider than ±3 % of it: too imprecise to compare
THROTTLE_CLOCK_DROP = 0.10  # a GPU round's SM clock 10 % below the run's highest
MIN_ITERATIONS = 5
DRIFT_T = 3.0  # |slope / standard error|
UNCOUNTED_WARNING_SHARE = 0.05  # uncounted kernel time above 5 % of the trace: a warning
DRIFT_MIN_SHARE = 0.02  # and the trend moves the step by at least 2 % over the run


@dataclass(frozen=True)
class Finding:
    id: str
    severity: str  # "error", "warning" or "info"
    title: str
    evidence: str
    fix: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def findings_json(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    return [finding.as_dict() for finding in findings]
