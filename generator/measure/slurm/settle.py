"""A job that left the queue: what became of its run. A finished receipt says it; a task
that died without one (killed, out of time or memory, a crash outside Python) is recorded
here as a failed run with the tail of its stderr, so it is never silently missing."""

from __future__ import annotations

from pathlib import Path

from generator.config import RunConfig
from generator.formatting import utc_now
from generator.measure.outcome import Outcome
from generator.measure.slurm.manifest import JobEntry
from generator.measure.slurm.task import Receipt
from generator.measure.store import staged_run_folder
from generator.records.run import RunFailure, RunSettings, RunStart, write_run

STDERR_TAIL_LINES = 20
JOBS_DIR = "jobs"  # submitit's folder: submission scripts, pickles, logs


def stderr_path(slurm_folder: Path, job_id: str) -> Path:
    """Where submitit's sbatch script sends the task's stderr (`%A_%a_%t_log.err`)."""
    from submitit.core.utils import JobPaths

    return Path(JobPaths(slurm_folder / JOBS_DIR, job_id=job_id, task_id=0).stderr)


def stderr_tail(path: Path, lines: int = STDERR_TAIL_LINES) -> list[str]:
    if not path.exists():
        return [f"(no stderr: {path} was never written; the job may not have started)"]
    text = path.read_text(encoding="utf-8", errors="replace").rstrip()
    return text.splitlines()[-lines:] or ["(stderr is empty)"]


def _why(tail: list[str]) -> str:
    """The task's own last words, then srun's verdict ("Exited with exit code 3")."""
    lines = [line.strip() for line in tail if line.strip()]
    own = [line for line in lines if not line.startswith(("srun:", "slurmstepd:"))]
    slurm = [line for line in lines if line.startswith(("srun:", "slurmstepd:"))]
    parts = ([own[-1]] if own else []) + ([slurm[-1]] if slurm else [])
    return " | ".join(parts) or "no stderr"


def settle(
    entry: JobEntry,
    receipt: Receipt | None,
    config: RunConfig,
    slurm_folder: Path,
    runs_dir: Path,
    command: str,
) -> Outcome:
    """The outcome of a job no longer in the queue, from its receipt (None: it left none)."""
    if receipt is not None and receipt.stage == "finished":
        folder = runs_dir / receipt.run_id
        return Outcome.of(receipt.run_id, receipt.status or "failed", receipt.detail, folder)
    if receipt is not None:
        run_id, device_name = receipt.run_id, receipt.device_name
    else:  # died before Python started: the node's device name was never learned
        device_name = f"unknown {config.device} (partition {entry.partition or 'default'})"
        run_id = config.run_id(device_name)
    tail = stderr_tail(stderr_path(slurm_folder, entry.job_id))
    message = f"Slurm job {entry.job_id} ended without writing its run: {_why(tail)}"
    start = RunStart(
        run_id=run_id,
        config=RunSettings.model_validate(config.as_dict()),
        config_hash=config.config_hash(device_name),
        device_name=device_name,
        started_at=entry.submitted_at,
        environment={"slurm": {"job_id": entry.job_id, "partition": entry.partition or ""}},
        command=command,
    )
    failure = RunFailure(type="SlurmTaskDied", message=message, traceback=tail)
    with staged_run_folder(runs_dir, run_id) as folder:
        write_run(folder, start.failed(failure, utc_now()))
    return Outcome(run_id, "failed", message)
