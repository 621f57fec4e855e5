"""`measure --executor slurm` against a real Slurm: a single-node slurmctld + slurmd started
here when sinfo finds none (tests/slurm_cluster.py). Skipped when slurm-wlm, munge or root
is missing, unless RA_REQUIRE_SLURM=1 (set by .ci/run): then that is a failure.

The matrix is three tiny CPU configurations and one planted failure: a model of the test's
own that exits the Python process hard, but only inside a Slurm job (the submitting
command's checks build it fine), so the task dies without writing its run."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator.records.run import read_run
from tests.helpers import REPO
from tests.slurm_cluster import Cluster, SlurmUnavailable, single_node_cluster

pytestmark = pytest.mark.slurm

SETTINGS = """
schema_version = 1
[defaults]
warmup = 1
iterations = {iterations}
ci_target = 0     # exactly one round: these tests check the plumbing, not the rule
profile = false
"""
# Three configurations: simple_mlp training and inference, simple_cnn training.
THREE = """
[[groups]]
id = "S"
title = "tiny matrix"
hypothesis = "none"
models = ["simple_mlp"]
datasets = ["mnist"]
batch_sizes = [8]
phases = ["train_step", "inference"]

[[groups]]
id = "C"
title = "tiny convolution"
hypothesis = "none"
models = ["simple_cnn"]
datasets = ["mnist"]
batch_sizes = [8]
"""

PLANTED = '''
import os, sys
import torch.nn as nn


class Dies(nn.Module):
    """Fine when built on the submitting machine; exits hard inside a Slurm job."""

    def __init__(self, classes: int = 10, shape: tuple = (1, 28, 28)) -> None:
        super().__init__()
        self.linear = nn.Linear(shape[0] * shape[1] * shape[2], classes)
        self.flat = nn.Flatten()

    def forward(self, x):
        if "SLURM_JOB_ID" in os.environ:
            print("planted failure: the node lost this process", file=sys.stderr, flush=True)
            os._exit(3)
        return self.linear(self.flat(x))
'''

PLANTED_GROUP = """
[[groups]]
id = "P"
title = "planted failure"
hypothesis = "none"
models = ["planted:Dies"]
datasets = ["mnist"]
batch_sizes = [8]
phases = ["inference"]
"""


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    try:
        with single_node_cluster() as running:
            yield running
    except SlurmUnavailable as why:
        if os.environ.get("RA_REQUIRE_SLURM") == "1":
            pytest.fail(f"Slurm tests could not run: {why}")
        pytest.skip(f"no Slurm: {why}")


def project(tmp_path: Path, groups: str) -> Path:
    """A folder to run in: the matrix, the planted model, and the repository's ceilings
    are not copied (each task measures its device's own the first time)."""
    (tmp_path / "experiments.toml").write_text(groups)
    (tmp_path / "planted.py").write_text(PLANTED)
    return tmp_path


def measure(folder: Path, cluster: Cluster, *extra: str, timeout: float = 600) -> tuple[int, str]:
    """The README's command, in a subprocess as a user runs it."""
    command = [
        sys.executable, "-m", "generator", "measure", "--executor", "slurm",
        "--config", "experiments.toml", "--measurements", "m", "--slurm-folder", "jobs",
        "--poll", "1", "--cpus-per-task", "1", *extra,
    ]  # fmt: skip
    if cluster.partition and "--partition" not in extra:
        command += ["--partition", cluster.partition]
    done = subprocess.run(
        command, cwd=folder, capture_output=True, text=True, timeout=timeout, env=_env()
    )
    return done.returncode, done.stdout + done.stderr


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"}


def runs(folder: Path) -> dict[str, dict[str, object]]:
    found = {}
    for path in sorted((folder / "m" / "runs").iterdir()):
        record = read_run(path)
        if record is not None:
            found[path.name] = record.model_dump(mode="json")
    return found


def test_matrix_runs_as_arrays_resumes_and_records_a_dead_task(
    tmp_path: Path, cluster: Cluster
) -> None:
    matrix = SETTINGS.format(iterations=4) + THREE
    folder = project(tmp_path, matrix + PLANTED_GROUP)

    status, output = measure(folder, cluster)
    assert status == 1, output  # the planted failure
    recorded = runs(folder)
    ok = {k: v for k, v in recorded.items() if v["status"] == "ok"}
    failed = {k: v for k, v in recorded.items() if v["status"] == "failed"}
    assert len(ok) == 3 and len(failed) == 1, output
    for record in ok.values():
        slurm = record["environment"]["slurm"]  # type: ignore[index]
        assert re.fullmatch(r"\d+_\d+", slurm["job_id"])
        assert record["timing"]["n"] > 0  # type: ignore[index]
        files = sorted(p.name for p in (folder / "m" / "runs" / record["run_id"]).iterdir())
        assert files == ["complexity.csv", "run.json", "steps.csv"]
    (dead,) = failed.values()
    error = dead["error"]
    assert error["type"] == "SlurmTaskDied"  # type: ignore[index]
    assert any("planted failure: the node lost this process" in line
               for line in error["traceback"])  # type: ignore[index]  # fmt: skip
    assert "planted" in str(dead["run_id"])
    manifest = json.loads((folder / "jobs" / "manifest.json").read_text())
    assert manifest["jobs"] == {}  # every job settled
    assert list(manifest["device_names"]) == [f"{cluster.partition or '(default)'}/cpu/1"]
    assert all("(1 threads)" in r["device_name"] for r in recorded.values())  # type: ignore[operator]
    assert "3 ok" in output and "1 failed" in output

    # Resume: the three measured runs are skipped by config hash; the failed one is retried.
    status, output = measure(folder, cluster)
    assert status == 1, output
    assert "3 already measured" in output and "1 to submit" in output, output
    again = runs(folder)
    for run_id, record in ok.items():
        assert again[run_id] == record  # untouched: same job, same timing, same finish time


def test_ctrl_c_leaves_jobs_running_and_a_second_call_reattaches(
    tmp_path: Path, cluster: Cluster
) -> None:
    folder = project(tmp_path, SETTINGS.format(iterations=300) + THREE)
    command = [
        sys.executable, "-m", "generator", "measure", "--executor", "slurm",
        "--config", "experiments.toml", "--measurements", "m", "--slurm-folder", "jobs",
        "--poll", "1", "--cpus-per-task", "1", "--array-parallelism", "1",
    ] + (["--partition", cluster.partition] if cluster.partition else [])  # fmt: skip
    first = subprocess.Popen(
        command, cwd=folder, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    manifest_path = folder / "jobs" / "manifest.json"
    deadline = time.monotonic() + 120
    while not manifest_path.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    time.sleep(2)
    first.send_signal(signal.SIGINT)
    output, _ = first.communicate(timeout=60)
    assert first.returncode == 130, output
    assert "keep running" in output
    submitted = {e["job_id"] for e in json.loads(manifest_path.read_text())["jobs"].values()}
    assert len(submitted) == 3, output
    live = subprocess.run(["squeue", "--noheader", "--array", "--format", "%i"],
                          capture_output=True, text=True, env=_env()).stdout.split()  # fmt: skip
    assert submitted & set(live), "Ctrl-C must not cancel the jobs"

    status, output = measure(folder, cluster, "--array-parallelism", "1")
    assert status == 0, output
    assert "0 to submit" in output, output
    recorded = runs(folder)
    assert len(recorded) == 3 and all(r["status"] == "ok" for r in recorded.values())
    job_ids = {r["environment"]["slurm"]["job_id"] for r in recorded.values()}  # type: ignore[index]
    assert job_ids == submitted  # measured by the jobs of the first call, none twice


def test_a_partition_sbatch_refuses_is_a_user_error(tmp_path: Path, cluster: Cluster) -> None:
    folder = project(tmp_path, SETTINGS.format(iterations=4) + THREE)
    status, output = measure(folder, cluster, "--partition", "no-such-partition")
    assert status == 1, output
    assert "sbatch refused the cpu array for partition no-such-partition" in output
    assert "fix: check the partition" in output
    assert not (folder / "m" / "runs").exists() or not list((folder / "m" / "runs").iterdir())
