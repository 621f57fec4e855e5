"""The measure command: config validation, the step runner on tiny models, resume,
recorded failures, interruption, ceilings and the ncu command line."""

from __future__ import annotations

import functools
import json
import shutil
import statistics
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from generator import config as config_module
from generator.analysis.results import estimate, precise_enough
from generator.cli import main
from generator.config import load_experiments, resolve_runs
from generator.errors import UserError
from generator.measure import ncu, runner, step
from generator.measure.ceilings import measure_ceilings
from generator.measure.store import staged_run_folder
from generator.records.run import read_run as read_run_record
from generator.stats import linear_trend, quantile
from generator.summaries.trace import summarize_trace
from tests.helpers import REPO

TINY = """
schema_version = 1
[defaults]
warmup = 1
iterations = 4
ci_target = 0     # exactly one round of 4 steps: these tests check the records, not the rule
method = "rounds" # one process (tests/test_blocks.py: the blocks method)
profile = true

[[groups]]
id = "T"
title = "tiny"
hypothesis = "none"
models = ["simple_mlp", "simple_cnn"]
datasets = ["mnist"]
batch_sizes = [8]
phases = ["train_step", "inference"]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "experiments.toml"
    path.write_text(text)
    return path


def error_of(tmp_path: Path, text: str) -> str:
    with pytest.raises(UserError) as caught:
        load_experiments(write(tmp_path, text))
    return caught.value.message


BASE = TINY.split("[[groups]]")[0]
GROUP = "[[groups]]" + TINY.split("[[groups]]")[1]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            GROUP + "bogus = 1\n",
            "key 'groups[0].bogus': Extra inputs are not permitted (got 1)",
        ),
        (
            GROUP.replace("batch_sizes = [8]", 'batch_sizes = ["8"]'),
            "key 'groups[0].batch_sizes[0]': Input should be a valid integer",
        ),
        (
            GROUP.replace("batch_sizes = [8]", "batch_sizes = [8, 0]"),
            "key 'groups[0].batch_sizes': [1] batch size must be positive, not 0",
        ),
        (
            GROUP.replace('"simple_cnn"', '"resnet19"'),
            "key 'groups[0].models': [1] unknown model 'resnet19'; valid: alexnet,",
        ),
        (
            GROUP.replace('["mnist"]', '["svhn"]'),
            "key 'groups[0].datasets': [0] unknown dataset 'svhn'",
        ),
        (
            GROUP + 'precisions = ["fp32", "tf32"]\n',
            "key 'groups[0].precisions': precision 'tf32' is not measured on the CPU",
        ),
        (
            GROUP + 'devices = ["tpu"]\n',
            "key 'groups[0].devices[0]': Input should be 'cpu' or 'cuda'",
        ),
        (
            GROUP.replace('["simple_mlp", "simple_cnn"]', '["vit_b_16"]'),
            "key 'groups[0].models[0]': model 'vit_b_16' accepts only 3x224x224 input, not 1x28x28",
        ),
        (
            GROUP + GROUP,
            "key 'groups.id': group id 'T' is used twice",
        ),
        (
            GROUP.replace('title = "tiny"\n', ""),
            "key 'groups[0].title': Field required",
        ),
    ],
)
def test_config_errors_name_the_key(tmp_path: Path, change: str, expected: str) -> None:
    message = error_of(tmp_path, BASE + change)
    assert message.startswith(f"{tmp_path / 'experiments.toml'}, {expected}")
    assert "fix:" in message


def test_config_file_level_errors(tmp_path: Path) -> None:
    assert "schema_version 7 is newer than this tool reads (1)" in error_of(
        tmp_path, TINY.replace("schema_version = 1", "schema_version = 7")
    )
    assert "not valid TOML" in error_of(tmp_path, TINY + "\n[[groups]\n")
    assert "defaults.iterations': Input should be greater than or equal to 2" in error_of(
        tmp_path, TINY.replace("iterations = 4", "iterations = 1")
    )
    with pytest.raises(UserError, match="experiments file not found"):
        load_experiments(tmp_path / "missing.toml")
    with pytest.raises(UserError, match="no experiment group 'Z'"):
        resolve_runs(load_experiments(write(tmp_path, TINY)), ["Z"])


def test_default_experiments_resolve() -> None:
    experiments = load_experiments(REPO / "measurements" / "experiments.toml")
    runs = resolve_runs(experiments)
    groups = [g.id for g in experiments.groups]
    assert groups[:3] == ["A", "B", "C"] and "D" in groups
    batch_sweep = [r.batch for r in runs if r.group == "A"]
    assert batch_sweep == [32, 64, 128, 256]
    assert {r.device for r in runs if r.group == "B"} == {"cpu", "cuda"}
    assert {r.phase for r in runs if r.group == "D"} == {"train_step", "inference"}
    models = {r.model for r in runs if r.group.startswith("C")}
    assert {"resnet18", "resnet34", "resnet50", "mobilenet_v2", "vit_tiny_32"} <= models
    assert {"simple_mlp", "simple_cnn"} <= models


def test_bf16_on_a_cpu_without_it_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, TINY + 'precisions = ["bf16-amp"]\n')
    runs = resolve_runs(load_experiments(path))
    monkeypatch.setattr(runner, "cpu_supports_bf16", lambda: False)
    with pytest.raises(UserError) as caught:
        runner.check_machine(runs, path, ["T"])
    assert "key 'groups[0].precisions': bf16-amp on this CPU" in caught.value.message
    monkeypatch.setattr(runner, "cpu_supports_bf16", lambda: True)
    runner.check_machine(runs, path, ["T"])


def test_one_process_estimate_consistent_with_samples() -> None:
    values = [0.010, 0.012, 0.011, 0.013, 0.030]
    step = estimate([values], False, 0.0)
    assert (step.value, step.kind, step.processes) == (0.012, "within one process", 1)
    assert (step.low, step.high) == (min(values), max(values))  # 5 samples: the whole range
    rate = step.inverse(32)
    assert (rate.value, rate.low, rate.high) == pytest.approx((32 / 0.012, 32 / 0.030, 32 / 0.010))
    assert step.half_width == pytest.approx((0.030 - 0.012) / 0.012)
    assert not precise_enough(step) and estimate([values], False, 0.0) == step  # reproducible
    assert quantile([1, 2, 3, 4], 0.5) == 2.5
    assert linear_trend([1.0, 2.0, 3.0, 4.0])[0] == pytest.approx(1.0)


@pytest.fixture
def small_ceilings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        runner,
        "measure_ceilings",
        functools.partial(measure_ceilings, runs=2, gemm_size=64, stream_elements=4096),
    )


def run_tiny(tmp_path: Path, *extra: str) -> int:
    path = write(tmp_path, TINY)
    return main(["measure", "--config", str(path), "--measurements", str(tmp_path / "m"), *extra])


def read_run(folder: Path) -> dict[str, Any] | None:
    """run.json through its typed record (validated), as the plain data the file holds."""
    record = read_run_record(folder)
    return record.model_dump(mode="json", exclude_unset=True) if record else None


@pytest.mark.usefixtures("small_ceilings")
def test_runner_records_runs_and_resumes(tmp_path: Path) -> None:
    assert run_tiny(tmp_path) == 0
    runs = sorted((tmp_path / "m" / "runs").iterdir())
    assert len(runs) == 4 and not [p for p in runs if p.name.startswith(".")]
    train = next(p for p in runs if "simple_cnn" in p.name and "train_step" in p.name)
    data = read_run(train)
    assert data is not None and data["status"] == "ok"
    assert data["config"]["batch"] == 8 and train.name.endswith(data["config_hash"][:8])
    for key in ("torch", "torchvision", "python", "cpu_model", "cpu_cores", "git", "cuda"):
        assert key in data["environment"]
    assert data["command"].startswith("python -m generator measure --config ")
    assert (data["timing"]["rounds"], data["timing"]["stopped_by"]) == (1, "rounds")
    # run.json holds how it was timed; the statistics are computed from steps.csv
    assert set(data["timing"]) == {"n", "rounds", "stopped_by", "ci_target", "method"}
    conditions = data["conditions"]
    assert "cpu_governor" in conditions and conditions["cpu_count"] >= 1
    assert [r["round"] for r in conditions["rounds"]] == [0]
    assert conditions["rounds"][0]["load_1m"] >= 0
    steps = pl.read_csv(train / "steps.csv")
    assert steps.height == 4
    phases = ["forward_s", "loss_s", "backward_s", "optimizer_step_s"]
    assert steps.select(pl.min_horizontal(phases)).item(0, 0) > 0
    phase_sums = steps.select(pl.sum_horizontal(phases)).to_series().to_list()
    assert steps["step_s"].to_list() == pytest.approx(phase_sums)
    samples = steps["step_s"].to_list()
    assert data["modelled_point"]["time_s"] == pytest.approx(statistics.median(samples))
    ops = pl.read_csv(train / "ops.csv")
    assert {"forward", "backward", "optimizer_step"} <= set(ops["phase"].to_list())
    assert "aten::convolution_backward" in ops.filter(pl.col("phase") == "backward")["op"].to_list()
    layers = pl.read_csv(train / "complexity.csv")
    assert layers["name"].to_list()[0] == "conv1" and layers["name"].to_list()[-1] == "loss"
    assert data["complexity"]["params"] == 2762
    # the profiled step's trace and the per-layer join of its time with the counted FLOPs
    assert {"trace.json.gz", "layers.csv"} <= set(data["files"])
    per_layer = pl.read_csv(train / "layers.csv")
    assert per_layer.columns == ["layer", "family", "phase", "flops", "bytes", "time_s"]
    assert set(per_layer["phase"]) == {"forward", "backward"}
    conv = per_layer.filter((pl.col("layer") == "conv1") & (pl.col("phase") == "forward"))
    assert conv["flops"].item() == layers.filter(pl.col("name") == "conv1")["forward_flops"].item()
    assert conv["time_s"].item() > 0
    trace = summarize_trace(train / "trace.json.gz", None)
    forward = next(p for p in trace["phases"] if p["phase"] == "forward")
    forward_layers = per_layer.filter(pl.col("phase") == "forward")["time_s"].sum()
    assert 0 < forward_layers <= forward["time_s"] * (1 + 1e-9)
    assert trace["steps"][0]["step"] == "ProfilerStep#0"
    point = data["modelled_point"]
    assert point["attained_flops_per_s"] == pytest.approx(
        data["complexity"]["step_flops"] / statistics.median(samples)
    )
    inference = next(p for p in runs if "simple_mlp" in p.name and "inference" in p.name)
    assert pl.read_csv(inference / "steps.csv")["loss_s"].null_count() == 4
    ceilings = list((tmp_path / "m" / "ceilings").glob("cpu-*.json"))
    assert len(ceilings) == 1
    before = {p.name: (p / "run.json").stat().st_mtime_ns for p in runs}
    assert run_tiny(tmp_path) == 0  # resume: everything skipped
    assert {p.name: (p / "run.json").stat().st_mtime_ns for p in runs} == before
    ceilings_written = ceilings[0].stat().st_mtime_ns
    assert run_tiny(tmp_path, "--force", "--keep-ceilings", "--group", "T") == 0
    assert {p.name: (p / "run.json").stat().st_mtime_ns for p in runs} != before
    assert ceilings[0].stat().st_mtime_ns == ceilings_written  # the roofs stay
    assert run_tiny(tmp_path, "--force", "--group", "T") == 0
    assert ceilings[0].stat().st_mtime_ns != ceilings_written  # --force measures them again


@pytest.mark.usefixtures("small_ceilings")
def test_rounds_stop_on_the_interval_or_a_cap(tmp_path: Path) -> None:
    text = TINY.replace("ci_target = 0 ", "ci_target = 0.5\nmax_iterations = 12\nrepeats = 2 ")
    path = write(tmp_path, text)
    assert main(["measure", "--config", str(path), "--measurements", str(tmp_path / "m")]) == 0
    for folder in (tmp_path / "m" / "runs").iterdir():
        data = read_run(folder)
        assert data is not None and data["status"] == "ok"
        timing = data["timing"]
        steps = pl.read_csv(folder / "steps.csv")
        assert timing["stopped_by"] in {"ci", "iterations"} and timing["rounds"] >= 2
        assert steps["repeat"].unique().sort().to_list() == list(range(timing["rounds"]))
        assert steps.height == timing["n"] <= 12
        half = estimate([steps["step_s"].to_list()], False, 0.0).half_width
        assert half is not None and (half <= 0.5) == (timing["stopped_by"] == "ci")
        assert len(data["conditions"]["rounds"]) == timing["rounds"]


@pytest.mark.usefixtures("small_ceilings")
def test_planted_failure_is_recorded_and_the_rest_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = step.build_model

    def broken(name: str, classes: int, shape: tuple[int, int, int]) -> object:
        if name == "simple_cnn":
            raise RuntimeError("planted: out of memory")
        return real(name, classes, shape)

    monkeypatch.setattr(step, "build_model", broken)
    assert run_tiny(tmp_path) == 1
    folders = sorted((tmp_path / "m" / "runs").iterdir())
    statuses = {p.name.split("-")[1] + "/" + p.name.split("-")[4]: read_run(p) for p in folders}
    assert {k: v["status"] for k, v in statuses.items() if v} == {
        "simple_cnn/train_step": "failed",
        "simple_cnn/inference": "failed",
        "simple_mlp/train_step": "ok",
        "simple_mlp/inference": "ok",
    }
    failed = statuses["simple_cnn/train_step"]
    assert failed is not None
    assert failed["error"] == {
        **failed["error"],
        "type": "RuntimeError",
        "message": "planted: out of memory",
    }
    for folder in folders:
        if "simple_cnn" in folder.name:
            assert [p.name for p in folder.iterdir()] == ["run.json"]
    assert "2 failed, 2 ok" in capsys.readouterr().err
    monkeypatch.setattr(step, "build_model", real)
    assert run_tiny(tmp_path) == 0  # failed runs are retried, ok ones skipped


@pytest.mark.usefixtures("small_ceilings")
def test_interrupt_keeps_finished_runs_and_discards_the_current(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = step.build_model
    calls = {"n": 0}

    def interrupted(name: str, classes: int, shape: tuple[int, int, int]) -> object:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(name, classes, shape)

    monkeypatch.setattr(step, "build_model", interrupted)
    assert run_tiny(tmp_path) == 130
    entries = sorted(p.name for p in (tmp_path / "m" / "runs").iterdir())
    assert len(entries) == 1 and not entries[0].startswith(".")
    assert read_run(tmp_path / "m" / "runs" / entries[0])["status"] == "ok"  # type: ignore[index]


def test_staged_folder_is_all_or_nothing(tmp_path: Path) -> None:
    with pytest.raises(ValueError), staged_run_folder(tmp_path, "run-1") as folder:
        (folder / "run.json").write_text("{}")
        raise ValueError("crash mid-run")
    assert list(tmp_path.iterdir()) == []
    with staged_run_folder(tmp_path, "run-1") as folder:
        (folder / "run.json").write_text('{"schema_version": 1}')
    with staged_run_folder(tmp_path, "run-1") as folder:
        (folder / "run.json").write_text('{"schema_version": 1, "second": true}')
    assert [p.name for p in tmp_path.iterdir()] == ["run-1"]
    assert json.loads((tmp_path / "run-1" / "run.json").read_text())["second"] is True


def test_future_run_schema_is_refused(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "run.json").write_text('{"schema_version": 99}')
    with pytest.raises(UserError, match=r"schema_version 99 is newer than this tool reads \(4\)"):
        read_run(tmp_path / "r")


def test_ceilings_are_measured_and_positive() -> None:
    data = measure_ceilings("cpu", runs=2, gemm_size=64, stream_elements=4096)
    assert data["gemm"]["fp32"]["best_flops_per_s"] == pytest.approx(
        2 * 64**3 / min(data["gemm"]["fp32"]["times_s"])
    )
    assert data["stream"]["triad"]["bytes"] == 3 * 4 * 4096
    assert data["stream"]["copy"]["best_bytes_per_s"] > 0


def test_ncu_command_line() -> None:
    command = ncu.profile_command(
        "/usr/local/cuda/bin/ncu", Path("/r/profile.ncu-rep"), Path("/r/cfg.json"), "python3"
    )
    metrics = command[command.index("--metrics") + 1].split(",")
    assert command[: command.index("--metrics")] == [
        "/usr/local/cuda/bin/ncu",
        "--target-processes", "all",
        "--profile-from-start", "off",
        "--nvtx",
        "--nvtx-push-pop-scope", "process",
        "--clock-control", "base",
        "--cache-control", "all",
    ]  # fmt: skip
    assert command[command.index("--metrics") + 2 :] == [
        "--export", "/r/profile.ncu-rep", "--force-overwrite",
        "python3", "-m", "generator.measure.ncu_child", "/r/cfg.json", "profiler-api",
    ]  # fmt: skip
    for needed in (
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
        "sm__sass_thread_inst_executed_op_hadd_pred_on.sum",
        "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
        "sm__ops_path_tensor_src_fp16_dst_fp32.sum",
        "sm__inst_executed_pipe_tensor.sum",
        "dram__bytes_read.sum",
        "dram__bytes_op_read.sum",
        "lts__t_bytes.sum",
        "l1tex__t_bytes.sum",
        "gpu__time_duration.sum",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    ):
        assert needed in metrics
    assert len(metrics) == len(set(metrics))
    assert ncu.export_command("ncu", Path("/r/p.ncu-rep")) == [
        "ncu", "--import", "/r/p.ncu-rep", "--csv", "--page", "details",
    ]  # fmt: skip


def test_ncu_mode_refuses_without_gpu_or_ncu(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UserError, match="--ncu needs a CUDA device"):
        ncu.find_ncu(device_available=False)
    monkeypatch.setattr(ncu.shutil, "which", lambda name: None)
    with pytest.raises(UserError, match="needs Nsight Compute's `ncu` on PATH"):
        ncu.find_ncu(device_available=True)
    monkeypatch.setattr(ncu.shutil, "which", lambda name: "/opt/ncu/ncu")
    assert ncu.find_ncu(device_available=True) == "/opt/ncu/ncu"


def test_list_needs_no_torch(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measure", "--list", "--group", "A"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and out[0].split()[:4] == ["A", "resnet18", "cifar10", "b32"]
    assert config_module.SCHEMA_VERSION == 1


def test_a_committed_run_json_of_version_3_loads_without_its_stored_statistics(
    tmp_path: Path,
) -> None:
    """Issue 64: versions 1 to 3 stored the step time's statistics, computed by measure's own
    copy of them; version 4 stores the design alone and the loader drops the copies (the
    file on disk is left as it is). The report's step time, from steps.csv, is unchanged."""
    from generator.analysis.results import run_estimate
    from generator.ingest.steps import read_steps
    from generator.records.run import STORED_STATISTICS

    source = REPO / "measurements" / "runs" / "D-resnet18-cifar10-b64-inference-fp32-cpu-e2a45839"
    stored = json.loads((source / "run.json").read_text())
    assert stored["schema_version"] == 3 and "remeasure_ci95_s" in stored["timing"]
    shutil.copytree(source, tmp_path / source.name)
    record = read_run_record(tmp_path / source.name)
    assert record is not None and record.schema_version == 4 and record.timing is not None
    kept = record.timing.model_dump(exclude_unset=True)
    assert not set(STORED_STATISTICS) & set(kept)
    assert kept == {k: v for k, v in stored["timing"].items() if k not in STORED_STATISTICS}
    assert (tmp_path / source.name / "run.json").read_text() == (source / "run.json").read_text()
    # what the copies said is what the one estimate computes from steps.csv
    # (with the between-session variation known when it was measured, which it recorded)
    step = run_estimate(read_steps(source), stored["timing"]["levels"]["session_cv"])
    assert step.kind == "calibrated" and step.value == pytest.approx(stored["timing"]["median_s"])
    assert (step.low, step.high) == pytest.approx(tuple(stored["timing"]["remeasure_ci95_s"]))
