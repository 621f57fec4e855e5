"""`python -m generator remeasure`: the calibration check the project runs on itself.

It picks N committed results at random (those timed in blocks, on this machine's device,
measured at least `min_age` minutes ago), measures them again in a new invocation with the
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

from generator.analysis.per_workload import run_blocks
from generator.config import RunConfig, load_experiments, resolve_runs
from generator.errors import UserError
from generator.formatting import utc_now
from generator.hierarchical import block_estimate
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
from generator.records.run import RunRecord, read_run
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
    """Committed results that can be re-measured here: ok, timed in blocks, on a device of
    this name, in one of `groups` (any when None), in compile `mode` (any when None),
    finished at least min_age ago."""
    found = []
    for folder in sorted((measurements / "runs").glob("*")):
        if folder.name.startswith(".") or not (folder / "run.json").exists():
            continue
        record = read_run(folder)
        if record is None or record.status != "ok" or record.timing is None:
            continue
        if record.timing.method != "blocks" or record.timing.remeasure_ci95_s is None:
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
    for record in picked:
        config = configs.get(record.run_id)
        if config is None:
            raise UserError(
                f"run {record.run_id} is no longer in the experiments file",
                file=config_path,
                fix="re-measure only what the file still lists (--group), or restore its group",
            )
        states.append(BlockState(Shared(_unprofiled(config), (config.group,))))
    # The interval checked is the one the report states now: the committed blocks with the
    # between-invocation variation that earlier calls measured (none before the first).
    cvs = session_cvs(read_calibrations(measurements))
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
        if state.error is not None or len(state.times()) < 2:
            failed.append({"run_id": record.run_id, "error": state.error})
            continue
        own = cvs.get(session_key(name, mode_of_run_id(record.run_id)), 0.0)
        stated = block_estimate(_committed_blocks(measurements, record), session_cv=own)
        estimate = block_estimate(state.times(), session_cv=own)
        low, high = stated.remeasure95_s
        committed = Result(median_s=stated.estimate_s, interval95_s=(low, high),
                           blocks=stated.blocks, samples=stated.samples,
                           block_median_cv=stated.block_median_cv)  # fmt: skip
        again = Result(median_s=estimate.estimate_s, interval95_s=estimate.remeasure95_s,
                       blocks=estimate.blocks, samples=estimate.samples,
                       block_median_cv=estimate.block_median_cv)  # fmt: skip
        items.append(Remeasured(
            run_id=record.run_id, workload=record.workload, committed=committed,
            committed_finished_at=record.finished_at or "", remeasured=again,
            minutes_after=_minutes_between(record.finished_at or started_at, started_at),
            inside=low <= estimate.estimate_s <= high,
            ratio=estimate.estimate_s / stated.estimate_s,
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
    return run_blocks(pl.read_csv(measurements / "runs" / record.run_id / "steps.csv"))


def _unprofiled(config: RunConfig) -> RunConfig:
    return RunConfig.from_dict({**config.as_dict(), "profile": False})


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
