"""The `blocks` method inside `measure`: one result per configuration, its blocks run among
every other configuration's (measure.blocks), each result written as soon as it stops.

Measuring a configuration again (`--force`) adds blocks to a result of the same method: its
steps.csv keeps the earlier blocks, the estimate is over all of them, run.json's
`conditions.blocks` keeps each earlier block's conditions and `history` gains the invocation.
A result of another method (one process, rounds) is replaced, and so are the rival results
of the same configuration filed in other groups before results were shared."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import polars as pl
from rich.console import Console
from rich.progress import Progress

from generator.config import RunConfig
from generator.formatting import utc_now
from generator.hierarchical import METHOD, block_estimate
from generator.measure.block import BlockRequest, BlockRunner
from generator.measure.blocks import BlockState, measure_blocks, share_configurations
from generator.measure.conditions import Conditions
from generator.measure.outcome import Outcome
from generator.measure.provenance import device_name
from generator.measure.run_files import NcuSettings, NsysSettings, measure_one
from generator.measure.step import StepResult
from generator.records.calibration import read_calibrations, session_cvs, session_key
from generator.records.run import (
    RUN_FILE,
    TRACE_FILE,
    Invocation,
    Measured,
    RunFailure,
    RunRecord,
    read_run,
    workload_key,
    write_run,
)


class Session(Protocol):
    """What this method uses of `measure`'s session (measure.runner.Session)."""

    @property
    def runs_dir(self) -> Path: ...

    force: bool
    ncu: NcuSettings | None
    nsys: NsysSettings | None
    console: Console
    outcomes: list[Outcome]
    block_runner: BlockRunner | None

    def skip(self, config: RunConfig) -> Outcome | None: ...

    def prepare(self, device: str) -> None: ...

    def write_record(
        self,
        config: RunConfig,
        started_at: str,
        measured: Callable[[Path], Measured],
        error: RunFailure | None,
        name: str | None = None,
        groups: tuple[str, ...] | None = None,
        history: list[Invocation] | None = None,
    ) -> Outcome: ...


@dataclass(frozen=True)
class Prior:
    """What a blocks result measured before, which `--force` adds to: its steps.csv rows,
    its history of invocations and each earlier block's conditions (run.json's
    `conditions.blocks`, which the contended-blocks check reads: without them it judged
    the newest call's blocks alone)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    history: list[Invocation] = field(default_factory=list)
    blocks: list[dict[str, Any]] = field(default_factory=list)


def _prior(existing: RunRecord | None, folder: Path) -> Prior:
    """The earlier blocks of a blocks result, or nothing to add to."""
    if existing is None or existing.status != "ok" or existing.timing is None:
        return Prior()
    if existing.timing.method != "blocks" or not (folder / "steps.csv").exists():
        return Prior()
    rows = pl.read_csv(folder / "steps.csv").to_dicts()
    blocks = (existing.conditions or {}).get("blocks") or []
    return Prior(rows, list(existing.history or []), list(blocks))


def _by_block(rows: list[dict[str, Any]]) -> list[list[float]]:
    blocks: dict[int, list[float]] = {}
    for row in rows:
        blocks.setdefault(int(row["block"]), []).append(float(row["step_s"]))
    return [blocks[key] for key in sorted(blocks)]


def timing_of(
    times: list[list[float]], config: RunConfig, stopped_by: str | None, session_cv: float = 0.0
) -> dict[str, Any]:
    """run.json's timing from the blocks: the estimate, both intervals and the levels
    (`session_cv`: the between-invocation variation the re-measurements of this device
    have shown so far, records.calibration.session_cvs)."""
    estimate = block_estimate(times, session_cv=session_cv)
    low, high = estimate.remeasure95_s
    return {
        "method": "blocks",
        "blocks": estimate.blocks,
        "stopped_by": stopped_by,
        "ci_target": config.ci_target,
        "median_s": estimate.estimate_s,
        "median_ci95_s": list(estimate.ci95_s),
        "remeasure_ci95_s": [low, high],
        "ci_method": METHOD,
        "levels": estimate.levels(),
        "throughput_samples_per_s": config.batch / estimate.estimate_s,
        "throughput_ci95": [config.batch / high, config.batch / low],
    }


class _Index:
    """Run folders by workload, to fold rival results of one configuration into one."""

    def __init__(self, runs_dir: Path) -> None:
        self.by_workload: dict[str, list[str]] = {}
        if runs_dir.is_dir():
            for folder in sorted(runs_dir.iterdir()):
                if folder.name.startswith(".") or not (folder / RUN_FILE).exists():
                    continue
                record = read_run(folder)
                if record is not None:
                    self.by_workload.setdefault(record.workload, []).append(folder.name)

    def rivals(self, config: RunConfig, name: str) -> list[str]:
        key = workload_key(config.as_dict(), name)
        return [run for run in self.by_workload.get(key, []) if run != config.run_id(name)]


def _retire(runs_dir: Path, run_id: str) -> None:
    """Remove a superseded run folder in one rename (never half of it)."""
    retired = Path(tempfile.mkdtemp(dir=runs_dir, prefix=f".retired-{run_id}-"))
    (runs_dir / run_id).rename(retired / run_id)
    shutil.rmtree(retired, ignore_errors=True)


def measure_by_blocks(
    session: Session,
    runs: list[RunConfig],
    bar: Progress,
    overall: Any,
    runner: BlockRunner,
    seed: int,
) -> None:
    index = _Index(session.runs_dir)
    states: list[BlockState] = []
    prior: dict[int, Prior] = {}
    for shared in share_configurations(runs, device_name):
        if (outcome := session.skip(shared.config)) is not None:
            session.outcomes.append(outcome)
            bar.advance(overall, len(shared.groups))
            if outcome.status == "skipped":
                _keep_groups(session.runs_dir / outcome.run_id, shared.groups)
            continue
        folder = session.runs_dir / shared.config.run_id(device_name(shared.config.device))
        earlier = _prior(read_run(folder), folder) if session.force else Prior()
        state = BlockState(shared, prior=_by_block(earlier.rows))
        prior[id(state)] = earlier
        states.append(state)
    if not states:
        return
    headers: dict[str, dict[str, Any]] = {}
    for device in sorted({state.config.device for state in states}):
        session.prepare(device)
        headers[device] = Conditions.for_device(device).header()
    started_at = utc_now()
    known = session_cvs(read_calibrations(session.runs_dir.parent))  # the third level so far
    session.console.print(
        f"timing {len(states)} configurations in blocks (worker processes, shuffled; seed {seed})"
    )
    tasks = {id(s): bar.add_task(f"  {s.config.run_id(device_name(s.config.device))}",
                                 total=s.config.max_blocks) for s in states}  # fmt: skip

    def progress(state: BlockState) -> None:
        estimate = state.estimate() if state.error is None else None
        note = f"  ±{100 * estimate.relative_half_width:.1f} %" if estimate else ""
        run_id = state.config.run_id(device_name(state.config.device))
        bar.update(tasks[id(state)], completed=len(state.times()), description=f"  {run_id}{note}")

    def finish(state: BlockState) -> None:
        name = device_name(state.config.device)
        outcome = _record(session, state, prior[id(state)], started_at,
                          headers[state.config.device],
                          known.get(session_key(name, state.config.compile), 0.0))  # fmt: skip
        session.outcomes.append(outcome)
        if outcome.status == "ok":
            for rival in index.rivals(state.config, name):
                if (session.runs_dir / rival).exists():
                    _retire(session.runs_dir, rival)
                    session.console.print(f"  {rival}: superseded by {outcome.run_id}")
        bar.remove_task(tasks[id(state)])
        bar.advance(overall, len(state.shared.groups))

    measure_blocks(states, runner, finish, progress, seed)


def _keep_groups(folder: Path, groups: tuple[str, ...]) -> None:
    """A result measured earlier serves the groups that list it now."""
    record = read_run(folder)
    if record is not None and record.groups != list(groups):
        record.groups = list(groups)
        write_run(folder, record)


def _record(
    session: Session,
    state: BlockState,
    prior: Prior,
    started_at: str,
    header: dict[str, Any],
    session_cv: float,
) -> Outcome:
    config = state.config
    history = prior.history
    invocation = len(history)
    first = len(state.prior)
    rows = list(prior.rows)
    blocks_conditions = list(prior.blocks)  # every block's, the earlier calls' first
    resources: list[dict[str, Any]] = []
    for offset, block in enumerate(state.blocks):
        number = first + offset
        for iteration, row in enumerate(block.rows):
            rows.append({"invocation": invocation, "block": number, "repeat": number,
                         "iteration": iteration, **row})  # fmt: skip
        blocks_conditions.append({"invocation": invocation, "block": number,
                                  "setup_s": block.setup_s, **block.conditions})  # fmt: skip
        resources.append({"compile": block.compile, "memory": block.memory,
                          "energy": block.energy})  # fmt: skip

    def measured(folder: Path) -> Measured:
        ops: list[dict[str, Any]] = []
        if config.profile:
            request = BlockRequest(config.as_dict(), 0, 0.0, trace_path=str(folder / TRACE_FILE),
                                   cache_dir=state.cache_dir)  # fmt: skip
            profiled = session_runner(session)(request)
            if profiled.error is not None:
                raise RuntimeError(f"the profiled step failed: {profiled.error['message']}")
            ops = profiled.ops
        settings = state.blocks[-1].settings if state.blocks else {}
        result = StepResult(rows=rows, settings=settings, ops=ops)
        method = timing_of(state.times(), config, state.stopped_by, session_cv)
        return measure_one(config, folder, session.ncu, result, method,
                           {**header, "blocks": blocks_conditions}, session.nsys,
                           resources)  # fmt: skip

    error = RunFailure.model_validate(state.error) if state.error is not None else None
    return session.write_record(
        config, started_at, measured, error, groups=state.shared.groups, history=history
    )


def session_runner(session: Session) -> BlockRunner:
    assert session.block_runner is not None
    return session.block_runner
