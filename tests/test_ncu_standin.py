"""`measure --ncu`'s commands in every replay mode, run through a stand-in `ncu`
(tests/standin/ncu) that refuses what Nsight Compute 2025.3.1 was seen to refuse, answers
`--query-metrics` with its recorded H100 output, writes the report of a valid profile and
exports a recorded ncu CSV; and the command that failed on the H200 (2026-11-27), refused by
the stand-in with the very message that run recorded."""

from __future__ import annotations

import gzip
import importlib.machinery
import importlib.util
import json
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from generator.config import RunConfig
from generator.measure import ncu
from generator.measure.profilers import NcuSettings, _run_ncu, ncu_passes

TESTS = Path(__file__).parent
STANDIN = str(TESTS / "standin" / "ncu")
DETAILS_CSV = TESTS / "data" / "ncu" / "taytwkim__nn-perf__a1-rep.csv"
QUERY = TESTS / "data" / "ncu" / "h100-ncu-2025.3.1-query-metrics.txt.gz"
H200_RUN = (
    TESTS / "data" / "h200" / "runs" / "B-resnet18-cifar10-b128-train_step-fp32-cuda-3fd7363e"
)

# Each option ncu 2025.3.1 refuses in range and app-range replay, with a value to give it.
REFUSED = {"profile-from-start": "off", "app-replay-buffer": "memory", "import-source": "yes"}
PLANS = {
    "range, then a kernel sample": ncu.ReplayPlan("range", kernel_count=40),
    "app-range, then a kernel sample": ncu.ReplayPlan("app-range", kernel_count=40),
    "range alone": ncu.ReplayPlan("range", kernel_count=0),
    "kernel: every launch": ncu.ReplayPlan("kernel"),
}


def _standin_module() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("ncu_standin", STANDIN)
    spec = importlib.util.spec_from_loader("ncu_standin", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _config() -> RunConfig:
    return RunConfig(
        group="B", model="resnet18", dataset="cifar10", batch=8, phase="train_step",
        precision="fp32", device="cuda", input_shape=(3, 32, 32), classes=10, warmup=1,
        iterations=2, repeats=1, seed=0, optimizer="sgd-momentum", learning_rate=0.01,
        profile=False,
    )  # fmt: skip


def _command(tmp_path: Path, mode: str, clock_control: str = "base") -> list[str]:
    replay = ncu.replay_arguments(mode, 0, 40 if mode == "kernel" else 0)
    return ncu.profile_command(STANDIN, tmp_path / "p.ncu-rep", tmp_path / "c.json", "python3",
                               metrics=["gpu__time_duration.sum"], replay=replay,
                               clock_control=clock_control)  # fmt: skip


def _with(command: list[str], option: str, value: str) -> list[str]:
    """`command` with `--option value` right after `--target-processes all`, where the
    command of 2026-11-27 had --profile-from-start."""
    at = command.index("--target-processes") + 2
    return [*command[:at], f"--{option}", value, *command[at:]]


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_the_stand_in_refuses_exactly_the_options_named_here() -> None:
    assert set(_standin_module().REFUSED_IN_RANGE_MODES) == set(REFUSED)


def test_the_h200_command_is_refused_with_the_message_that_run_recorded(tmp_path: Path) -> None:
    recorded = json.loads((H200_RUN / "run.json").read_text())
    assert recorded["status"] == "failed" and recorded["error"]["type"] == "NcuFailed"
    old = _with(_command(tmp_path, "range"), "profile-from-start", "off")
    with pytest.raises(ncu.NcuFailed) as failed:
        ncu.run_ncu(old, timeout_s=60)
    assert str(failed.value) == recorded["error"]["message"]
    assert not (tmp_path / "p.ncu-rep").exists()


@pytest.mark.parametrize("mode", ncu.RANGE_MODES)
@pytest.mark.parametrize("option", sorted(REFUSED))
def test_each_refused_option_is_refused_in_each_range_mode(
    tmp_path: Path, mode: str, option: str
) -> None:
    assert _run(_command(tmp_path, mode)).returncode == 0  # today's command is accepted
    refused = _run(_with(_command(tmp_path, mode), option, REFUSED[option]))
    assert refused.returncode == 1
    assert refused.stdout.startswith("==ERROR== Option ") and option in refused.stdout


@pytest.mark.parametrize("option", ["profile-from-start", "import-source"])
def test_kernel_replay_takes_what_range_replay_refuses(tmp_path: Path, option: str) -> None:
    command = _command(tmp_path, "kernel")
    if option not in command:
        command = _with(command, option, REFUSED[option])
    assert _run(command).returncode == 0 and (tmp_path / "p.ncu-rep").is_file()


@pytest.mark.parametrize("mode", ncu.REPLAY_MODES)
@pytest.mark.parametrize("clock_control", ncu.CLOCK_CONTROLS)
def test_no_command_of_ours_passes_an_option_ncu_refuses_in_its_mode(
    tmp_path: Path, mode: str, clock_control: str
) -> None:
    command = _command(tmp_path, mode, clock_control)
    options = {word.removeprefix("--") for word in command if word.startswith("--")}
    if mode in ncu.RANGE_MODES:
        assert not options & set(REFUSED)
        assert command[-1] == ncu.MARKERS_NVTX  # the child makes no profiler start/stop call
    else:
        assert command[-1] == ncu.MARKERS_PROFILER_API
    assert command[command.index("--clock-control") + 1] == clock_control
    assert _run(command).returncode == 0


def test_a_kernel_pass_whose_child_left_the_step_to_nvtx_would_profile_nothing(
    tmp_path: Path,
) -> None:
    """Why the kernel pass's child brackets its step: ncu starts with profiling off."""
    command = [*_command(tmp_path, "kernel")[:-1], ncu.MARKERS_NVTX]
    done = _run(command)
    assert done.returncode == 0 and "==WARNING== No kernels were profiled." in done.stdout
    assert not (tmp_path / "p.ncu-rep").exists()
    with pytest.raises(ncu.NcuFailed, match="status 1"):
        ncu.run_ncu(ncu.export_command(STANDIN, tmp_path / "p.ncu-rep"), timeout_s=60)


def test_the_metric_query_goes_through_the_recorded_h100_answer() -> None:
    available = ncu.available_metrics(gzip.decompress(QUERY.read_bytes()).decode())
    assert ncu.metrics_for_this_gpu(STANDIN) == ncu.ncu_metrics(available)


@pytest.mark.parametrize("plan", PLANS.values(), ids=PLANS.keys())
@pytest.mark.parametrize("clock_control", ncu.CLOCK_CONTROLS)
def test_every_replay_mode_profiles_and_exports_through_the_stand_in(
    tmp_path: Path, plan: ncu.ReplayPlan, clock_control: str
) -> None:
    settings = NcuSettings(STANDIN, ncu.metrics_for_this_gpu(STANDIN), 60, plan, clock_control)
    recorded = _run_ncu(_config(), tmp_path, settings)
    csvs = [one["csv"] for one in ncu_passes(settings, tmp_path, tmp_path / "c.json")]
    expected = {"range": ["ncu-range.csv"], "kernel": ["ncu.csv"]}
    names = (["ncu-range.csv"] if plan.mode != "kernel" else []) + (
        ["ncu.csv"] if plan.mode == "kernel" or plan.kernel_count else []
    )
    assert csvs == names and [p["csv"] for p in recorded["passes"]] == names
    assert all(expected[p["pass"]] == [p["csv"]] for p in recorded["passes"])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*names, "ncu.log"])
    for name in names:  # the export, as ncu wrote it
        assert (tmp_path / name).read_text() == DETAILS_CSV.read_text()
    assert recorded["replay_mode"] == plan.mode and recorded["clock_control"] == clock_control
    assert "==PROF== Report:" in (tmp_path / "ncu.log").read_text()
    assert all("report" not in one for one in recorded["passes"])


def test_a_clock_control_ncu_mode_does_not_offer_is_a_user_error() -> None:
    from generator.errors import UserError

    with pytest.raises(UserError, match="clock control 'boost'") as raised:
        NcuSettings(STANDIN, [], 60, clock_control="boost")
    assert raised.value.key == "--ncu-clock-control"
