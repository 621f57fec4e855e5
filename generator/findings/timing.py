"""The checks of a measured run's step times (an imprecise median, drift over the run) and
of the conditions it ran under (a GPU whose clocks dropped)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from generator.analysis.interval import Interval
from generator.analysis.results import estimate, precise_enough
from generator.analysis.thresholds import (
    DRIFT_MIN_SHARE,
    DRIFT_T,
    MIN_ITERATIONS,
    NOISY_CI,
    THROTTLE_CLOCK_DROP,
)
from generator.findings.specs import NOISY_TIMING, THROTTLED, TIMING_DRIFT
from generator.formatting import number, percent, si
from generator.hierarchical import Levels
from generator.records.finding import Finding
from generator.records.run_parts import RunConditions
from generator.stats import linear_trend

# NVML throttle reasons (`measure/conditions.THROTTLE_BITS` names, as run.json records
# them) that mean the GPU ran slower than it could while the step ran.
SLOWDOWN = frozenset(
    {"sw_power_cap", "hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown",
     "hw_power_brake_slowdown"}
)  # fmt: skip

# Why a run stopped before its interval reached the target (run.json timing.stopped_by).
_STOPPED = {
    "iterations": "it reached `max_iterations` first",
    "time": "it reached `max_seconds` first",
    "rounds": "its group has no stopping rule (`ci_target = 0`)",
    "blocks": "its group has no stopping rule (`ci_target = 0`)",
    "max_blocks": "it reached `max_blocks` first",
}


def timing_findings(
    step_times: Sequence[float], stopped_by: str | None = None, stated: Interval | None = None
) -> list[Finding]:
    """Precision and drift of a measured run's per-iteration step times. The noise that
    matters for a comparison is the median's uncertainty, not the spread of single steps:
    a CV of 8 % over 400 steps still pins the median to about ±1 %. Precision is judged on
    `stated` (`results.judged`: the interval the report states for the run's configuration,
    else the run's own) by `results.precise_enough`; without one, on the run's own steps by
    the same rule."""
    n = len(step_times)
    if n < MIN_ITERATIONS:
        return [
            NOISY_TIMING.found(
                "Too few iterations for a confidence interval",
                f"{n} timed iteration(s); a bootstrap interval of the median needs at least "
                f"{MIN_ITERATIONS}",
                "raise `iterations` in measurements/experiments.toml",
            )
        ]
    findings = []
    stated = (
        stated
        if stated is not None and stated.bounded
        else estimate([list(step_times)], False, 0.0)
    )
    if not precise_enough(stated):
        assert stated.low is not None and stated.high is not None
        cv = statistics.stdev(step_times) / statistics.fmean(step_times)
        why = f"; it stopped there because {_STOPPED[stopped_by]}" if stopped_by in _STOPPED else ""
        findings.append(
            NOISY_TIMING.found(
                "Imprecise median",
                f"the median step time's 95 % interval ({stated.kind_words()}) is "
                f"±{percent(100 * (stated.half_width or 0.0))} ({si(stated.low, 's')} to "
                f"{si(stated.high, 's')}; above ±{percent(100 * NOISY_CI)}); this run's {n} "
                f"iterations have a CV of {percent(100 * cv)}{why}",
                "measure again with more iterations (`max_seconds`, `max_iterations`) on a quiet "
                "machine; compare this run only where intervals do not overlap",
            )
        )
    slope, t_value = linear_trend(step_times)
    change = abs(slope) * (n - 1) / statistics.median(step_times)
    if abs(t_value) > DRIFT_T and change > DRIFT_MIN_SHARE:
        direction = "rises" if slope > 0 else "falls"
        findings.append(
            TIMING_DRIFT.found(
                "Step time drifts across iterations",
                f"step time {direction} by {si(abs(slope), 's')} per iteration (t = "
                f"{number(t_value, 3)}), {percent(100 * change)} over {n} iterations",
            )
        )
    return findings


def blocks_timing_findings(
    stated: Interval, levels: Levels, stopped_by: str | None = None
) -> list[Finding]:
    """The precision of a result timed in blocks: judged on `stated` (`results.judged`: the
    interval the report states for it, across blocks), which holds the noise between
    processes, not on its pooled iterations; `levels`: the run's variation at each level.
    Drift within a call shows up as between-block variation, so there is no trend over the
    concatenated blocks to judge."""
    if precise_enough(stated):
        return []
    assert stated.low is not None and stated.high is not None
    low, high = stated.low, stated.high
    why = f"; it stopped there because {_STOPPED[stopped_by]}" if stopped_by in _STOPPED else ""
    return [
        NOISY_TIMING.found(
            "Imprecise step time",
            f"the step time's 95 % interval ({stated.kind_words()}) is "
            f"±{percent(100 * (stated.half_width or 0.0))} ({si(low, 's')} to {si(high, 's')}; "
            f"above ±{percent(100 * NOISY_CI)}): its blocks differ by "
            f"{percent(100 * levels.between_block_cv)} between processes and its "
            f"steps by {percent(100 * levels.within_block_cv)} within one{why}",
            "measure again with more blocks (`max_blocks`, `max_seconds`) on a quiet machine; "
            "compare this result only where intervals do not overlap",
        )
    ]


def throttle_findings(conditions: RunConditions | None) -> list[Finding]:
    """A GPU run whose clocks dropped while it was timed: NVML named a slowdown reason
    (power cap, thermal, hardware slowdown) in a round, or a round's SM clock fell more than
    THROTTLE_CLOCK_DROP below the run's highest. Runs without GPU samples say nothing."""
    periods = (conditions or {}).get("rounds") or (conditions or {}).get("blocks") or []
    samples = [r["gpu"] for r in periods if r.get("gpu")]
    if not samples:
        return []
    reasons = sorted({x for s in samples for x in s.get("throttle_reasons", []) if x in SLOWDOWN})
    clocks = [s["sm_clock_mhz"] for s in samples if s.get("sm_clock_mhz")]
    dropped = bool(clocks) and min(clocks) < (1 - THROTTLE_CLOCK_DROP) * max(clocks)
    if not reasons and not dropped:
        return []
    hit = sum(1 for s in samples if SLOWDOWN & set(s.get("throttle_reasons", [])))
    parts = []
    if reasons:
        parts.append(f"NVML reported {', '.join(reasons)} in {hit} of {len(samples)} rounds")
    if clocks:
        parts.append(f"SM clock {min(clocks)}–{max(clocks)} MHz across rounds")
    temperatures = [s["temperature_c"] for s in samples if s.get("temperature_c") is not None]
    if temperatures:
        parts.append(f"up to {max(temperatures)} °C")
    return [
        THROTTLED.found(
            "GPU clocks dropped during the run",
            "; ".join(parts),
        )
    ]
