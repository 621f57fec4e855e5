"""What Slurm says of our jobs: `squeue` for the ones still queued or running. Finished
jobs leave the queue; what they did is read from their receipts and run folders, so no
accounting database (sacct) is needed."""

from __future__ import annotations

import getpass
import shutil
import subprocess

from generator.errors import UserError

# squeue's states of a job that is not finished yet (PENDING, RUNNING, …); anything absent
# from the queue has ended.
QUEUED = frozenset({"PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "RESV_DEL_HOLD"})
SQUEUE_FORMAT = "%i|%T"  # job id (array tasks as <array>_<index>) | state in full


SQUEUE_FIX = (
    "check that the Slurm controller is reachable (sinfo), then run the same command again: "
    "it re-attaches"
)


def require_slurm() -> None:
    """sbatch and squeue on PATH, or a UserError saying what to do instead."""
    missing = [tool for tool in ("sbatch", "squeue") if shutil.which(tool) is None]
    if missing:
        raise UserError(
            f"--executor slurm needs Slurm's {' and '.join(missing)} on PATH, and "
            f"{'they are' if len(missing) > 1 else 'it is'} not there",
            key="--executor",
            fix="run the command on the cluster's login node (or `module load slurm`), or "
            "measure here with --executor local",
        )


def squeue_command(user: str | None = None) -> list[str]:
    """One line per array task (-r), ours only, no header."""
    return ["squeue", "--noheader", "--array", "--user", user or getpass.getuser(),
            "--format", SQUEUE_FORMAT]  # fmt: skip


def parse_squeue(output: str) -> dict[str, str]:
    """{job id: state} from squeue_command()'s output. A pending array may still be shown
    collapsed as `12_[3-5%2]`; it is expanded so every task is found by its own id."""
    states: dict[str, str] = {}
    for line in output.splitlines():
        if "|" not in line:
            continue
        job, state = (part.strip() for part in line.split("|", 1))
        for job_id in _expand(job):
            states[job_id] = state
    return states


def _expand(job: str) -> list[str]:
    if "_[" not in job:
        return [job]
    array, _, spec = job.partition("_[")
    ids: list[str] = []
    for part in spec.rstrip("]").split("%")[0].split(","):
        low, _, high = part.partition("-")
        if low.isdigit() and (not high or high.isdigit()):
            ids += [f"{array}_{i}" for i in range(int(low), int(high or low) + 1)]
    return ids


def live_jobs() -> dict[str, str]:
    """Our queued and running jobs now. A failing squeue is an error, not "all finished":
    that would record every running task as dead."""
    try:
        done = subprocess.run(squeue_command(), capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UserError(
            f"squeue did not answer: {error}",
            key="--executor",
            fix=SQUEUE_FIX,
        ) from None
    if done.returncode != 0:
        raise UserError(
            f"squeue exited with status {done.returncode}: {done.stderr.strip()[-300:]}",
            key="--executor",
            fix=SQUEUE_FIX,
        )
    return parse_squeue(done.stdout)
