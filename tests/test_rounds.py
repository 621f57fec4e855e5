"""The interleaved rounds and the stopping rule (measure.rounds), with scripted step times in
place of real steps, so that each rule is checked on known numbers; the conditions sampled
per round (measure.conditions) on fake sysfs trees and a fake NVML."""

from __future__ import annotations

import itertools
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from generator.config import ExperimentsFile, RunConfig, resolve_runs
from generator.findings import throttle_findings
from generator.measure import rounds
from generator.measure.conditions import (
    THROTTLE_BITS,
    Conditions,
    GpuProbe,
    cpu_governor,
    cpu_mhz,
    throttle_names,
)
from generator.measure.rounds import Measuring, measure_rounds, stop_reason

BASE = resolve_runs(
    ExperimentsFile.model_validate(
        {
            "schema_version": 1,
            "groups": [
                {
                    "id": "T",
                    "title": "t",
                    "hypothesis": "h",
                    "models": ["simple_mlp"],
                    "datasets": ["mnist"],
                    "batch_sizes": [8],
                }
            ],
        }
    )
)[0]


def config(model: str = "steady", **changes: Any) -> RunConfig:
    return replace(BASE, model=model, **({"warmup": 1, "iterations": 5, "repeats": 1} | changes))


class QuietMachine(Conditions):
    """No sampling; records which workload each timed round belonged to."""

    def __init__(self, turns: list[str], last: dict[str, str]) -> None:
        super().__init__("cpu", load=lambda: (0.5, 0.5, 0.5))
        self.turns, self.last = turns, last

    def before_round(self) -> None:
        pass

    def after_round(self) -> dict[str, Any]:
        self.turns.append(self.last["workload"])
        return {"load_1m": 0.5}


SCRIPT: dict[str, Any] = {}


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Workloads whose steps take scripted times: "steady" always 10 ms, "noisy" cycles
    through 5 to 15 ms, "broken" fails once two rounds have been timed. Returns the order of
    timed rounds."""
    turns: list[str] = []
    last: dict[str, str] = {}
    noisy = itertools.cycle([0.005, 0.015, 0.010, 0.006, 0.014])

    def run(workload: str, count: int) -> list[dict[str, float]]:
        last["workload"] = workload
        if workload == "broken" and len(turns) >= 2:
            raise RuntimeError("planted: out of memory")
        times = [0.010] * count if workload != "noisy" else [next(noisy) for _ in range(count)]
        return [{"forward_s": t, "step_s": t} for t in times]

    monkeypatch.setattr(rounds, "build_workload", lambda cfg: cfg.model)
    monkeypatch.setattr(rounds, "run_iterations", run)
    monkeypatch.setattr(rounds, "apply_precision", lambda precision, device: {})
    SCRIPT.update(turns=turns, last=last)
    return turns


def _measure(configs: list[RunConfig]) -> dict[str, Measuring]:
    finished: dict[str, Measuring] = {}
    machine = QuietMachine(SCRIPT["turns"], SCRIPT["last"])
    measure_rounds(configs, machine, lambda s: finished.setdefault(s.config.model, s))
    return finished


def test_configurations_take_turns_until_each_stops(scripted: list[str]) -> None:
    done = _measure([config("steady", repeats=2), config("noisy", max_iterations=30)])
    # steady stops after its two rounds (a zero-width interval); noisy runs to the cap
    assert scripted == ["steady", "noisy", "steady", "noisy", "noisy", "noisy", "noisy", "noisy"]
    assert done["steady"].stopped_by == "ci" and len(done["steady"].rows) == 10
    assert done["noisy"].stopped_by == "iterations" and len(done["noisy"].rows) == 30
    assert [row["repeat"] for row in done["steady"].rows] == [0] * 5 + [1] * 5
    assert [c["round"] for c in done["noisy"].conditions] == list(range(6))


def test_without_interleaving_one_configuration_runs_to_its_end_first(
    scripted: list[str],
) -> None:
    _measure([config("noisy", max_iterations=15, interleave=False),
              config("steady", interleave=False)])  # fmt: skip
    assert scripted == ["noisy", "noisy", "noisy", "steady"]


def test_a_slow_configuration_gets_short_rounds(scripted: list[str]) -> None:
    # 10 ms steps, max_seconds 0.5: a round ends once it has timed 0.05 s (a tenth)
    done = _measure([config("steady", iterations=20, max_seconds=0.5, ci_target=0, repeats=2)])
    assert [row["repeat"] for row in done["steady"].rows] == [0] * 5 + [1] * 5


def test_time_cap_and_fixed_rounds(scripted: list[str]) -> None:
    done = _measure([config("noisy", max_seconds=0.1), config("steady", ci_target=0, repeats=3)])
    assert done["noisy"].stopped_by == "time" and done["noisy"].timed_s >= 0.1
    assert done["steady"].stopped_by == "rounds" and done["steady"].rounds == 3


def test_a_failing_configuration_is_set_aside_and_the_others_go_on(scripted: list[str]) -> None:
    done = _measure([config("broken", repeats=5), config("steady", repeats=4)])
    assert isinstance(done["broken"].error, RuntimeError) and done["broken"].workload is None
    assert done["steady"].stopped_by == "ci" and done["steady"].rounds == 4


@pytest.mark.parametrize(
    ("rows", "timed_s", "state_rounds", "expected"),
    [
        ([0.01] * 10, 0.1, 0, None),  # fewer rounds than `repeats`
        ([0.01, 0.02] * 5, 0.15, 1, None),  # wide interval, under every cap
        ([0.01, 0.02] * 200, 6.0, 1, "iterations"),
        ([0.01, 0.02] * 5, 200.0, 1, "time"),
        ([0.010, 0.0101] * 50, 1.0, 1, "ci"),  # ±1 %: within the 2 % target
    ],
)
def test_stop_reason(
    rows: list[float], timed_s: float, state_rounds: int, expected: str | None
) -> None:
    state = Measuring(config("x", repeats=1, max_iterations=400, max_seconds=120.0))
    state.rows = [{"step_s": t} for t in rows]
    state.timed_s, state.rounds = timed_s, state_rounds
    assert stop_reason(state) == expected


def test_cpu_frequency_and_governor_from_sysfs(tmp_path: Path) -> None:
    for cpu, khz in (("cpu0", "2400000"), ("cpu1", "3000000")):
        folder = tmp_path / cpu / "cpufreq"
        folder.mkdir(parents=True)
        (folder / "scaling_cur_freq").write_text(khz + "\n")
    (tmp_path / "cpu0" / "cpufreq" / "scaling_governor").write_text("performance\n")
    assert cpu_governor(tmp_path) == "performance" and cpu_mhz(tmp_path) == 2700.0
    assert cpu_governor(tmp_path / "none") is None and cpu_mhz(tmp_path / "none") is None


class FakeNvml:
    """The pynvml calls GpuProbe makes, answering as an H100 whose power cap bites in the
    second sample (values as NVML returns them: MHz, °C, mW, a reason bitmask)."""

    NVML_CLOCK_SM, NVML_CLOCK_MEM, NVML_TEMPERATURE_GPU = 1, 2, 0

    def __init__(self) -> None:
        self.samples = iter([(1980, 0x0), (1755, 0x4)])
        self.current = (0, 0)

    def nvmlInit(self) -> None:
        pass

    def nvmlDeviceGetHandleByIndex(self, index: int) -> str:
        return f"gpu{index}"

    def nvmlDeviceGetClockInfo(self, handle: str, clock: int) -> int:
        if clock == self.NVML_CLOCK_SM:
            self.current = next(self.samples)
            return self.current[0]
        return 2619

    def nvmlDeviceGetMaxClockInfo(self, handle: str, clock: int) -> int:
        return 1980

    def nvmlDeviceGetTemperature(self, handle: str, sensor: int) -> int:
        return 71

    def nvmlDeviceGetPowerUsage(self, handle: str) -> int:
        return 699_512

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle: str) -> int:
        return self.current[1]


def test_gpu_samples_and_the_throttled_finding() -> None:
    probe = GpuProbe(FakeNvml())
    samples = [probe.sample(), probe.sample()]
    assert samples[0] == {
        "sm_clock_mhz": 1980,
        "memory_clock_mhz": 2619,
        "max_sm_clock_mhz": 1980,
        "temperature_c": 71,
        "power_w": 699.5,
        "throttle_reasons": [],
    }
    assert samples[1]["throttle_reasons"] == ["sw_power_cap"]
    rounds_ = [{"round": i, "gpu": s} for i, s in enumerate(samples)]
    (finding,) = throttle_findings({"rounds": rounds_})
    assert finding.id == "throttled"
    assert finding.evidence == (
        "NVML reported sw_power_cap in 1 of 2 rounds; SM clock 1755–1980 MHz across rounds; "
        "up to 71 °C"
    )
    steady = [{"round": 0, "gpu": samples[0]}, {"round": 1, "gpu": samples[0]}]
    assert throttle_findings({"rounds": steady}) == []
    assert throttle_findings({"rounds": [{"round": 0, "load_1m": 0.1}]}) == []  # a CPU run
    assert throttle_findings(None) == []  # runs measured before conditions were recorded


def test_throttle_bits_are_nvmls() -> None:
    assert throttle_names(0x1 | 0x20 | 0x40) == [
        "gpu_idle",
        "sw_thermal_slowdown",
        "hw_thermal_slowdown",
    ]
    assert throttle_names(0) == []
    pynvml = pytest.importorskip("pynvml")  # installed with the measure extra
    for bit, name in THROTTLE_BITS.items():
        camel = "".join(part.title() for part in name.split("_"))
        constant = getattr(pynvml, f"nvmlClocksThrottleReason{camel}")
        assert constant == bit, name


def test_conditions_record_load_and_busy_processes() -> None:
    machine = Conditions("cpu", load=lambda: (1.234, 0.0, 0.0))
    machine.before_round()
    # another tenant: a detached busy loop (not our child), started within the round
    busy = "import time\nend = time.time() + 4\nwhile time.time() < end: pass"
    subprocess.run(["bash", "-c", f"{sys.executable} -c '{busy}' >/dev/null 2>&1 &"], check=True)
    time.sleep(1.5)
    sample = machine.after_round()
    assert sample["load_1m"] == 1.23
    assert any(p["cpu_percent"] > 30 for p in sample["busy_processes"]), sample
    assert machine.header()["cpu_count"] and "gpu_samples" not in machine.header()
    assert Conditions.for_device("cpu").gpu is None
