"""`python -m generator measure`: run the configured matrix, resume, record, summarize."""

from __future__ import annotations

import contextlib
import signal
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from generator.config import RunConfig, load_experiments, resolve_runs
from generator.errors import UserError
from generator.findings.profiler_checks import PROFILER_FAILED
from generator.formatting import utc_now
from generator.measure import ncu as ncu_mode
from generator.measure import nsys as nsys_mode
from generator.measure import stopping
from generator.measure.block import BlockRunner
from generator.measure.ceilings import measure_ceilings
from generator.measure.conditions import Conditions
from generator.measure.outcome import Outcome, print_summary
from generator.measure.preflight import check_user_models
from generator.measure.provenance import (
    command_line,
    cpu_supports_bf16,
    device_id,
    device_name,
    environment,
)
from generator.measure.reprofile import lacks_ncu, lacks_nsys, reprofile
from generator.measure.rounds import Measuring, measure_rounds, profile_and_release
from generator.measure.run_files import Design, NcuSettings, NsysSettings, measure_one
from generator.measure.store import staged_run_folder
from generator.records.ceilings import CeilingsFile, ceilings_path, write_ceilings
from generator.records.pending import PENDING_DIR, read_all_pending
from generator.records.run import (
    TRACE_FILE,
    Invocation,
    Measured,
    RunFailure,
    RunRecord,
    RunSettings,
    RunStart,
    read_run,
    write_run,
)
from generator.records.run_parts import Environment, RunConditions


def device_available(device: str) -> bool:
    return device == "cpu" or torch.cuda.is_available()


def check_machine(runs: list[RunConfig], config_path: Path, group_order: list[str]) -> None:
    """Combinations this machine cannot run at all are errors before anything starts."""
    for run in runs:
        if run.device == "cpu" and run.precision == "bf16-amp" and not cpu_supports_bf16():
            raise UserError(
                "bf16-amp on this CPU: it has no native bf16 (no avx512_bf16 or amx_bf16), so "
                "autocast would time an emulation",
                file=config_path,
                key=f"groups[{group_order.index(run.group)}].precisions",
                fix="drop bf16-amp for the cpu device, or measure it on a CPU or GPU with bf16",
            )


def _ceilings(measurements: Path, device: str, force: bool, console: Console) -> str:
    identity = device_id(device)
    if ceilings_path(measurements, identity).exists() and not force:
        return identity
    console.print(f"measuring ceilings of {device_name(device)} (GEMM, copy, triad)…")
    measured = CeilingsFile(
        device_id=identity,
        device=device,
        device_name=device_name(device),
        **measure_ceilings(device),
        environment=environment(device, Path.cwd()),
    )
    write_ceilings(measurements, measured)
    return identity


def execute(
    config_path: Path,
    measurements: Path,
    groups: list[str] | None,
    force: bool,
    use_ncu: bool,
    argv: list[str],
    console: Console | None = None,
    device: str | None = None,
    ncu_timeout_s: float = 1800.0,
    block_runner: BlockRunner | None = None,
    seed: int = 0,
    use_nsys: bool = False,
    nsys_timeout_s: float = 1800.0,
    ncu_replay: tuple[str, int] = ("range", 200),
    ncu_clock_control: str = ncu_mode.CLOCK_CONTROL,
    keep_ceilings: bool = False,
    budget_s: float | None = None,
) -> list[Outcome]:
    """Measure the selected runs: groups timed by `rounds` one group at a time, the rest
    (`blocks`, the default) as one shuffled matrix of worker-process blocks (`seed` orders
    them; `block_runner` runs one, by default in a forked worker). `keep_ceilings`: with
    `force`, the recorded ceilings stay (only the runs are measured again). `budget_s`
    (else experiments.toml's `budget_seconds`): whole configurations planned into it.
    Every block is kept as it is timed; SIGTERM stops the call like Ctrl-C, and the next
    call resumes from the kept blocks (records/pending.py)."""
    # A log file or CI gets a table wide enough for run ids, not the 80-column default.
    console = console or Console(stderr=True, width=None if sys.stderr.isatty() else 160)
    experiments = load_experiments(config_path)
    runs = [r for r in resolve_runs(experiments, groups) if device in (None, r.device)]
    check_machine(runs, config_path, [g.id for g in experiments.groups])
    check_user_models(runs, config_path)
    ncu = None
    if use_ncu:
        executable = ncu_mode.find_ncu(torch.cuda.is_available())
        console.print("asking ncu which metrics this GPU has…")
        metrics = ncu_mode.metrics_for_this_gpu(executable)
        plan = ncu_mode.ReplayPlan(ncu_replay[0], kernel_count=ncu_replay[1])
        ncu = NcuSettings(executable, metrics, ncu_timeout_s, plan, ncu_clock_control)
    nsys = None
    if use_nsys:
        nsys = NsysSettings(nsys_mode.find_nsys(torch.cuda.is_available()), nsys_timeout_s)
    session = Session(measurements, force, ncu, command_line(argv), console, nsys=nsys,
                      keep_ceilings=keep_ceilings)  # fmt: skip
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        overall = bar.add_task("runs", total=len(runs))
        by_blocks = [run for run in runs if run.method == "blocks"]
        if by_blocks:
            from generator.measure.block import ForkedBlocks
            from generator.measure.by_blocks import measure_by_blocks

            session.block_runner = block_runner or ForkedBlocks()
            budget = budget_s if budget_s is not None else experiments.budget_seconds
            with stopped_by_sigterm(measurements, console):
                measure_by_blocks(
                    session, by_blocks, bar, overall, session.block_runner, seed, budget
                )
        for batch in batches([run for run in runs if run.method != "blocks"]):
            todo = []
            for config in batch:
                if (outcome := session.skip(config)) is not None:
                    session.outcomes.append(outcome)
                    bar.advance(overall)
                else:
                    todo.append(config)
            if todo:
                session.measure_batch(todo, bar, overall)
    order = {config.run_id(device_name(config.device)): i for i, config in enumerate(runs)}
    order.update({o.run_id: i for i, o in enumerate(session.outcomes) if o.run_id not in order})
    outcomes = sorted(session.outcomes, key=lambda o: order.get(o.run_id, len(order)))
    print_summary(outcomes, console)
    return outcomes


@contextlib.contextmanager
def stopped_by_sigterm(measurements: Path, console: Console) -> Iterator[None]:
    """Turn SIGTERM into `Stopped` while blocks run, so a staged run folder is removed and
    the worker ended as on Ctrl-C; either way, say what was kept and how to go on."""
    previous = stopping.install()  # a returned block is kept before the stop (stopping.py)
    try:
        yield
    except KeyboardInterrupt:
        kept = read_all_pending(measurements)
        blocks = sum(len(p.blocks) for p in kept)
        console.print(
            f"stopped: {blocks} timed block(s) of {len(kept)} configuration(s) are kept in "
            f"{measurements / PENDING_DIR}/; the same command resumes from them"
        )
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)


def batches(runs: list[RunConfig]) -> list[list[RunConfig]]:
    """The runs that take turns: one group on one device, in file order (a CPU and a GPU
    configuration gain nothing from alternating: they do not share the drift)."""
    keyed: dict[tuple[str, str], list[RunConfig]] = {}
    for run in runs:
        keyed.setdefault((run.group, run.device), []).append(run)
    return list(keyed.values())


@dataclass
class Session:
    """What one `measure` call shares across its runs: ceilings and environments measured
    once per device, and the outcomes so far."""

    measurements: Path
    force: bool
    ncu: NcuSettings | None
    command: str
    console: Console
    environments: dict[str, Environment] = field(default_factory=dict)
    ceilings: dict[str, str] = field(default_factory=dict)
    outcomes: list[Outcome] = field(default_factory=list)
    block_runner: BlockRunner | None = None  # the blocks method: runs one block
    nsys: NsysSettings | None = None  # `measure --nsys`: each CUDA run's step under nsys
    keep_ceilings: bool = False  # `measure --force --keep-ceilings`: the runs only

    def prepare(self, device: str) -> None:
        """Ceilings and environment of `device`, once per call."""
        if device not in self.ceilings:
            again = self.force and not self.keep_ceilings
            self.ceilings[device] = _ceilings(self.measurements, device, again, self.console)
        if device not in self.environments:
            self.environments[device] = environment(device, Path.cwd())

    @property
    def runs_dir(self) -> Path:
        return self.measurements / "runs"

    def skip(self, config: RunConfig) -> Outcome | None:
        """The outcome of a run this call does not time: no such device, or measured (and,
        where this call profiles and it lacks that profile, profiled again)."""
        if not device_available(config.device):
            return Outcome(
                f"{config.group}/{config.model}/b{config.batch}/{config.device}",
                "unavailable",
                "no CUDA device here",
            )
        name = device_name(config.device)
        run_id = config.run_id(name)
        existing = read_run(self.runs_dir / run_id)
        if (
            existing
            and existing.status == "ok"
            and existing.config_hash == config.config_hash(name)
            and existing.timing is not None
            and not self.force
        ):
            if (profiled := self.reprofile(config, existing)) is not None:
                return profiled
            return Outcome.of(run_id, "skipped", "already measured", self.runs_dir / run_id)
        return None

    def reprofile(self, config: RunConfig, existing: RunRecord) -> Outcome | None:
        """A measured CUDA run without this call's ncu or nsys profile (or whose profiler
        failed) is profiled again, its timing kept (measure/reprofile.py); None: nothing to
        profile."""
        cuda = config.device == "cuda"
        ncu = self.ncu if cuda and self.ncu is not None and lacks_ncu(existing) else None
        nsys = self.nsys if cuda and self.nsys is not None and lacks_nsys(existing) else None
        if ncu is None and nsys is None:
            return None
        tools = " and ".join(name for name, on in (("ncu", ncu), ("nsys", nsys)) if on)
        self.console.print(f"  {existing.run_id}: measured; profiling it with {tools}")
        again = reprofile(self.runs_dir, existing, config, ncu, nsys, self.command)
        failed = [f["id"] for f in again.findings or [] if f["id"] in PROFILER_FAILED]
        detail = "re-profiled (timing kept)" + (f"; {', '.join(failed)}" if failed else "")
        return Outcome.of(existing.run_id, "ok", detail, self.runs_dir / existing.run_id)

    def measure_batch(self, todo: list[RunConfig], bar: Progress, overall: Any) -> None:
        """Time `todo` (one group, one device) in interleaved rounds; write each run as soon
        as it stops."""
        device = todo[0].device
        self.prepare(device)
        conditions = Conditions.for_device(device)
        header = conditions.header()
        started_at = utc_now()
        tasks = {id(c): bar.add_task(f"  {c.run_id(device_name(device))}", total=c.max_iterations)
                 for c in todo}  # fmt: skip

        def progress(state: Measuring) -> None:
            step = state.step()
            half = step.half_width if step is not None else None
            note = f"  ±{100 * half:.1f} %" if half is not None else ""
            run_id = state.config.run_id(device_name(device))
            bar.update(
                tasks[id(state.config)], completed=len(state.rows), description=f"  {run_id}{note}"
            )

        def finish(state: Measuring) -> None:
            self.outcomes.append(self.record(state, started_at, header))
            bar.remove_task(tasks[id(state.config)])
            bar.advance(overall)

        measure_rounds(todo, conditions, finish, progress)

    def record(
        self, state: Measuring, started_at: str, header: RunConditions, name: str | None = None
    ) -> Outcome:
        """Write a rounds `state` as a run folder: measured, or failed with its error.
        `name`: the device's, when it cannot be asked (a Slurm task on a node without it)."""
        config = state.config

        def measured(folder: Path) -> Measured:
            result = profile_and_release(state, folder / TRACE_FILE if config.profile else None)
            design: Design = {"rounds": state.rounds, "stopped_by": state.stopped_by,
                      "ci_target": config.ci_target, "method": "rounds in one process"}  # fmt: skip
            return measure_one(config, folder, self.ncu, result, design,
                               {**header, "rounds": state.conditions}, self.nsys)  # fmt: skip

        error = failure_of(state.error) if state.error is not None else None
        return self.write_record(config, started_at, measured, error, name=name)

    def write_record(
        self,
        config: RunConfig,
        started_at: str,
        measured: Callable[[Path], Measured],
        error: RunFailure | None,
        name: str | None = None,
        groups: tuple[str, ...] | None = None,
        history: list[Invocation] | None = None,
    ) -> Outcome:
        """Write one run folder whole: `measured(staging folder)` writes the files and gives
        run.json's measured part; an error there, or `error`, records a failed run instead."""
        name = name or device_name(config.device)
        run_id = config.run_id(name)
        start = RunStart(
            run_id=run_id,
            config=RunSettings.model_validate(config.as_dict()),
            config_hash=config.config_hash(name),
            device_name=name,
            ceilings=self.ceilings.get(config.device),
            started_at=started_at,
            environment=self.environments.get(config.device) or {},
            command=self.command,
            groups=list(groups or (config.group,)),
        )
        with staged_run_folder(self.runs_dir, run_id) as folder:
            if error is None:
                try:
                    result = measured(folder)
                except Exception as raised:  # the profiled step or ncu failed: record, go on
                    error = failure_of(raised)
            if error is not None:  # OOM, unsupported op, a model bug: record, go on
                for leftover in folder.iterdir():
                    leftover.unlink()
                write_run(folder, start.failed(error, utc_now()))
                return Outcome(run_id, "failed", f"{error.type}: {error.message}")
            finished = utc_now()
            record = start.succeeded(result, finished)
            record.history = [*(history or []), Invocation(
                started_at=started_at, finished_at=finished, commit=record.commit,
                method=result.timing.method, blocks=result.timing.blocks,
                samples=result.timing.n - sum(h.samples or 0 for h in history or []),
            )]  # fmt: skip
            write_run(folder, record)
        return Outcome.of(run_id, "ok", "", self.runs_dir / run_id)


def failure_of(error: BaseException) -> RunFailure:
    return RunFailure(
        type=type(error).__name__,
        message=str(error),
        traceback=traceback.format_exception(error)[-12:],
    )
