"""One submitit job array per partition (and device): each task runs `run_task` on one
configuration. The manifest is saved right after each sbatch, before anything can stop us,
so a Ctrl-C at any point leaves nothing submitted that a second call would not find."""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from generator.errors import UserError
from generator.formatting import utc_now
from generator.measure.slurm.manifest import JobEntry, Manifest, save_manifest, task_label
from generator.measure.slurm.options import SlurmOptions
from generator.measure.slurm.plan import Planned
from generator.measure.slurm.settle import JOBS_DIR
from generator.measure.slurm.task import TaskSpec, run_task


def arrays(planned: list[Planned]) -> dict[tuple[str | None, str], list[Planned]]:
    """The tasks to submit, one array per (partition, device): a device's options apply."""
    grouped: dict[tuple[str | None, str], list[Planned]] = {}
    for task in planned:
        if task.action == "submit":
            grouped.setdefault((task.partition, task.config.device), []).append(task)
    return grouped


def submit_arrays(
    planned: list[Planned],
    options: dict[str, SlurmOptions],
    manifest: Manifest,
    slurm_folder: Path,
    spec: Callable[[Planned], TaskSpec],
    say: Callable[[str], None],
) -> None:
    """Submit every array and record its jobs in `manifest` (saved after each array)."""
    import submitit

    for (partition, device), tasks in arrays(planned).items():
        executor = submitit.SlurmExecutor(folder=slurm_folder / JOBS_DIR)
        executor.update_parameters(**options[device].executor_parameters(partition))
        try:
            with _interrupt_after():
                jobs = executor.map_array(run_task, [spec(task) for task in tasks])
                _record(jobs, tasks, partition, device, options, manifest, slurm_folder)
        except (subprocess.CalledProcessError, submitit.core.utils.FailedJobError) as error:
            raise UserError(
                f"sbatch refused the {device} array for partition {partition or '(default)'}: "
                f"{_sbatch_message(error)}",
                key="--partition" if partition else "--executor",
                fix="check the partition, account and time limit (`sinfo -s` lists the "
                "partitions; [slurm.<device>] in experiments.toml or the flags set them)",
            ) from None
        first, last = jobs[0].job_id, jobs[-1].job_id
        say(
            f"submitted {len(jobs)} {device} task(s) to partition {partition or '(default)'}: "
            f"jobs {first}" + (f" … {last}" if last != first else "")
        )


def _record(
    jobs: list[Any],
    tasks: list[Planned],
    partition: str | None,
    device: str,
    options: dict[str, SlurmOptions],
    manifest: Manifest,
    slurm_folder: Path,
) -> None:
    submitted_at = utc_now()
    for task, job in zip(tasks, jobs, strict=True):
        manifest.jobs[task.key] = JobEntry(
            job_id=str(job.job_id),
            partition=partition,
            device=device,
            cpus_per_task=options[device].cpus_per_task,
            label=task_label(task.config, partition),
            submitted_at=submitted_at,
            config=task.config.as_dict(),
        )
    save_manifest(slurm_folder, manifest)


@contextmanager
def _interrupt_after() -> Iterator[None]:
    """Hold a Ctrl-C until the block is done: between sbatch and the manifest it would
    leave jobs that a second call does not know, and submits again."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt


def _sbatch_message(error: Exception) -> str:
    output = getattr(error, "stderr", None) or getattr(error, "output", None) or error
    text = output.decode(errors="replace") if isinstance(output, bytes) else str(output)
    return text.strip().splitlines()[-1] if text.strip() else type(error).__name__
