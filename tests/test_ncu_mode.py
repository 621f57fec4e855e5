"""`measure --ncu` and `check-gpu` on a CPU machine: their commands, and how they read what
ncu answered on a real H100 (recorded outputs), including ncu failing or hanging."""

from __future__ import annotations

import gzip
import stat
from pathlib import Path

import pytest

from generator.measure import gpu_check, ncu
from generator.measure.provenance import COMMIT_VARIABLE, git_state

DATA = Path(__file__).parent / "data" / "ncu"
H100_QUERY = DATA / "h100-ncu-2025.3.1-query-metrics.txt.gz"


@pytest.fixture(scope="module")
def h100_metrics() -> set[str]:
    return ncu.available_metrics(gzip.decompress(H100_QUERY.read_bytes()).decode())


def test_query_output_lists_the_h100_metrics(h100_metrics: set[str]) -> None:
    assert len(h100_metrics) == 3481
    for name in (
        "dram__bytes_read",
        "gpu__time_duration",
        "sm__sass_thread_inst_executed_op_ffma_pred_on",
        "sm__ops_path_tensor_src_bf16_dst_fp32",
        "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32",
    ):
        assert name in h100_metrics
    # Headers, separators and descriptions are not metrics.
    assert not {n for n in h100_metrics if " " in n or n.startswith("-")}
    # Hopper has no generic fp16 counter split by accumulator: only the sum.
    assert "sm__ops_path_tensor_src_fp16_dst_fp32" not in h100_metrics
    assert "sm__ops_path_tensor_src_fp16" in h100_metrics


def test_metric_list_asks_only_for_what_the_gpu_has(h100_metrics: set[str]) -> None:
    metrics = ncu.ncu_metrics(h100_metrics)
    assert len(metrics) == len(set(metrics))
    assert all(ncu.metric_base(m) in h100_metrics for m in metrics)
    # One name per mapped column: smsp__ twins of an available sm__ counter are not asked for.
    assert "sm__sass_thread_inst_executed_op_ffma_pred_on.sum" in metrics
    assert "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum" not in metrics
    # The generic fp16 sum (mapped) and Hopper's warpgroup-MMA counters (kept for re-reading).
    assert "sm__ops_path_tensor_src_fp16.sum" in metrics
    assert "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum" in metrics
    assert not [m for m in metrics if "sparsity" in m or "int8" in m]
    assert len(metrics) < 40  # 66 names (19 replay passes a kernel) before the cut


def test_metric_list_without_a_query_keeps_only_collectable_names() -> None:
    metrics = ncu.ncu_metrics()
    assert "gpu__time_duration.sum" in metrics
    assert not [m for m in metrics if ":" in m or "." not in m]


def _script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "fake-ncu"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_ncu_messages_go_to_the_log_and_its_output_is_returned(tmp_path: Path) -> None:
    fake = _script(
        tmp_path, 'echo "==PROF== Connected"; echo "child output"; echo "==WARNING== w" >&2'
    )
    log = tmp_path / "ncu.log"
    assert ncu.run_ncu([fake], timeout_s=30, log=log) == "==PROF== Connected\nchild output\n"
    assert log.read_text() == "==WARNING== w\n\n==PROF== Connected\n"


def test_a_failing_ncu_says_why(tmp_path: Path) -> None:
    fake = _script(tmp_path, 'echo "==ERROR== Failed to find metric sol:Duration" >&2; exit 3')
    with pytest.raises(ncu.NcuFailed, match=r"status 3: ==ERROR== Failed to find metric"):
        ncu.run_ncu([fake], timeout_s=30)


def test_a_hanging_ncu_is_stopped(tmp_path: Path) -> None:
    fake = _script(tmp_path, 'echo "==PROF== Profiling kernel - 1: 15 passes"; exec sleep 30')
    with pytest.raises(ncu.NcuFailed, match=r"did not finish in 1 s"):
        ncu.run_ncu([fake], timeout_s=1)


def test_profile_command_uses_the_chosen_metrics() -> None:
    command = ncu.profile_command(
        "ncu", Path("/r/p.ncu-rep"), Path("/r/c.json"), "python3", metrics=["a__b.sum", "c__d.sum"]
    )
    assert command[command.index("--metrics") + 1] == "a__b.sum,c__d.sum"


def test_counter_access_read_from_a_real_permission_error() -> None:
    output = (DATA / "ncu-errors" / "Gardenia-Tian__LearningNote4Dev__profile.csv").read_text()
    readable, why = gpu_check.counter_access(output, returncode=0)
    assert not readable
    assert "NVreg_RestrictProfilingToAdminUsers=0" in why


def test_counter_access_when_the_probe_reads_its_metric() -> None:
    output = "==PROF== Connected\n  Section: Command line profiler metrics\n    sm__cycles_elapsed.avg   cycle   4,102\n"
    assert gpu_check.counter_access(output, 0) == (True, "")
    assert gpu_check.counter_access("==ERROR== The application returned an error code (1).", 1) == (
        False,
        "==ERROR== The application returned an error code (1).",
    )


def test_probe_command() -> None:
    command = gpu_check.probe_command("/usr/local/cuda/bin/ncu", "python3")
    assert command[:5] == [
        "/usr/local/cuda/bin/ncu", "--target-processes", "all", "--metrics", "sm__cycles_elapsed.avg",
    ]  # fmt: skip
    assert command[5:7] == ["python3", "-c"]


def test_check_gpu_on_a_machine_without_one() -> None:
    report = gpu_check.check_gpu()
    assert report["cuda_available"] is False
    assert report["paths"] == {
        "timing_and_trace": True,
        "cuda_timing": False,
        "ncu_counters": False,
    }
    assert report["environment"]["torch"].startswith("2.14.1")


def test_a_copied_tree_records_the_commit_it_was_copied_from(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(COMMIT_VARIABLE, "8279f90ad4ff70e9076d6b436547c98c7f96b9e3")
    state = git_state(tmp_path)
    assert state["commit"] == "8279f90ad4ff70e9076d6b436547c98c7f96b9e3"
    assert state["dirty"] is None
    monkeypatch.delenv(COMMIT_VARIABLE)
    assert git_state(tmp_path) == {"commit": None, "dirty": None}


def test_range_replay_covers_the_phase_ranges_the_child_pushes() -> None:
    command = ncu.profile_command(
        "ncu", Path("/r/p.ncu-rep"), Path("/r/c.json"), "python3", metrics=["a__b.sum"],
        replay=ncu.replay_arguments("range"),
    )  # fmt: skip
    assert command[command.index("--replay-mode") + 1] == "range"
    included = [command[i + 1] for i, arg in enumerate(command) if arg == "--nvtx-include"]
    assert included == ["forward/", "loss/", "backward/", "optimizer_step/"]
    # the child's ranges are process-scoped pushes (backward runs on autograd's thread); in
    # range replay they alone mark the step: ncu 2025.3 refuses --profile-from-start there,
    # and the child is told to make no profiler start/stop call
    assert command[command.index("--nvtx-push-pop-scope") + 1] == "process"
    assert "--profile-from-start" not in command
    assert command[-2:] == ["/r/c.json", ncu.MARKERS_NVTX]
    kernel = ncu.profile_command("ncu", Path("/r/p.ncu-rep"), Path("/r/c.json"), "python3",
                                 metrics=["a__b.sum"], replay=ncu.replay_arguments("kernel", 0, 9))  # fmt: skip
    assert kernel[kernel.index("--profile-from-start") + 1] == "off"
    assert kernel[-1] == ncu.MARKERS_PROFILER_API
    assert ncu.replay_arguments("app-range")[:2] == ["--replay-mode", "app-range"]
    assert ncu.replay_arguments("kernel", skip=40, count=25) == [
        "--replay-mode", "kernel", "--launch-skip", "40", "--launch-count", "25",
    ]  # fmt: skip
    assert ncu.replay_arguments("kernel") == ["--replay-mode", "kernel"]


def test_a_bad_replay_plan_is_a_user_error() -> None:
    from generator.errors import UserError

    with pytest.raises(UserError, match="replay mode 'instruction'"):
        ncu.ReplayPlan(mode="instruction")
    with pytest.raises(UserError, match="0 or more"):
        ncu.ReplayPlan(kernel_count=-1)


def test_a_run_is_profiled_by_range_then_a_kernel_sample_and_says_so(tmp_path: Path) -> None:
    """Through the stand-in ncu (tests/standin/ncu), its arguments logged on the way."""
    from generator.config import RunConfig
    from generator.measure.profilers import NcuSettings, _run_ncu

    calls = tmp_path / "calls.txt"
    fake = _script(tmp_path, f'echo "$@" >> {calls}; exec {Path(__file__).parent}/standin/ncu "$@"')
    config = RunConfig(group="T", model="simple_mlp", dataset="mnist", input_shape=(1, 28, 28),
                       classes=10, batch=8, phase="train_step", precision="fp32", device="cuda",
                       warmup=1, iterations=2, repeats=1, seed=0, optimizer="sgd",
                       learning_rate=0.01, profile=False)  # fmt: skip
    folder = tmp_path / "run"
    folder.mkdir()
    settings = NcuSettings(fake, ["a__b.sum"], 30, ncu.ReplayPlan("range", kernel_count=50))
    recorded = _run_ncu(config, folder, settings)
    assert recorded["replay_mode"] == "range"
    assert recorded["kernel_sample"] == {"launch_skip": 0, "launch_count": 50}
    assert [p["pass"] for p in recorded["passes"]] == ["range", "kernel"]
    lines = calls.read_text().splitlines()
    assert len(lines) == 4  # profile and export, per pass
    assert "--replay-mode range" in lines[0] and "--import" in lines[1]
    assert "--replay-mode kernel --launch-skip 0 --launch-count 50" in lines[2]
    assert sorted(p.name for p in folder.iterdir()) == ["ncu-range.csv", "ncu.csv", "ncu.log"]
    # kernel mode alone: one pass over every kernel, as ncu mode was before ranges
    only = NcuSettings(fake, ["a__b.sum"], 30, ncu.ReplayPlan("kernel"))
    recorded = _run_ncu(config, folder, only)
    assert [p["pass"] for p in recorded["passes"]] == ["kernel"]
    assert "--launch-count" not in recorded["passes"][0]["profile_command"]
