"""Energy over a block's timed steps, where the device reports it; else why not, never 0.

- **CUDA: NVML's energy counter** (`nvmlDeviceGetTotalEnergyConsumption`, millijoules since
  the driver loaded, Volta and later): read before and after the timed steps.
- **CPU: RAPL** (`/sys/class/powercap/intel-rapl:N/energy_uj`, the package domains; AMD's
  driver exposes its own there too), with the counter's wrap (`max_energy_range_uj`). Most
  VMs do not expose it, and reading it usually needs root: the block records "not readable"
  and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.records.run_parts import BlockEnergy, EnergySummary

POWERCAP = Path("/sys/class/powercap")


def rapl_domains(root: Path = POWERCAP) -> list[Path]:
    """The package-level RAPL domains (intel-rapl:0, intel-rapl:1, …; not their subzones)."""
    return sorted(p for p in root.glob("intel-rapl:*") if p.name.count(":") == 1)


@dataclass
class RaplMeter:
    root: Path = POWERCAP
    start: dict[Path, int] = field(default_factory=dict)
    why: str | None = None

    def _read(self) -> dict[Path, int]:
        return {d: int((d / "energy_uj").read_text()) for d in rapl_domains(self.root)}

    def before(self) -> None:
        if not rapl_domains(self.root):
            self.why = f"not readable: no RAPL domain under {self.root} (usual in a VM)"
            return
        try:
            self.start = self._read()
        except (OSError, ValueError) as error:
            self.why = f"not readable: {error}"

    def after(self, steps: int) -> BlockEnergy:
        if self.why is not None:
            return {"source": "rapl", "joules": None, "why": self.why}
        try:
            end = self._read()
        except (OSError, ValueError) as error:
            return {"source": "rapl", "joules": None, "why": f"not readable: {error}"}
        total_uj = 0
        for domain, before in self.start.items():
            delta = end[domain] - before
            if delta < 0:  # the counter wrapped
                delta += int((domain / "max_energy_range_uj").read_text())
            total_uj += delta
        return {"source": "rapl", "joules": total_uj / 1e6, "steps": steps}


@dataclass
class NvmlMeter:
    """`nvml`: the pynvml module (a test passes a fake with the same functions)."""

    nvml: Any
    index: int = 0
    start_mj: int | None = None
    why: str | None = None
    handle: Any = None

    def before(self) -> None:
        try:
            self.nvml.nvmlInit()
            self.handle = self.nvml.nvmlDeviceGetHandleByIndex(self.index)
            self.start_mj = int(self.nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle))
        except Exception as error:  # no counter on this GPU (pre-Volta), NVML missing
            self.why = f"not readable: NVML: {error}"

    def after(self, steps: int) -> BlockEnergy:
        if self.why is not None or self.start_mj is None:
            return {"source": "nvml", "joules": None, "why": self.why or "not readable"}
        end = int(self.nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle))
        return {"source": "nvml", "joules": (end - self.start_mj) / 1e3, "steps": steps}


def energy_meter(device: str) -> RaplMeter | NvmlMeter:
    if device != "cuda":
        return RaplMeter()
    try:
        import pynvml
    except ImportError:
        meter = NvmlMeter(None)
        meter.why = "not readable: nvidia-ml-py is not installed (pip install -e '.[measure]')"
        return meter
    return NvmlMeter(pynvml)


def energy_summary(blocks: list[BlockEnergy | None], batch: int) -> EnergySummary | None:
    """The run's energy from its blocks': joules per step and samples per joule, or why
    there are none (None: blocks measured before energy was recorded)."""
    known = [b for b in blocks if b is not None]
    if not known:
        return None
    readable = [
        (b.get("source"), float(joules), int(steps))
        for b in known
        if (joules := b.get("joules")) is not None and (steps := b.get("steps"))
    ]
    if not readable:
        return {"source": known[0].get("source"), "joules_per_step": None,
                "why": known[0].get("why") or "not readable"}  # fmt: skip
    joules = sum(j for _, j, _ in readable)
    steps = sum(s for _, _, s in readable)
    per_step = joules / steps
    return {
        "source": readable[0][0],
        "joules_per_step": per_step,
        "samples_per_joule": batch / per_step if per_step > 0 else None,
        "blocks": len(readable),
        "steps": steps,
    }
