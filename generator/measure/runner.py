"""`python -m generator measure`: run the configured matrix, resume, record, summarize."""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import torch
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from generator.analysis.layer_join import LAYERS_COLUMNS
from generator.config import RunConfig, load_experiments, resolve_runs
from generator.errors import UserError
from generator.findings import layer_time_by_phase, profiler_overhead
from generator.formatting import utc_now
from generator.measure import ncu as ncu_mode
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
from generator.measure.rounds import Measuring, measure_rounds, profile_and_release
from generator.measure.step import StepResult
from generator.measure.store import staged_run_folder, write_csv
from generator.records.ceilings import CeilingsFile, ceilings_path, write_ceilings
from generator.records.finding import Finding, findings_json
from generator.records.run import (
    LAYERS_FILE,
    Invocation,
    NCU_LOG,
    TRACE_FILE,
    Measured,
    ModelledPoint,
    RunFailure,
    RunSettings,
    RunStart,
    Timing,
    read_run,
    write_run,
)
from generator.stats import summarize_times

STEP_COLUMNS = [
    "invocation",  # blocks: which measure call (0 = the first), as run.json's history
    "block",  # blocks: the worker process, numbered across invocations
    "repeat",  # rounds: the round; blocks: the block again
    "iteration",
    "forward_s",
    "loss_s",
    "backward_s",
    "optimizer_step_s",
    "step_s",
]
OPS_COLUMNS = [
    "phase",
    "op",
    "calls",
    "self_time_s",
    "total_time_s",
    "self_device_time_s",
    "input_shapes",
]


def measured_layers(trace_path: Path, layers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """layers.csv: each layer's analytic FLOPs and bytes beside its measured time."""
    from generator.analysis.layer_join import layer_rows
    from generator.analysis.trace_analysis import analyze_trace

    analysis = analyze_trace(trace_path)
    by_layer_phase = (
        analysis.points.filter(pl.col("layer").is_not_null())
        .group_by("layer", "phase")
        .agg(pl.col("time_s").sum())
    )
    return layer_rows(by_layer_phase, layers).to_dicts()


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


@dataclass(frozen=True)
class NcuSettings:
    executable: str
    metrics: list[str]  # cut to what this GPU has (ncu_mode.metrics_for_this_gpu)
    timeout_s: float


def _run_ncu(config: RunConfig, folder: Path, ncu: NcuSettings) -> dict[str, Any]:
    config_path = folder / "ncu-config.json"
    config_path.write_text(json.dumps(config.as_dict()))
    report = folder / "profile.ncu-rep"
    profile = ncu_mode.profile_command(ncu.executable, report, config_path, metrics=ncu.metrics)
    ncu_mode.run_ncu(profile, ncu.timeout_s, log=folder / NCU_LOG)
    export = ncu_mode.export_command(ncu.executable, report)
    (folder / "ncu.csv").write_text(ncu_mode.run_ncu(export, ncu.timeout_s))
    report.unlink(missing_ok=True)
    config_path.unlink(missing_ok=True)
    return {
        "profile_command": profile,
        "export_command": export,
        "clock_control": ncu_mode.CLOCK_CONTROL,
        "cache_control": ncu_mode.CACHE_CONTROL,
    }


def measure_one(
    config: RunConfig,
    folder: Path,
    ncu: NcuSettings | None,
    result: StepResult,
    timing_method: dict[str, Any],
    conditions: dict[str, Any],
) -> Measured:
    """Write the run's files into `folder` (a staging folder) from its timed steps and its
    profiled step (`result.ops`, the trace already in `folder`), and return run.json's
    measured part. `timing_method`: what the method adds to or overrides in the timing
    statistics (rounds and stopping rule, or the block estimate)."""
    from generator.complexity import analyze
    from generator.complexity.report import LAYER_COLUMNS, complexity_dict

    trace_path = folder / TRACE_FILE
    timing = summarize_times([row["step_s"] for row in result.rows], config.batch) | timing_method
    phases = {}
    for name in STEP_COLUMNS:
        values = [row[name] for row in result.rows if row.get(name) is not None]
        if name.endswith("_s") and name != "step_s" and len(values) >= 2:
            phases[name.removesuffix("_s")] = summarize_times(values, config.batch)["median_s"]
    write_csv(folder / "steps.csv", result.rows, STEP_COLUMNS)
    if config.profile:
        write_csv(folder / "ops.csv", result.ops, OPS_COLUMNS)
    complexity = analyze(
        config.model,
        config.input_shape,
        config.batch,
        config.classes,
        optimizer=config.optimizer,
        precision=config.precision,
        training=config.phase == "train_step",
        vocab=config.vocab,
        lm_phase=config.lm_phase,
    )
    layers = complexity_dict(complexity, None)["layers"]
    write_csv(folder / "complexity.csv", layers, list(LAYER_COLUMNS))
    found: list[Finding] = []
    if config.profile:
        layer_rows = measured_layers(trace_path, layers)
        write_csv(folder / LAYERS_FILE, layer_rows, list(LAYERS_COLUMNS))
        found = profiler_overhead(layer_time_by_phase(layer_rows), phases)
    totals = complexity.totals()
    median = timing["median_s"]
    files = ["run.json", "steps.csv", "complexity.csv"]
    if config.profile:
        files += ["ops.csv", TRACE_FILE, LAYERS_FILE]
    profiled = ncu is not None and config.device == "cuda"
    return Measured(
        settings=result.settings,
        timing=Timing.model_validate(timing),
        phase_median_s=phases,
        complexity=totals,
        # CPU (and any run without counters): analytic FLOPs and bytes over measured time.
        modelled_point=ModelledPoint(
            flops=totals["step_flops"],
            bytes=totals["min_traffic_bytes"],
            time_s=median,
            attained_flops_per_s=totals["step_flops"] / median,
            arithmetic_intensity=totals["arithmetic_intensity"],
        ),
        files=[*files, "ncu.csv", NCU_LOG] if profiled else files,
        conditions=conditions,
        findings=findings_json(found),
        **({"ncu": _run_ncu(config, folder, ncu)} if profiled and ncu is not None else {}),
    )


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
) -> list[Outcome]:
    """Measure the selected runs: groups timed by `rounds` one group at a time, the rest
    (`blocks`, the default) as one shuffled matrix of worker-process blocks (`seed` orders
    them; `block_runner` runs one, by default in a forked worker)."""
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
        ncu = NcuSettings(executable, metrics, ncu_timeout_s)
    session = Session(measurements, force, ncu, command_line(argv), console)
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
            measure_by_blocks(session, by_blocks, bar, overall, session.block_runner, seed)
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
    environments: dict[str, dict[str, Any]] = field(default_factory=dict)
    ceilings: dict[str, str] = field(default_factory=dict)
    outcomes: list[Outcome] = field(default_factory=list)
    block_runner: BlockRunner | None = None  # the blocks method: runs one block

    def prepare(self, device: str) -> None:
        """Ceilings and environment of `device`, once per call."""
        if device not in self.ceilings:
            self.ceilings[device] = _ceilings(self.measurements, device, self.force, self.console)
        if device not in self.environments:
            self.environments[device] = environment(device, Path.cwd())

    @property
    def runs_dir(self) -> Path:
        return self.measurements / "runs"

    def skip(self, config: RunConfig) -> Outcome | None:
        """The outcome of a run this call does not measure: no such device, or measured."""
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
            return Outcome.of(run_id, "skipped", "already measured", existing.timing)
        return None

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
            width = state.half_width()
            note = f"  ±{100 * width:.1f} %" if width is not None else ""
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
        self, state: Measuring, started_at: str, header: dict[str, Any], name: str | None = None
    ) -> Outcome:
        """Write a rounds `state` as a run folder: measured, or failed with its error.
        `name`: the device's, when it cannot be asked (a Slurm task on a node without it)."""
        config = state.config

        def measured(folder: Path) -> Measured:
            result = profile_and_release(state, folder / TRACE_FILE if config.profile else None)
            method = {"rounds": state.rounds, "stopped_by": state.stopped_by,
                      "ci_target": config.ci_target, "method": "rounds in one process"}  # fmt: skip
            return measure_one(config, folder, self.ncu, result, method,
                               {**header, "rounds": state.conditions})  # fmt: skip

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
        return Outcome.of(run_id, "ok", "", result.timing)


def failure_of(error: BaseException) -> RunFailure:
    return RunFailure(
        type=type(error).__name__,
        message=str(error),
        traceback=traceback.format_exception(error)[-12:],
    )
