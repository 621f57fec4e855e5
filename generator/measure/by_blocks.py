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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import polars as pl
from rich.console import Console
from rich.progress import Progress

from generator.config import RunConfig
from generator.formatting import utc_now
from generator.measure.block import BlockRequest, BlockResult, BlockRunner
from generator.measure.blocks import BlockState, measure_blocks, share_configurations
from generator.measure.budget import (
    FINISH_S,
    NCU_PASS_S,
    Budget,
    Estimate,
    estimate,
    measured_blocks,
    plan,
)
from generator.measure.conditions import Conditions
from generator.measure.outcome import Outcome
from generator.measure.provenance import device_name
from generator.measure.resources import BlockResources
from generator.measure.run_files import Design, NcuSettings, NsysSettings, measure_one
from generator.measure.step import StepResult
from generator.measure.store import sweep_stale_staging
from generator.records.calibration import read_calibrations, session_cvs, session_key
from generator.records.pending import (
    PENDING_DIR,
    Pending,
    PendingBlock,
    drop_pending,
    keep_block,
    pending_folder,
    read_pending,
)
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
from generator.records.run_parts import ConditionsSample, OpRow, RunConditions


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

    rows: list[dict[str, float | None]] = field(default_factory=list)  # steps.csv's
    history: list[Invocation] = field(default_factory=list)
    blocks: list[ConditionsSample] = field(default_factory=list)


def _prior(existing: RunRecord | None, folder: Path) -> Prior:
    """The earlier blocks of a blocks result, or nothing to add to."""
    if existing is None or existing.status != "ok" or existing.timing is None:
        return Prior()
    if existing.timing.method != "blocks" or not (folder / "steps.csv").exists():
        return Prior()
    rows = pl.read_csv(folder / "steps.csv").to_dicts()
    blocks = (existing.conditions or {}).get("blocks") or []
    return Prior(rows, list(existing.history or []), list(blocks))


def _by_block(rows: list[dict[str, float | None]]) -> list[list[float]]:
    blocks: dict[int, list[float]] = {}
    for row in rows:
        block, step_s = row["block"], row["step_s"]
        if block is not None and step_s is not None:  # a blocks result's rows have both
            blocks.setdefault(int(block), []).append(float(step_s))
    return [blocks[key] for key in sorted(blocks)]


def design_of(state: BlockState) -> Design:
    """run.json's timing for a result timed in blocks: how, not what (the estimate and its
    intervals come from steps.csv, `results.estimate`)."""
    return {"method": "blocks", "blocks": len(state.times()), "stopped_by": state.stopped_by,
            "ci_target": state.config.ci_target}  # fmt: skip


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
    budget_s: float | None = None,
) -> None:
    """Time `runs` in blocks. Each block is kept on disk as it is timed
    (records/pending.py), and a configuration with kept blocks resumes from them: the
    invocation that was stopped goes on. `budget_s`: plan whole configurations into it
    (measure/budget.py); the ones that do not fit are left for a later call."""
    for stale in sweep_stale_staging(session.runs_dir):
        session.console.print(f"  removed {stale.name}: a killed call's unfinished folder")
    index = _Index(session.runs_dir)
    measurements = session.runs_dir.parent
    known = session_cvs(read_calibrations(measurements))  # the third level so far
    states: list[BlockState] = []
    prior: dict[int, Prior] = {}
    begun: dict[int, str] = {}  # a resumed invocation's start
    for shared in share_configurations(runs, device_name):
        outcome = session.skip(shared.config)
        kept = None
        if outcome is None or outcome.status == "skipped":  # kept blocks resume even then
            kept = _kept(session, shared.config, measurements)
        if outcome is not None and kept is None:
            session.outcomes.append(outcome)
            bar.advance(overall, len(shared.groups))
            if outcome.status == "skipped":
                _keep_groups(session.runs_dir / outcome.run_id, shared.groups)
            continue
        run_id = shared.config.run_id(device_name(shared.config.device))
        folder = session.runs_dir / run_id
        earlier = _prior(read_run(folder), folder) if (session.force or kept) else Prior()
        name = device_name(shared.config.device)
        between = known.get(session_key(name, shared.config.compile), 0.0)
        state = BlockState(shared, prior=_by_block(earlier.rows), session_cv=between)
        if kept is not None:
            for block in kept.blocks:
                state.add(BlockResult(**block.block))
            begun[id(state)] = kept.first.started_at
            session.console.print(
                f"  {run_id}: resuming from {len(kept.blocks)} kept block(s) "
                f"({pending_folder(measurements, run_id)})"
            )
        prior[id(state)] = earlier
        states.append(state)
    if not states:
        return
    budget = None
    if budget_s is not None:
        states, budget = _plan(session, states, budget_s)
    if not states:
        return
    headers: dict[str, RunConditions] = {}
    for device in sorted({state.config.device for state in states}):
        session.prepare(device)
        headers[device] = Conditions.for_device(device).header()
    started_at = utc_now()
    session.console.print(
        f"timing {len(states)} configurations in blocks (worker processes, shuffled; seed {seed}); "
        f"each block is kept in {measurements / PENDING_DIR}/ as it is timed"
    )
    tasks = {id(s): bar.add_task(f"  {s.config.run_id(device_name(s.config.device))}",
                                 total=s.config.max_blocks) for s in states}  # fmt: skip

    def progress(state: BlockState) -> None:
        half = state.step().half_width if state.error is None and state.times() else None
        note = f"  ±{100 * half:.1f} %" if half is not None else ""
        run_id = state.config.run_id(device_name(state.config.device))
        bar.update(tasks[id(state)], completed=len(state.times()), description=f"  {run_id}{note}")

    def keep(state: BlockState, result: BlockResult) -> None:
        config = state.config
        name = device_name(config.device)
        keep_block(measurements, PendingBlock(
            run_id=config.run_id(name), config=config.as_dict(),
            config_hash=config.config_hash(name), device_name=name,
            groups=list(state.shared.groups), invocation=len(prior[id(state)].history),
            index=len(state.blocks) - 1, started_at=begun.get(id(state), started_at),
            kept_at=utc_now(), block=asdict(result),
        ))  # fmt: skip

    def finish(state: BlockState) -> None:
        name = device_name(state.config.device)
        outcome = _record(session, state, prior[id(state)], begun.get(id(state), started_at),
                          headers[state.config.device])  # fmt: skip
        session.outcomes.append(outcome)
        drop_pending(measurements, state.config.run_id(name))  # the run folder holds them
        if outcome.status == "ok":
            for rival in index.rivals(state.config, name):
                if (session.runs_dir / rival).exists():
                    _retire(session.runs_dir, rival)
                    session.console.print(f"  {rival}: superseded by {outcome.run_id}")
        bar.remove_task(tasks[id(state)])
        bar.advance(overall, len(state.shared.groups))

    measure_blocks(states, runner, finish, progress, seed, kept=keep, budget=budget)
    if budget is not None:
        used = budget.seconds - budget.left()
        session.console.print(f"used {used:.0f} s of the {budget.seconds:.0f} s budget")


def _kept(session: Session, config: RunConfig, measurements: Path) -> Pending | None:
    """The kept blocks this configuration resumes from: those of its invocation that was
    stopped. Blocks its run folder already took (a stop between writing the folder and
    forgetting the blocks) are forgotten here."""
    name = device_name(config.device)
    run_id = config.run_id(name)
    kept = read_pending(measurements, run_id)
    if kept is None or kept.first.config_hash != config.config_hash(name):
        return None  # nothing kept, or another configuration's (its hash is in the id)
    folder = session.runs_dir / run_id
    done = len(_prior(read_run(folder), folder).history)  # as `keep` numbers invocations
    if kept.first.invocation != done:
        drop_pending(measurements, run_id)
        return None
    return kept


def _plan(
    session: Session, states: list[BlockState], budget_s: float
) -> tuple[list[BlockState], Budget]:
    """The states that fit `budget_s` whole (measure/budget.py), the plan printed first;
    the others' outcomes say they were left for a later call."""
    finish_s = FINISH_S + _profiler_passes(session) * NCU_PASS_S
    estimates = []
    for state in states:
        config = state.config
        run_id = config.run_id(device_name(config.device))
        before = measured_blocks(read_run(session.runs_dir / run_id), session.runs_dir / run_id)
        done = len(state.blocks)  # resumed: those are timed already
        found = estimate(config, run_id, finish_s, before)
        if done:
            share = max(0, config.min_blocks - done) / max(config.min_blocks, 1)
            found = Estimate(run_id, found.blocks_s * share, finish_s, found.source)
        estimates.append(found)
    chosen = plan(estimates, budget_s)
    for line in chosen.lines():
        session.console.print(line)
    fit = {e.run_id for e in chosen.fit}
    kept = []
    for state in states:
        run_id = state.config.run_id(device_name(state.config.device))
        if run_id in fit:
            kept.append(state)
        else:
            session.outcomes.append(
                Outcome(run_id, "left out", "does not fit --budget: run the command again")
            )
    return kept, Budget(budget_s, finish_s=finish_s)


def _profiler_passes(session: Session) -> int:
    """How many profiler passes each configuration's close runs (ncu's range and kernel
    passes, nsys's capture)."""
    passes = 0
    if session.ncu is not None:
        plan = session.ncu.replay
        passes += int(plan.mode != "kernel") + int(plan.mode == "kernel" or plan.kernel_count > 0)
    return passes + int(session.nsys is not None)


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
    header: RunConditions,
) -> Outcome:
    config = state.config
    history = prior.history
    invocation = len(history)
    first = len(state.prior)
    rows = list(prior.rows)
    blocks_conditions = list(prior.blocks)  # every block's, the earlier calls' first
    resources: list[BlockResources] = []
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
        ops: list[OpRow] = []
        if config.profile:
            request = BlockRequest(config.as_dict(), 0, 0.0, trace_path=str(folder / TRACE_FILE),
                                   cache_dir=state.cache_dir)  # fmt: skip
            profiled = session_runner(session)(request)
            if profiled.error is not None:
                raise RuntimeError(f"the profiled step failed: {profiled.error['message']}")
            ops = profiled.ops
        settings = state.blocks[-1].settings if state.blocks else {}
        result = StepResult(rows=rows, settings=settings, ops=ops)
        return measure_one(config, folder, session.ncu, result, design_of(state),
                           {**header, "blocks": blocks_conditions}, session.nsys,
                           resources, state.session_cv)  # fmt: skip

    error = RunFailure.model_validate(state.error) if state.error is not None else None
    return session.write_record(
        config, started_at, measured, error, groups=state.shared.groups, history=history
    )


def session_runner(session: Session) -> BlockRunner:
    assert session.block_runner is not None
    return session.block_runner
