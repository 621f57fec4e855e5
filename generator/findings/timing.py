"""The checks of a measured run's step times: noisy, or drifting over the run."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from generator.findings.finding import (
    DRIFT_MIN_SHARE,
    DRIFT_T,
    MIN_ITERATIONS,
    NOISY_CV,
    Finding,
)
from generator.formatting import number, percent, si
from generator.measure.stats import linear_trend


def timing_findings(step_times: Sequence[float]) -> list[Finding]:
    """Noise and drift of a measured run's per-iteration step times."""
    n = len(step_times)
    if n < MIN_ITERATIONS:
        return [
            Finding(
                "noisy-timing",
                "warning",
                "Too few iterations for a confidence interval",
                f"{n} timed iteration(s); a bootstrap interval of the median needs at least "
                f"{MIN_ITERATIONS}",
                "raise `iterations` in measurements/experiments.toml",
            )
        ]
    findings = []
    mean = statistics.fmean(step_times)
    cv = statistics.stdev(step_times) / mean if mean else 0.0
    if cv > NOISY_CV:
        findings.append(
            Finding(
                "noisy-timing",
                "warning",
                "Noisy timing",
                f"coefficient of variation {percent(100 * cv)} over {n} iterations "
                f"(above {percent(100 * NOISY_CV)}): step times range from "
                f"{si(min(step_times), 's')} to {si(max(step_times), 's')}",
                "measure on a quiet machine (no other load, fixed CPU frequency), or raise "
                "`iterations`; compare runs only where their confidence intervals do not overlap",
            )
        )
    slope, t_value = linear_trend(step_times)
    change = abs(slope) * (n - 1) / statistics.median(step_times)
    if abs(t_value) > DRIFT_T and change > DRIFT_MIN_SHARE:
        direction = "rises" if slope > 0 else "falls"
        findings.append(
            Finding(
                "timing-drift",
                "warning",
                "Step time drifts across iterations",
                f"step time {direction} by {si(abs(slope), 's')} per iteration (t = "
                f"{number(t_value, 3)}), {percent(100 * change)} over {n} iterations",
                "rising: thermal or power throttling, or memory growth; falling: warm-up not "
                "finished (raise `warmup`)",
            )
        )
    return findings
