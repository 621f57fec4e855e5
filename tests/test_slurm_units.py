"""The Slurm executor's parts, without a cluster: options, the sbatch script submitit
writes from them, squeue parsing, planning (skip / re-attach / submit), settling a dead
task, the task function itself in-process, and the errors a user sees."""

from __future__ import annotations

import functools
import os
import stat
import subprocess
from pathlib import Path

import pytest
from submitit.slurm.slurm import _make_sbatch_string

from generator.cli import main
from generator.config import RunConfig, load_experiments, resolve_runs
from generator.errors import UserError
from generator.measure import gpu_check, runner
from generator.measure.ceilings import measure_ceilings
from generator.measure.slurm.manifest import (
    JobEntry,
    Manifest,
    load_manifest,
    placement,
    save_manifest,
    task_key,
)
from generator.measure.slurm.options import (
    CommandLineSlurm,
    SlurmOptions,
    resolve_options,
)
from generator.measure.slurm.plan import plan_tasks
from generator.measure.slurm.queue import parse_squeue, require_slurm
from generator.measure.slurm.settle import settle, stderr_path
from generator.measure.slurm.task import Receipt, TaskSpec, _ncu_settings, read_receipt, run_task
from generator.measure.slurm.watch import describe, settle_ended, state_counts, watch
from generator.measure.store import staged_run_folder
from generator.records.run import RunSettings, RunStart, read_run, write_run

MATRIX = """
schema_version = 1
[defaults]
warmup = 1
iterations = 4
ci_target = 0
profile = false

[[groups]]
id = "S"
title = "tiny"
hypothesis = "none"
models = ["simple_mlp"]
datasets = ["mnist"]
batch_sizes = [8]
phases = ["train_step", "inference"]
devices = ["cpu"]
"""
SLURM_TABLES = """
[slurm.cuda]
partition = ["t4", "a100"]
account = "lab"
time = 30
sbatch = { qos = "high", exclusive = true }

[slurm.cpu]
partition = "cpu"
cpus_per_task = 4
"""


def configs(tmp_path: Path, text: str = MATRIX) -> list[RunConfig]:
    path = tmp_path / "experiments.toml"
    path.write_text(text)
    return resolve_runs(load_experiments(path), None)


# --- options and the sbatch script ---------------------------------------------------------


def test_flags_override_the_devices_table_which_overrides_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "experiments.toml"
    path.write_text(MATRIX + SLURM_TABLES)
    tables = load_experiments(path).slurm
    cuda = resolve_options("cuda", tables["cuda"], CommandLineSlurm())
    assert cuda.partitions == ("t4", "a100") and cuda.gpus_per_task == 1
    assert (cuda.account, cuda.time_min, cuda.sbatch) == ("lab", 30, {"qos": "high",
                                                                      "exclusive": True})  # fmt: skip
    flags = CommandLineSlurm(partitions=("h100",), gpus_per_task=2, time_min=90)
    cuda = resolve_options("cuda", tables["cuda"], flags)
    assert (cuda.partitions, cuda.gpus_per_task, cuda.time_min, cuda.account) == (
        ("h100",), 2, 90, "lab",
    )  # fmt: skip
    cpu = resolve_options("cpu", tables["cpu"], CommandLineSlurm())
    assert (cpu.partitions, cpu.gpus_per_task, cpu.cpus_per_task) == (("cpu",), 0, 4)
    bare = resolve_options("cpu", None, CommandLineSlurm())
    assert bare == SlurmOptions()  # the cluster's default partition, no GPU


def test_the_sbatch_script_asks_for_what_the_options_say(tmp_path: Path) -> None:
    options = SlurmOptions(
        partitions=("a100",), gpus_per_task=1, array_parallelism=2, account="lab",
        time_min=30, sbatch={"qos": "high", "exclusive": True},
    )  # fmt: skip
    script = _make_sbatch_string(
        command="python -m submitit.core._submit x",
        folder=tmp_path,
        map_count=3,
        **options.executor_parameters("a100"),
    )
    for line in (
        "#SBATCH --partition=a100", "#SBATCH --gpus-per-task=1", "#SBATCH --account=lab",
        "#SBATCH --time=30", "#SBATCH --array=0-2%2", "#SBATCH --qos=high",
        "#SBATCH --exclusive", "#SBATCH --job-name=roofline-atlas",
    ):  # fmt: skip
        assert line in script.splitlines(), script
    default = SlurmOptions().executor_parameters(None)
    assert "partition" not in default and "gpus_per_task" not in default


def test_a_wrong_slurm_key_names_the_key(tmp_path: Path) -> None:
    path = tmp_path / "experiments.toml"
    path.write_text(MATRIX + '\n[slurm.cuda]\npartitions = ["a100"]\n')
    with pytest.raises(UserError) as caught:
        load_experiments(path)
    assert caught.value.key == "slurm.cuda.partitions"
    path.write_text(MATRIX + '\n[slurm.tpu]\npartition = "x"\n')
    with pytest.raises(UserError) as caught:
        load_experiments(path)
    assert caught.value.key is not None and caught.value.key.startswith("slurm.tpu")


# --- squeue ------------------------------------------------------------------------------


def test_squeue_lines_become_one_state_per_task() -> None:
    output = "12_0|RUNNING\n12_[1-3%2]|PENDING\n13|PENDING\n14_[5,7]|PENDING\nnoise\n"
    assert parse_squeue(output) == {
        "12_0": "RUNNING", "12_1": "PENDING", "12_2": "PENDING", "12_3": "PENDING",
        "13": "PENDING", "14_5": "PENDING", "14_7": "PENDING",
    }  # fmt: skip


def test_no_sbatch_is_a_user_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(UserError) as caught:
        require_slurm()
    assert "sbatch and squeue" in caught.value.what and "login node" in str(caught.value.fix)


def test_slurm_flags_without_the_slurm_executor_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["measure", "--partition", "a100"]) == 1
    assert "--partition only applies to --executor slurm" in capsys.readouterr().err


# --- planning ----------------------------------------------------------------------------


def entry(config: RunConfig, job_id: str, partition: str | None = None) -> JobEntry:
    return JobEntry(
        job_id=job_id, partition=partition, device=config.device, label="x",
        submitted_at="2026-11-23T00:00:00+00:00", config=config.as_dict(),
    )  # fmt: skip


def measured(runs_dir: Path, config: RunConfig, name: str, status: str = "ok") -> None:
    """A run folder as a task writes it (only what planning reads)."""
    start = RunStart(
        run_id=config.run_id(name), config=RunSettings.model_validate(config.as_dict()),
        config_hash=config.config_hash(name), device_name=name,
        started_at="2026-11-23T00:00:00+00:00", environment={}, command="x",
    )  # fmt: skip
    from generator.records.run import RunFailure

    with staged_run_folder(runs_dir, start.run_id) as folder:
        write_run(folder, start.failed(RunFailure(type="X", message="y"), "now"))
    if status == "ok":  # a timing makes it ok; build it through the record's own model
        record = read_run(runs_dir / start.run_id)
        assert record is not None
        data = record.model_dump(mode="json", exclude_unset=True)
        timing = {"n": 4, "method": "rounds in one process", "rounds": 1,
                  "stopped_by": "rounds", "ci_target": 0.02}  # fmt: skip
        data.update(status="ok", error=None, timing=timing)
        from generator.atomic import write_json

        write_json(runs_dir / start.run_id / "run.json", data)


def test_plan_skips_measured_reattaches_queued_and_submits_the_rest(tmp_path: Path) -> None:
    train, infer = configs(tmp_path)
    runs_dir = tmp_path / "runs"
    options = {"cpu": SlurmOptions(partitions=("p1", "p2"))}
    manifest = Manifest()
    manifest.device_names[placement("p1", "cpu", None)] = "CPU X (4 threads)"
    measured(runs_dir, train, "CPU X (4 threads)")
    measured(runs_dir, infer, "CPU X (4 threads)", status="failed")
    manifest.jobs[task_key(infer, "p2")] = entry(infer, "7_1", "p2")
    actions = {(t.config.phase, t.partition): t.action
               for t in plan_tasks([train, infer], options, manifest, runs_dir, force=False)}  # fmt: skip
    assert actions == {
        ("train_step", "p1"): "skip",  # measured there with the same config hash
        ("inference", "p1"): "submit",  # its run failed: measured again
        ("train_step", "p2"): "submit",  # p2's device is not known yet
        ("inference", "p2"): "attach",  # queued: never submitted twice
    }
    forced = plan_tasks([train, infer], options, manifest, runs_dir, force=True)
    assert [t.action for t in forced] == ["submit", "submit", "submit", "attach"]


def test_task_keys_differ_by_partition_and_config(tmp_path: Path) -> None:
    train, infer = configs(tmp_path)
    keys = {task_key(c, p) for c in (train, infer) for p in ("a", "b", None)}
    assert len(keys) == 6 and task_key(train, "a") == task_key(train, "a")


def test_a_damaged_manifest_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text('{"jobs": 3}')
    with pytest.raises(UserError) as caught:
        load_manifest(tmp_path)
    assert "manifest.json" in str(caught.value.file) and "delete" in str(caught.value.fix)
    save_manifest(tmp_path, Manifest())
    assert load_manifest(tmp_path) == Manifest()


# --- settling ended jobs -----------------------------------------------------------------


def test_a_task_that_died_becomes_a_failed_run_with_its_stderr(tmp_path: Path) -> None:
    (config,) = configs(tmp_path)[:1]
    job = entry(config, "31_2", "p1")
    log = stderr_path(tmp_path / "slurm", "31_2")
    log.parent.mkdir(parents=True)
    log.write_text("loading\nKilled: out of memory\nsrun: error: n1: task 0: Killed\n")
    receipt = Receipt(job_id="31_2", stage="started", run_id=config.run_id("CPU Y"),
                      device_name="CPU Y")  # fmt: skip
    outcome = settle(job, receipt, config, tmp_path / "slurm", tmp_path / "runs", "cmd")
    assert outcome.status == "failed" and outcome.run_id == config.run_id("CPU Y")
    record = read_run(tmp_path / "runs" / outcome.run_id)
    assert record is not None and record.error is not None
    assert record.error.type == "SlurmTaskDied"
    assert record.error.message.endswith("Killed: out of memory | srun: error: n1: task 0: Killed")
    assert record.error.traceback[-1] == "srun: error: n1: task 0: Killed"
    assert record.environment == {"slurm": {"job_id": "31_2", "partition": "p1"}}


def test_a_task_that_never_started_is_recorded_under_its_partition(tmp_path: Path) -> None:
    (config,) = configs(tmp_path)[:1]
    job = entry(config, "40", "gpu")
    outcome = settle(job, None, config, tmp_path / "s", tmp_path / "r", "c")
    assert outcome.run_id == config.run_id("unknown cpu (partition gpu)")
    record = read_run(tmp_path / "r" / outcome.run_id)
    assert record is not None and record.error is not None
    assert "was never written" in record.error.traceback[0]


def test_settling_learns_the_partitions_device_and_empties_the_manifest(
    tmp_path: Path,
) -> None:
    train, infer = configs(tmp_path)
    slurm = tmp_path / "slurm"
    manifest = Manifest(jobs={"a": entry(train, "5_0", "p"), "b": entry(infer, "5_1", "p")})
    finished = Receipt(job_id="5_0", stage="finished", run_id=train.run_id("CPU Z"),
                       device_name="CPU Z", status="ok")  # fmt: skip
    (slurm / "receipts").mkdir(parents=True)
    (slurm / "receipts" / "5_0.json").write_text(finished.model_dump_json())
    settled = settle_ended(manifest, {"5_1": "RUNNING"}, slurm, tmp_path / "runs", "cmd")
    assert list(settled) == ["a"] and settled["a"].status == "ok"
    assert list(manifest.jobs) == ["b"]
    assert manifest.device_names == {placement("p", "cpu", None): "CPU Z"}
    assert load_manifest(slurm) == manifest  # saved
    counts = state_counts(["a", "b"], manifest, {"5_1": "PENDING"}, settled)
    assert describe(counts) == "slurm: 1 queued · 0 running · 1 ok · 0 failed"


def test_watch_follows_the_queue_until_every_task_ended(tmp_path: Path) -> None:
    from rich.console import Console

    train, infer = configs(tmp_path)
    slurm = tmp_path / "slurm"
    manifest = Manifest(jobs={"a": entry(train, "6_0"), "b": entry(infer, "6_1")})
    answers = iter([{"6_0": "PENDING", "6_1": "PENDING"}, {"6_1": "RUNNING"}, {}])
    outcomes = watch(["a", "b"], manifest, slurm, tmp_path / "runs", "cmd",
                     lambda: next(answers), Console(file=open(os.devnull, "w")), poll_s=0)  # noqa: SIM115  # fmt: skip
    assert {k: o.status for k, o in outcomes.items()} == {"a": "failed", "b": "failed"}
    assert manifest.jobs == {}


# --- the task itself, in-process ---------------------------------------------------------


@pytest.fixture
def small_ceilings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        runner, "measure_ceilings",
        functools.partial(measure_ceilings, runs=2, gemm_size=64, stream_elements=4096),
    )  # fmt: skip


@pytest.mark.usefixtures("small_ceilings")
def test_the_task_measures_its_configuration_and_leaves_receipts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLURM_JOB_ID", "77")
    monkeypatch.setenv("SLURM_ARRAY_JOB_ID", "76")
    monkeypatch.setenv("SLURM_ARRAY_TASK_ID", "1")
    monkeypatch.setenv("SLURM_JOB_PARTITION", "p")
    (config,) = configs(tmp_path)[:1]
    spec = TaskSpec(config=config, measurements=tmp_path / "m", slurm_folder=tmp_path / "s",
                    command="python -m generator measure --executor slurm")  # fmt: skip
    result = run_task(spec)
    assert result["status"] == "ok" and result["job_id"] == "76_1"
    receipt = read_receipt(tmp_path / "s", "76_1")
    assert receipt is not None and receipt.stage == "finished"
    record = read_run(tmp_path / "m" / "runs" / receipt.run_id)
    assert record is not None and record.status == "ok"
    assert record.environment["slurm"]["job_id"] == "76_1"
    assert record.environment["slurm"]["partition"] == "p"


def test_a_cuda_task_on_a_node_without_one_is_a_failed_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if runner.device_available("cuda"):
        pytest.skip("this machine has a GPU")
    monkeypatch.setenv("SLURM_JOB_ID", "80")
    monkeypatch.delenv("SLURM_ARRAY_JOB_ID", raising=False)
    text = MATRIX.replace('devices = ["cpu"]', 'devices = ["cuda"]')
    (config,) = configs(tmp_path, text)[:1]
    spec = TaskSpec(config=config, measurements=tmp_path / "m", slurm_folder=tmp_path / "s",
                    command="c", use_ncu=True)  # fmt: skip
    assert run_task(spec)["status"] == "failed"
    receipt = read_receipt(tmp_path / "s", "80")
    assert receipt is not None
    record = read_run(tmp_path / "m" / "runs" / receipt.run_id)
    assert record is not None and record.error is not None
    assert "without a cuda device" in record.error.message


def test_ncu_without_counter_access_fails_fast_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "ncu"
    fake.write_text("#!/bin/sh\necho '==ERROR== ERR_NVGPUCTRPERM - no permission'\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.setenv("SLURMD_NODENAME", "gpu07")
    with pytest.raises(UserError) as caught:
        _ncu_settings(60)
    assert "cannot read GPU counters on gpu07" in caught.value.what
    assert "NVreg_RestrictProfilingToAdminUsers=0" in str(caught.value.fix)


def test_ctrl_c_during_submission_waits_until_the_manifest_is_saved() -> None:
    import signal

    from generator.measure.slurm.submit import _interrupt_after

    done = []
    # the handler in place before (SIG_IGN in a background job of a non-interactive shell)
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), _interrupt_after():
        os.kill(os.getpid(), signal.SIGINT)
        done.append("manifest saved")  # reached: the interrupt was held
    assert done == ["manifest saved"]
    assert signal.getsignal(signal.SIGINT) is before  # put back as it was


def test_keep_ceilings_reaches_the_slurm_tasks(tmp_path: Path) -> None:
    """`measure --executor slurm --force --keep-ceilings` measures the runs again, not the
    device's roofs, as the local executor does."""
    from types import SimpleNamespace

    from generator.measure.slurm.execute import SlurmRequest, _spec

    task = SimpleNamespace(config=SimpleNamespace(device="cpu"))

    def spec(**given: bool) -> TaskSpec:
        request = SlurmRequest(
            config_path=tmp_path / "e.toml", measurements=tmp_path, groups=None, device=None,
            use_ncu=False, ncu_timeout_s=1.0, argv=[], flags=None,  # type: ignore[arg-type]
            **given,
        )  # fmt: skip
        return _spec(task, request, "measure")  # type: ignore[arg-type]

    assert spec(force=True).force_ceilings
    assert not spec(force=True, keep_ceilings=True).force_ceilings
    assert not spec(force=False).force_ceilings


def test_the_replay_plan_and_clock_setting_reach_the_slurm_tasks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--ncu-replay kernel --ncu-kernels 7 --ncu-clock-control none` with `--executor
    slurm` profiles on the node as it would locally: the request carries them to the task
    spec, and the task's ncu settings replay that plan (they used to take the default)."""
    from types import SimpleNamespace

    from generator.measure import ncu as ncu_mode
    from generator.measure.slurm import task as task_module
    from generator.measure.slurm.execute import SlurmRequest, _spec

    request = SlurmRequest(
        config_path=tmp_path / "e.toml", measurements=tmp_path, groups=None, device=None,
        force=False, use_ncu=True, ncu_timeout_s=1.0, argv=[], flags=None,  # type: ignore[arg-type]
        ncu_clock_control="none", ncu_replay=("kernel", 7),
    )  # fmt: skip
    cuda = SimpleNamespace(config=SimpleNamespace(device="cuda"))
    spec = _spec(cuda, request, "measure")  # type: ignore[arg-type]
    assert (spec.ncu_replay, spec.ncu_clock_control) == (("kernel", 7), "none")

    readable = subprocess.CompletedProcess([], 0, stdout=gpu_check.PROBE_METRIC, stderr="")
    monkeypatch.setattr(task_module.subprocess, "run", lambda *a, **k: readable)
    monkeypatch.setattr(ncu_mode, "find_ncu", lambda available: "ncu")
    monkeypatch.setattr(ncu_mode, "metrics_for_this_gpu", lambda executable: ["m"])
    settings = task_module._ncu_settings(spec.ncu_timeout_s, spec.ncu_clock_control,
                                          spec.ncu_replay)  # fmt: skip
    assert settings.replay == ncu_mode.ReplayPlan("kernel", kernel_count=7)
    assert settings.clock_control == "none"
