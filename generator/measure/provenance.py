"""Everything needed to trust and cite a run: machine, software, code version, command."""

from __future__ import annotations

import os
import platform
import shlex
import socket
import subprocess
import sys
from pathlib import Path

from generator.formatting import slug
from generator.records.run_parts import Environment, GitState


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def cpu_supports_bf16() -> bool:
    """Native bf16 arithmetic (AVX512-BF16 or AMX); without it autocast emulates."""
    return bool(cpu_flags() & {"avx512_bf16", "amx_bf16"})


def device_name(device: str) -> str:
    """What the hash and the ceilings file are keyed by: GPU name, or CPU model + threads."""
    import torch

    if device == "cuda":
        return str(torch.cuda.get_device_name(0))
    return f"{cpu_model()} ({torch.get_num_threads()} threads)"


def device_id(device: str) -> str:
    return slug(("cpu " if device == "cpu" else "") + device_name(device))


COMMIT_VARIABLE = "ROOFLINE_ATLAS_COMMIT"


def git_state(repo: Path) -> GitState:
    """Commit and dirty flag of the code (changes under measurements/ do not count:
    measuring writes there)."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=repo, capture_output=True, text=True, check=True
        ).stdout.strip()

    # A tree copied to another machine (a lent GPU): the copier names the commit it copied,
    # which any .git that travelled with the copy may not match.
    copied = os.environ.get(COMMIT_VARIABLE)
    if copied:
        return {"commit": copied, "dirty": None, "source": COMMIT_VARIABLE}
    try:
        commit = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--", ".", ":(exclude)measurements"))
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": dirty}


def _nvidia_driver() -> str | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.strip().splitlines()[0] if out.strip() else None


def _version_of(package: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return None


def environment(device: str, repo: Path) -> Environment:
    import torch
    import torchvision

    cuda = device == "cuda" and torch.cuda.is_available()
    return {
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "cpu_model": cpu_model(),
        "cpu_cores": os.cpu_count(),
        "cpu_bf16": cpu_supports_bf16(),
        "torch_threads": torch.get_num_threads(),
        "gpu_name": torch.cuda.get_device_name(0) if cuda else None,
        "gpu_capability": ".".join(map(str, torch.cuda.get_device_capability(0))) if cuda else None,
        "driver": _nvidia_driver() if cuda else None,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "transformers": _version_of("transformers"),  # builds bert_base, gpt2, wav2vec2_base
        "python": platform.python_version(),
        "git": git_state(repo),
        **({"slurm": job} if (job := slurm_job()) else {}),
    }


def slurm_job_id() -> str | None:
    """submitit's id of the Slurm job this process runs in: <array job>_<index> for an
    array task, else the job id; None outside Slurm."""
    array, index = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    if array and index:
        return f"{array}_{index}"
    return os.environ.get("SLURM_JOB_ID")


def slurm_job() -> dict[str, str] | None:
    """The Slurm job this process runs in (`measure --executor slurm`), else None."""
    job_id = slurm_job_id()
    if job_id is None:
        return None
    return {
        "job_id": job_id,
        "partition": os.environ.get("SLURM_JOB_PARTITION", ""),
        "node": os.environ.get("SLURMD_NODENAME", socket.gethostname()),
        "cluster": os.environ.get("SLURM_CLUSTER_NAME", ""),
    }


def command_line(argv: list[str] | None = None) -> str:
    """The command as a user would retype it."""
    args = sys.argv[1:] if argv is None else argv
    return shlex.join(["python", "-m", "generator", *args])
