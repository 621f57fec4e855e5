"""Follow the submitted jobs until each has left the queue, with a live bar over their
states, settling each as it ends. Ctrl-C stops the watching only: the jobs run on, and the
same command re-attaches."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from generator.config import RunConfig
from generator.measure.outcome import Outcome
from generator.measure.slurm.manifest import Manifest, placement, save_manifest
from generator.measure.slurm.queue import QUEUED
from generator.measure.slurm.settle import settle
from generator.measure.slurm.task import read_receipt


def settle_ended(
    manifest: Manifest,
    live: dict[str, str],
    slurm_folder: Path,
    runs_dir: Path,
    command: str,
) -> dict[str, Outcome]:
    """Settle every manifest job not in `live` (squeue's answer): its outcome by task key.
    Each leaves the manifest, and its receipt teaches which device its partition has."""
    settled: dict[str, Outcome] = {}
    for key, entry in list(manifest.jobs.items()):
        if entry.job_id in live:
            continue
        config = RunConfig.from_dict(entry.config)
        receipt = read_receipt(slurm_folder, entry.job_id)
        settled[key] = settle(entry, receipt, config, slurm_folder, runs_dir, command)
        if receipt is not None and not receipt.device_name.startswith("no "):
            where = placement(entry.partition, entry.device, entry.cpus_per_task)
            manifest.device_names[where] = receipt.device_name
        del manifest.jobs[key]
    if settled:
        save_manifest(slurm_folder, manifest)
    return settled


def state_counts(keys: list[str], manifest: Manifest, live: dict[str, str],
                 settled: dict[str, Outcome]) -> Counter[str]:  # fmt: skip
    """queued / running / ok / failed over the watched tasks."""
    counts: Counter[str] = Counter()
    for key in keys:
        if key in settled:
            counts[settled[key].status] += 1
        else:
            state = live.get(manifest.jobs[key].job_id, "RUNNING")
            counts["queued" if state in QUEUED else "running"] += 1
    return counts


def describe(counts: Counter[str]) -> str:
    order = ("queued", "running", "ok", "failed")
    return "slurm: " + " · ".join(f"{counts.get(state, 0)} {state}" for state in order)


def watch(
    keys: list[str],
    manifest: Manifest,
    slurm_folder: Path,
    runs_dir: Path,
    command: str,
    poll: Callable[[], dict[str, str]],
    console: Console,
    poll_s: float = 10.0,
) -> dict[str, Outcome]:
    """Outcomes of `keys` (tasks in the manifest) once all have ended. KeyboardInterrupt
    propagates after the manifest is saved, with the jobs still queued."""
    settled: dict[str, Outcome] = {}
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())  # fmt: skip
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("slurm: waiting for squeue", total=len(keys))
        while True:
            live = poll()
            for key, outcome in settle_ended(
                manifest, live, slurm_folder, runs_dir, command
            ).items():
                if key in keys:
                    settled[key] = outcome
                    if outcome.status == "failed":
                        console.print(f"[red]failed[/red] {outcome.run_id}: {outcome.detail}")
            counts = state_counts(keys, manifest, live, settled)
            bar.update(task, completed=len(settled), description=describe(counts))
            if len(settled) == len(keys):
                return settled
            time.sleep(poll_s)
