"""What one Slurm array task runs: one configuration, through the same runner as a local
`measure`, into its own run folder; receipts tell the submitting command what happened.

A task writes a `started` receipt once it knows its run id (the GPU's name is only known on
the node) and a `finished` one after its run folder is in place. A task that dies between
the two (killed, out of time, out of memory) leaves only the first: the submitter then
records the run as failed, with the tail of the task's stderr."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from generator.atomic import write_json
from generator.config import RunConfig
from generator.errors import UserError

RECEIPTS_DIR = "receipts"


class Receipt(BaseModel):
    model_config = ConfigDict(extra="forbid")

    job_id: str
    stage: str  # started, finished
    run_id: str
    device_name: str
    status: str | None = None  # finished: ok or failed
    detail: str = ""


@dataclass(frozen=True)
class TaskSpec:
    """Everything a task needs, pickled by submitit into the job folder."""

    config: RunConfig
    measurements: Path
    slurm_folder: Path
    command: str  # the submitting command line, recorded in run.json
    force_ceilings: bool = False
    use_ncu: bool = False
    ncu_timeout_s: float = 1800.0
    ncu_clock_control: str = "base"
    ncu_replay: tuple[str, int] = ("range", 200)  # replay mode and kernel count, as locally


def receipt_path(slurm_folder: Path, job_id: str) -> Path:
    return slurm_folder / RECEIPTS_DIR / f"{job_id}.json"


def read_receipt(slurm_folder: Path, job_id: str) -> Receipt | None:
    path = receipt_path(slurm_folder, job_id)
    return Receipt.model_validate_json(path.read_text()) if path.exists() else None


def run_task(spec: TaskSpec) -> dict[str, Any]:
    """The function submitit runs on the node. Failures of the measurement become failed
    runs (as locally); the returned dict is the outcome."""
    from rich.console import Console
    from rich.progress import Progress

    from generator.formatting import utc_now
    from generator.measure.provenance import device_name, environment, slurm_job_id
    from generator.measure.rounds import Measuring
    from generator.measure.runner import Session, device_available

    config, job_id = spec.config, slurm_job_id() or f"local-{os.getpid()}"
    console = Console(stderr=True, width=160)
    _use_allocated_cpus()
    if not device_available(config.device):
        name = f"no {config.device} device on {os.environ.get('SLURMD_NODENAME', 'this node')}"
    else:
        name = device_name(config.device)
    run_id = config.run_id(name)
    _write(spec, Receipt(job_id=job_id, stage="started", run_id=run_id, device_name=name))
    console.print(f"task {job_id}: {run_id}")
    session = Session(spec.measurements, spec.force_ceilings, None, spec.command, console)
    session.environments[config.device] = environment(config.device, Path.cwd())
    try:
        if not device_available(config.device):
            raise UserError(
                f"the task landed on a node without a {config.device} device",
                key="--partition",
                fix="submit CUDA runs to a GPU partition (--gpus-per-task 1 asks for one GPU)",
            )
        if spec.use_ncu:
            session.ncu = _ncu_settings(spec.ncu_timeout_s, spec.ncu_clock_control, spec.ncu_replay)
    except Exception as error:  # recorded as the run's failure, like a measurement error
        outcome = session.record(Measuring(config=config, error=error), utc_now(), {}, name)
    else:
        with Progress(console=console, disable=True) as bar:
            session.measure_batch([config], bar, bar.add_task("runs", total=1))
        outcome = session.outcomes[-1]
    finished = Receipt(
        job_id=job_id, stage="finished", run_id=run_id, device_name=name,
        status=outcome.status, detail=outcome.detail,
    )  # fmt: skip
    _write(spec, finished)
    console.print(f"task {job_id}: {outcome.status} {outcome.detail}")
    return finished.model_dump()


def _use_allocated_cpus() -> None:
    """As many torch threads as Slurm allocated CPUs (--cpus-per-task): without a binding
    task plugin torch would count the node's cores and contend with its neighbours. The
    count is part of the CPU's device name, so it is in the run id."""
    allocated = os.environ.get("SLURM_CPUS_PER_TASK")
    if allocated and allocated.isdigit():
        import torch

        torch.set_num_threads(int(allocated))


def _write(spec: TaskSpec, receipt: Receipt) -> None:
    write_json(receipt_path(spec.slurm_folder, receipt.job_id), receipt.model_dump())


def _ncu_settings(
    timeout_s: float, clock_control: str = "base", replay: tuple[str, int] = ("range", 200)
) -> Any:
    """ncu, its metrics for this GPU, and proof that it may read counters on this node,
    before anything is timed: without it every run of the array would fail the same way
    after its timing."""
    from generator.measure import ncu as ncu_mode
    from generator.measure.gpu_check import counter_access, probe_command
    from generator.measure.run_files import NcuSettings

    executable = ncu_mode.find_ncu(True)
    try:
        probe = subprocess.run(
            probe_command(executable), capture_output=True, text=True, timeout=300
        )
        readable, why = counter_access(probe.stdout + probe.stderr, probe.returncode)
    except subprocess.TimeoutExpired:
        readable, why = False, "the ncu probe did not finish in 300 s"
    if not readable:
        node = os.environ.get("SLURMD_NODENAME", "this node")
        raise UserError(
            f"ncu cannot read GPU counters on {node}: {why}",
            key="--ncu",
            fix="ask the cluster's admins for counter access on this partition "
            "(NVreg_RestrictProfilingToAdminUsers=0), or measure without --ncu",
        )
    metrics = ncu_mode.metrics_for_this_gpu(executable)
    plan = ncu_mode.ReplayPlan(replay[0], kernel_count=replay[1])
    return NcuSettings(executable, metrics, timeout_s, plan, clock_control)
