"""One run's measurement: warm up, time `iterations` steps `repeats` times, then profile one
more step when asked. Builds on `step` (the workload and its timed iterations) and
`profile_ops` (the profiled step), which do not import each other's callers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from generator.config import RunConfig
from generator.measure.profile_ops import profile_step
from generator.measure.step import StepResult, apply_precision, build_workload, run_iterations


def measure(
    config: RunConfig,
    progress: Callable[[int, int], None] | None = None,
    trace_path: Path | None = None,
) -> StepResult:
    """Warm up, then time `iterations` steps, `repeats` times; optionally profile one more
    (and write its trace to `trace_path`)."""
    settings = apply_precision(config.precision, config.device)
    workload = build_workload(config)
    rows: list[dict[str, Any]] = []
    total = config.repeats * (config.warmup + config.iterations)
    done = 0
    for repeat in range(config.repeats):
        for _ in range(config.warmup):
            run_iterations(workload, 1)
            done += 1
            if progress:
                progress(done, total)
        for iteration in range(config.iterations):
            row = run_iterations(workload, 1)[0]
            rows.append({"repeat": repeat, "iteration": iteration, **row})
            done += 1
            if progress:
                progress(done, total)
    result = StepResult(rows=rows, settings=settings)
    if config.profile:
        result.ops = profile_step(workload, trace_path)
    return result
