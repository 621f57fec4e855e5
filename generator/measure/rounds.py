"""Time a group's configurations in interleaved rounds until each median is precise enough.

One round of a configuration is a few untimed steps (its `warmup` in the first round, one
after that, since the configurations between evicted its caches) and `iterations` timed
ones. The configurations of one group and device take turns (A B C A B C …), so drift of the
machine (another tenant, a clock change, heat) lands on all of them alike instead of on
whichever ran last. After each round a configuration stops when the median's 95 % interval
(`results.estimate` for one process, judged by `results.precise_enough`) is within
±`ci_target` of the median, or when it has `max_iterations`
steps or `max_seconds` of timed steps; `stopped_by` says which. A configuration that fails
(out of memory, an unsupported op) is set aside with its error and the others go on."""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch

from generator.analysis.interval import Interval
from generator.analysis.results import estimate, precise_enough
from generator.config import RunConfig
from generator.measure.conditions import Conditions
from generator.measure.profile_ops import profile_step
from generator.measure.step import (
    StepResult,
    Workload,
    apply_precision,
    build_workload,
    run_iterations,
)
from generator.records.run_parts import ConditionsSample, PrecisionSettings

REWARM_STEPS = 1  # untimed steps at the start of every round after the first
# A round ends early once its timed steps take max_seconds / ROUNDS_IN_TIME, so that a slow
# configuration still gets that many turns before its time cap, not one long round.
ROUNDS_IN_TIME = 10


@dataclass
class Measuring:
    """One configuration's state across the rounds."""

    config: RunConfig
    workload: Workload | None = None
    settings: PrecisionSettings = field(default_factory=PrecisionSettings)
    rows: list[dict[str, float]] = field(default_factory=list)
    conditions: list[ConditionsSample] = field(default_factory=list)
    rounds: int = 0
    timed_s: float = 0.0
    stopped_by: str | None = None  # ci, iterations, time, rounds (ci_target = 0)
    error: BaseException | None = None

    @property
    def active(self) -> bool:
        return self.error is None and self.stopped_by is None

    def step(self) -> Interval | None:
        """Its step time and interval as the report will state them for one process."""
        times = [row["step_s"] for row in self.rows]
        return estimate([times], False, 0.0) if len(times) >= 2 else None

    def result(self) -> StepResult:
        return StepResult(rows=self.rows, settings=self.settings)


def stop_reason(state: Measuring) -> str | None:
    """Why this configuration needs no more rounds, or None. The interval is judged first:
    a run that reached its target on its last allowed round says so."""
    config = state.config
    if state.rounds < config.repeats:
        return None
    if config.ci_target == 0:
        return "rounds"
    step = state.step()
    if step is not None and precise_enough(step, config.ci_target):
        return "ci"
    if len(state.rows) >= config.max_iterations:
        return "iterations"
    if state.timed_s >= config.max_seconds:
        return "time"
    return None


def _set_aside(state: Measuring, error: BaseException) -> None:
    state.error, state.workload = error, None
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()  # an OOM must not starve the configurations still running


def _start(state: Measuring) -> None:
    try:
        state.settings = apply_precision(state.config.precision, state.config.device)
        state.workload = build_workload(state.config)
    except Exception as error:
        _set_aside(state, error)


def one_round(state: Measuring, conditions: Conditions) -> None:
    """Warm up, time this round's steps, sample the machine, then judge the stopping rule."""
    config, workload = state.config, state.workload
    assert workload is not None
    try:
        apply_precision(config.precision, config.device)  # the last configuration's switches
        run_iterations(workload, config.warmup if state.rounds == 0 else REWARM_STEPS)
        count = max(1, min(config.iterations, config.max_iterations - len(state.rows)))
        budget = config.max_seconds / ROUNDS_IN_TIME
        conditions.before_round()
        rows: list[dict[str, float]] = []
        while len(rows) < count and sum(row["step_s"] for row in rows) < budget:
            rows += run_iterations(workload, 1)
        sample = conditions.after_round()
    except Exception as error:
        _set_aside(state, error)
        return
    for iteration, row in enumerate(rows):
        state.rows.append({"repeat": state.rounds, "iteration": iteration, **row})
    state.conditions.append({"round": state.rounds, **sample})
    state.timed_s += sum(row["step_s"] for row in rows)
    state.rounds += 1
    state.stopped_by = stop_reason(state)


def measure_rounds(
    configs: list[RunConfig],
    conditions: Conditions,
    finish: Callable[[Measuring], None],
    progress: Callable[[Measuring], None] | None = None,
) -> None:
    """Time every configuration in interleaved rounds (or one after another when the group
    sets `interleave = false`, e.g. when its models do not fit in memory together). Each
    model is built on its first turn; `finish` gets each configuration as soon as it has
    stopped or failed, while its model is still there to profile."""
    pending = [Measuring(config) for config in configs]
    interleave = all(config.interleave for config in configs)
    while pending:
        for state in list(pending if interleave else pending[:1]):
            if state.workload is None and state.error is None:
                _start(state)
            if state.error is None:
                one_round(state, conditions)
                if progress:
                    progress(state)
            if not state.active:
                finish(state)
                pending.remove(state)


def profile_and_release(state: Measuring, trace_path: Path | None) -> StepResult:
    """The timed result, with one more step under torch.profiler when the config asks; the
    model is released afterwards, so the configurations still running have its memory."""
    result = state.result()
    try:
        if state.config.profile and state.workload is not None:
            apply_precision(state.config.precision, state.config.device)
            result.ops = profile_step(state.workload, trace_path)
    finally:
        state.workload = None
        gc.collect()
    return result
