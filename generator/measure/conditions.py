"""The conditions a run was timed under, sampled once per round: the CPU's governor and
frequency where Linux exposes them, the load average, other processes that were busy, and
on a GPU its clocks, temperature and throttle reasons (NVML, through `nvidia-ml-py`).

What cannot be read is recorded as unreadable (None), never guessed: a VM usually hides its
governor, and a machine without NVML has no GPU sample."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.records.run_parts import BusyProcess, ConditionsSample, GpuSample, RunConditions

CPUFREQ = Path("/sys/devices/system/cpu")
BUSY_PERCENT = 10.0  # another process using more than this share of one core is "busy"

# NVML's clock event ("throttle") reason bits (nvml.h, nvmlClocksEventReasons); the names are
# what run.json records and what the `throttled` finding reads.
THROTTLE_BITS = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clock_setting",
    0x200: "board_limit",
    0x400: "reliability",
}


def throttle_names(mask: int) -> list[str]:
    return [name for bit, name in THROTTLE_BITS.items() if mask & bit]


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def cpu_governor(root: Path = CPUFREQ) -> str | None:
    """The scaling governor of cpu0 (`performance`, `powersave`, …), None where hidden."""
    return _read(root / "cpu0" / "cpufreq" / "scaling_governor")


def cpu_mhz(root: Path = CPUFREQ) -> float | None:
    """The mean current frequency of the CPUs that expose one (scaling_cur_freq, kHz)."""
    values = []
    for path in sorted(root.glob("cpu[0-9]*/cpufreq/scaling_cur_freq")):
        text = _read(path)
        if text and text.isdigit():
            values.append(int(text) / 1000)
    return round(sum(values) / len(values), 1) if values else None


class BusyProcesses:
    """Other processes' CPU use between `start()` and `stop()`: each process's CPU seconds
    over the interval (a process started within it counts from zero), as a share of one
    core. Short-lived processes (a test run, a compiler) are caught as long as they are
    alive at `stop()`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._before: dict[int, float] = {}
        self._started = 0.0
        try:
            import psutil
        except ImportError:  # the measure extra installs it; a bare environment records None
            self._psutil: Any = None
            return
        self._psutil = psutil

    def _cpu_seconds(self) -> dict[int, tuple[str, float]]:
        mine = {os.getpid(), *(c.pid for c in self._psutil.Process().children(recursive=True))}
        out = {}
        for process in self._psutil.process_iter(["pid", "name", "cpu_times"]):
            info = process.info
            times = info["cpu_times"]
            if info["pid"] in mine or times is None:
                continue
            out[info["pid"]] = (info["name"] or "?", times.user + times.system)
        return out

    def start(self) -> None:
        if self._psutil is not None:
            self._before = {pid: used for pid, (_, used) in self._cpu_seconds().items()}
            self._started = self._clock()

    def stop(self) -> list[BusyProcess] | None:
        if self._psutil is None:
            return None
        elapsed = max(self._clock() - self._started, 1e-9)
        shares = [
            (pid, name, 100 * (used - self._before.get(pid, 0.0)) / elapsed)
            for pid, (name, used) in self._cpu_seconds().items()
        ]
        busy = sorted((s for s in shares if s[2] > BUSY_PERCENT), key=lambda s: -s[2])
        return [
            {"pid": pid, "name": name, "cpu_percent": round(percent, 1)}
            for pid, name, percent in busy[:5]
        ]


@dataclass
class GpuProbe:
    """NVML readings of one GPU; `nvml` is the pynvml module (a test passes a fake)."""

    nvml: Any
    index: int = 0
    handle: Any = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.nvml.nvmlInit()
        self.handle = self.nvml.nvmlDeviceGetHandleByIndex(self.index)

    def _reasons(self) -> int:
        for name in ("nvmlDeviceGetCurrentClocksEventReasons",
                     "nvmlDeviceGetCurrentClocksThrottleReasons"):  # fmt: skip
            read = getattr(self.nvml, name, None)
            if read is not None:
                return int(read(self.handle))
        return 0

    def sample(self) -> GpuSample:
        nvml, handle = self.nvml, self.handle
        return {
            "sm_clock_mhz": nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_SM),
            "memory_clock_mhz": nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_MEM),
            "max_sm_clock_mhz": nvml.nvmlDeviceGetMaxClockInfo(handle, nvml.NVML_CLOCK_SM),
            "temperature_c": nvml.nvmlDeviceGetTemperature(handle, nvml.NVML_TEMPERATURE_GPU),
            "power_w": round(nvml.nvmlDeviceGetPowerUsage(handle) / 1000, 1),
            "throttle_reasons": throttle_names(self._reasons()),
        }


def gpu_probe(device: str, index: int = 0) -> tuple[GpuProbe | None, str | None]:
    """An NVML probe of the GPU that runs the steps, or None and why not."""
    if device != "cuda":
        return None, None
    try:
        import pynvml
    except ImportError:
        return None, "nvidia-ml-py is not installed (pip install -e '.[measure]')"
    try:
        return GpuProbe(pynvml, index), None
    except Exception as error:  # NVML missing from the driver, no permission: record why
        return None, f"NVML: {error}"


@dataclass
class Conditions:
    """Samples the machine around each timed round of one device's runs."""

    device: str
    gpu: GpuProbe | None = None
    gpu_unreadable: str | None = None
    busy: BusyProcesses = field(default_factory=BusyProcesses)
    load: Callable[[], tuple[float, float, float]] = os.getloadavg

    @classmethod
    def for_device(cls, device: str) -> Conditions:
        probe, why = gpu_probe(device)
        return cls(device, probe, why)

    def before_round(self) -> None:
        self.busy.start()

    def after_round(self) -> ConditionsSample:
        sample: ConditionsSample = {
            "load_1m": round(self.load()[0], 2),
            "cpu_mhz": cpu_mhz(),
            "busy_processes": self.busy.stop(),
        }
        if self.gpu is not None:
            sample["gpu"] = self.gpu.sample()
        return sample

    def header(self) -> RunConditions:
        """What does not change within a run: the governor, and why no GPU sample."""
        header: RunConditions = {"cpu_governor": cpu_governor(), "cpu_count": os.cpu_count()}
        if self.device == "cuda":
            header["gpu_samples"] = self.gpu_unreadable or "nvml"
        return header
