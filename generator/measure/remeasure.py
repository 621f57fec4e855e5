"""`python -m generator remeasure`: the calibration check the project runs on itself.

It picks N committed results at random (those whose result the report states with a
calibrated interval, `Result.step.calibrated`: timed in at least `interval.MIN_BLOCKS`
blocks; on this machine's device, measured at least `min_age` minutes ago), measures them again in a new invocation with the
same design (its own shuffled order, fresh worker processes), and counts how many
re-measured estimates fall inside the committed 95 % re-measurement intervals: the
empirical coverage of the intervals the report states. Nothing in measurements/runs/
changes; the verdicts go into measurements/calibration/<when>.json."""

from __future__ import annotations

import random
from datetime import datetime
from pathlib import Path

import polars as pl
from rich.console import Console
from rich.table import Table

from generator.analysis.interval import MIN_BLOCKS
from generator.analysis.per_workload import run_blocks
from generator.analysis.results import Result as StepResult
from generator.analysis.results import estimate, results
from generator.config import RunConfig, load_experiments, resolve_runs
from generator.errors import UserError
from generator.formatting import utc_now
from generator.hierarchical import block_estimate
from generator.ingest.runs import load_runs
from generator.ingest.steps import read_steps
from generator.measure.block import BlockRunner
from generator.measure.blocks import BlockState, Shared, measure_blocks
from generator.measure.provenance import device_name, environment
from generator.records.calibration import (
    CalibrationFile,
    Remeasured,
    Result,
    read_calibrations,
    session_cvs,
    session_key,
    write_calibration,
)
from generator.records.run import RunRecord, read_runs
from generator.records.run_modes import EAGER, mode_of, mode_of_run_id


def _minutes_between(earlier: str, later: str) -> float:
    return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).total_seconds() / 60


def candidates(
    measurements: Path,
    name: str,
    groups: list[str] | None,
    now: str,
    min_age_minutes: float,
    mode: str | None = None,
) -> list[RunRecord]:
    """Committed results that can be re-measured here: ok, their result calibrated as the
    report states it (`results.results`, `Result.step.calibrated`), on a device of this
    name, in one of `groups` (any when None), in compile `mode` (any when None), finished
    at least min_age ago."""
    stated = _stated(measurements)
    found = []
    for _, record in read_runs(measurements):
        result = stated.get(record.run_id)
        if record.status != "ok" or result is None or not result.step.calibrated:
            continue
        if record.device_name != name or record.finished_at is None:
            continue
        if groups and not set(groups) & set(record.groups or [record.config.group]):
            continue
        if _minutes_between(record.finished_at, now) < min_age_minutes:
            continue
        if mode is not None and mode_of(record.config.model_dump()) != mode:
            continue
        found.append(record)
    return found


def _stated(measurements: Path) -> dict[str, StepResult]:
    """Run id -> its configuration's result as the report states it now (the committed
    blocks with the between-invocation variation earlier calls measured)."""
    runs = load_runs(measurements)
    ok = runs.filter(pl.col("status") == "ok")["run_id"].to_list()
    steps = {run: read_steps(measurements / "runs" / run) for run in ok}
    found = results(runs, steps, session_cvs(read_calibrations(measurements)))
    return {run: result for result in found.values() for run in result.run_ids}


def remeasure(
    config_path: Path,
    measurements: Path,
    sample: int,
    device: str,
    groups: list[str] | None,
    seed: int,
    min_age_minutes: float,
    command: str,
    runner: BlockRunner,
    console: Console,
    mode: str | None = None,
) -> CalibrationFile:
    started_at = utc_now()
    name = device_name(device)
    pool = candidates(measurements, name, groups, started_at, min_age_minutes, mode)
    if len(pool) < sample:
        raise UserError(
            f"only {len(pool)} committed results timed in blocks on {name} are at least "
            f"{min_age_minutes:g} minutes old (asked for {sample})",
            key="--sample",
            fix="measure more with `nox -s measure`, wait, or ask for fewer (--sample) or "
            "a shorter --min-age",
        )
    picked = random.Random(seed).sample(pool, sample)
    configs = {c.run_id(name): c for c in resolve_runs(load_experiments(config_path), None)}
    states = []
    cvs = session_cvs(read_calibrations(measurements))
    for record in picked:
        config = configs.get(record.run_id)
        if config is None:
            raise UserError(
                f"run {record.run_id} is no longer in the experiments file",
                file=config_path,
                fix="re-measure only what the file still lists (--group), or restore its group",
            )
        own = cvs.get(session_key(name, mode_of_run_id(record.run_id)), 0.0)
        states.append(BlockState(Shared(_again(config), (config.group,)), session_cv=own))
    # The interval checked is the one the report states now: the committed blocks with the
    # between-invocation variation that earlier calls measured (none before the first).
    modes = sorted({mode_of_run_id(record.run_id) for record in picked})
    # what the checked intervals included: the one mode's, or the device's eager one
    known = cvs.get(session_key(name, modes[0] if len(modes) == 1 else EAGER), 0.0)
    variations = ", ".join(
        f"{100 * cvs.get(session_key(name, each), 0.0):.1f} % {each}" for each in modes
    )
    console.print(
        f"re-measuring {sample} configurations on {name} (seed {seed}; between-invocation "
        f"variation known so far: {variations})"
    )
    measure_blocks(states, runner, lambda state: None, None, seed)
    items, failed = [], []
    for record, state in zip(picked, states, strict=True):
        again_step = state.step() if state.error is None and len(state.times()) > 1 else None
        if again_step is None or not again_step.bounded:
            failed.append({"run_id": record.run_id, "error": state.error})
            continue
        committed = _record_of(_committed_blocks(measurements, record), state.session_cv)
        again = _record_of(state.times(), state.session_cv)
        low, high = committed.interval95_s
        items.append(Remeasured(
            run_id=record.run_id, workload=record.workload, committed=committed,
            committed_finished_at=record.finished_at or "", remeasured=again,
            minutes_after=_minutes_between(record.finished_at or started_at, started_at),
            inside=low <= again.median_s <= high,
            ratio=again.median_s / committed.median_s,
        ))  # fmt: skip
    git = environment(device, Path.cwd()).get("git") or {}
    result = CalibrationFile(
        started_at=started_at, finished_at=utc_now(), device=device, device_name=name,
        command=command, commit=git.get("commit") if isinstance(git, dict) else None,
        seed=seed, session_cv=known, configurations=items, failed=failed,
    )  # fmt: skip
    path = write_calibration(measurements, result)
    _print(result, console)
    console.print(f"written: {path}")
    return result


def _committed_blocks(measurements: Path, record: RunRecord) -> list[list[float]]:
    """The committed result's step times by block, read as the report reads them."""
    return run_blocks(read_steps(measurements / "runs" / record.run_id))


def _record_of(blocks: list[list[float]], session_cv: float) -> Result:
    """A calibration record's result: the step time and calibrated interval by the one
    rule (`results.estimate`), with the spread of block medians it rests on."""
    step = estimate(blocks, True, session_cv)
    assert step.low is not None and step.high is not None  # at least MIN_BLOCKS blocks
    levels = block_estimate(blocks).levels
    return Result(median_s=step.value, interval95_s=(step.low, step.high), blocks=levels.blocks,
                  samples=levels.samples, block_median_cv=levels.block_median_cv)  # fmt: skip


def _again(config: RunConfig) -> RunConfig:
    """The configuration re-measured: unprofiled, and in at least MIN_BLOCKS blocks, so that
    its estimate is the calibrated one, as the committed result's is."""
    blocks = max(config.min_blocks, MIN_BLOCKS)
    return RunConfig.from_dict({**config.as_dict(), "profile": False, "min_blocks": blocks,
                                "max_blocks": max(config.max_blocks, blocks)})  # fmt: skip


def _print(result: CalibrationFile, console: Console) -> None:
    table = Table(title="remeasure: committed interval against a new invocation")
    for column in ("run", "committed", "95 % re-measurement interval", "now", "ratio", "inside"):
        table.add_column(column)
    for item in result.configurations:
        low, high = item.committed.interval95_s
        table.add_row(
            item.run_id,
            f"{item.committed.median_s * 1e3:.3f} ms",
            f"[{low * 1e3:.3f}, {high * 1e3:.3f}] ms",
            f"{item.remeasured.median_s * 1e3:.3f} ms",
            f"{item.ratio:.3f}",
            "yes" if item.inside else "NO",
        )
    console.print(table)
    console.print(
        f"our 95 % intervals covered {result.covered} of {result.total} re-measurements"
        + (f"; {len(result.failed)} failed" if result.failed else "")
    )
