"""`measure --executor slurm`: settle what ended since the last call, plan, submit one array
per partition, watch the rest to the end; the same summary as a local `measure`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from generator.config import load_experiments, resolve_runs
from generator.measure.outcome import Outcome, print_summary
from generator.measure.preflight import check_user_models
from generator.measure.provenance import command_line
from generator.measure.slurm.manifest import load_manifest, task_label
from generator.measure.slurm.options import CommandLineSlurm, SlurmOptions, resolve_options
from generator.measure.slurm.plan import Planned, plan_tasks
from generator.measure.slurm.queue import live_jobs, require_slurm
from generator.measure.slurm.submit import submit_arrays
from generator.measure.slurm.task import TaskSpec
from generator.measure.slurm.watch import settle_ended, watch

DEFAULT_SLURM_FOLDER = Path(".slurm")


@dataclass(frozen=True)
class SlurmRequest:
    config_path: Path
    measurements: Path
    groups: list[str] | None
    device: str | None
    force: bool
    use_ncu: bool
    ncu_timeout_s: float
    argv: list[str]
    flags: CommandLineSlurm
    slurm_folder: Path = DEFAULT_SLURM_FOLDER
    poll_s: float = 10.0
    keep_ceilings: bool = False  # `--force --keep-ceilings`: the runs again, not the roofs
    ncu_clock_control: str = "base"  # `--ncu-clock-control`: none where clocks may not be set
    ncu_replay: tuple[str, int] = ("range", 200)  # `--ncu-replay`, `--ncu-kernels`


class Detached(Exception):
    """Ctrl-C while watching: the jobs run on (the outcomes so far are attached)."""

    def __init__(self, outcomes: list[Outcome]) -> None:
        super().__init__("detached")
        self.outcomes = outcomes


def execute_slurm(
    request: SlurmRequest,
    console: Console | None = None,
    poll: Callable[[], dict[str, str]] = live_jobs,
) -> list[Outcome]:
    console = console or Console(stderr=True, width=None if sys.stderr.isatty() else 160)
    require_slurm()
    experiments = load_experiments(request.config_path)
    runs = [
        run
        for run in resolve_runs(experiments, request.groups)
        if request.device in (None, run.device)
    ]
    check_user_models(runs, request.config_path)
    options = {
        device: resolve_options(device, experiments.slurm.get(device), request.flags)  # type: ignore[call-overload]
        for device in {run.device for run in runs}
    }
    console.print(f"slurm: {options_summary(options)}")
    runs_dir = request.measurements / "runs"
    command = command_line(request.argv)
    manifest = load_manifest(request.slurm_folder)
    for outcome in settle_ended(manifest, poll(), request.slurm_folder, runs_dir, command).values():
        console.print(f"ended while detached: {outcome.run_id} {outcome.status} {outcome.detail}")
    planned = plan_tasks(runs, options, manifest, runs_dir, request.force)
    _say_plan(planned, console)
    watched = [task.key for task in planned if task.action != "skip"]
    skipped = {task.key: task.outcome for task in planned if task.outcome is not None}
    try:
        submit_arrays(
            planned, options, manifest, request.slurm_folder,
            lambda task: _spec(task, request, command), console.print,
        )  # fmt: skip
        settled = watch(
            watched, manifest, request.slurm_folder, runs_dir, command, poll, console,
            request.poll_s,
        )  # fmt: skip
    except KeyboardInterrupt:
        raise Detached(_in_order(planned, skipped, {})) from None
    outcomes = _in_order(planned, skipped, settled)
    print_summary(outcomes, console)
    return outcomes


def _spec(task: Planned, request: SlurmRequest, command: str) -> TaskSpec:
    return TaskSpec(
        config=task.config,
        measurements=request.measurements.resolve(),
        slurm_folder=request.slurm_folder.resolve(),
        command=command,
        force_ceilings=request.force and not request.keep_ceilings,
        use_ncu=request.use_ncu and task.config.device == "cuda",
        ncu_timeout_s=request.ncu_timeout_s,
        ncu_clock_control=request.ncu_clock_control,
        ncu_replay=request.ncu_replay,
    )


def _say_plan(planned: list[Planned], console: Console) -> None:
    counts = {a: sum(t.action == a for t in planned) for a in ("skip", "attach", "submit")}
    console.print(
        f"slurm: {len(planned)} task(s): {counts['skip']} already measured, "
        f"{counts['attach']} still queued or running (re-attached), {counts['submit']} to submit"
    )


def _in_order(
    planned: list[Planned], skipped: Mapping[str, Outcome | None], settled: Mapping[str, Outcome]
) -> list[Outcome]:
    outcomes = []
    for task in planned:
        outcome = settled.get(task.key) or skipped.get(task.key)
        if outcome is None:
            label = task_label(task.config, task.partition)
            outcome = Outcome(label, "detached", "still queued or running: run again to follow")
        outcomes.append(outcome)
    return outcomes


def options_summary(options: dict[str, SlurmOptions]) -> str:
    return "; ".join(
        f"{device}: partitions {', '.join(p or '(default)' for p in o.partitions)}"
        for device, o in sorted(options.items())
    )
