"""A block's measured memory over its timed steps.

- **CPU: the worker's resident set.** Before the timed steps the kernel's peak-RSS mark of
  the worker is reset (`5` written to /proc/self/clear_refs, Linux 4.0+), and after them
  `VmHWM` (/proc/self/status) is the highest resident set the process had during them. What
  the step itself holds is that peak less the worker's resident set before the model was
  built (`baseline`): parameters, gradients, optimizer state, inputs, the activations at
  their peak, and whatever the allocator and (compiled) kernels keep; not the interpreter
  and libraries, which the baseline already holds. Where the mark cannot be reset the peak
  is the process's whole life (`peak_window` says which).
- **CUDA: the caching allocator's peaks** (`torch.cuda.max_memory_allocated` and
  `max_memory_reserved`), reset before the timed steps: tensors only, not the CUDA context.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.records.run_parts import BlockMemory

PROC = Path("/proc/self")


def _status_kib(proc: Path, key: str) -> int | None:
    try:
        for line in (proc / "status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def rss_bytes(proc: Path = PROC) -> int | None:
    kib = _status_kib(proc, "VmRSS")
    return None if kib is None else kib * 1024


@dataclass
class CpuMemory:
    """The worker's resident set: `baseline` before the model is built, the peak over the
    timed steps (`proc`: /proc/self, a test passes a folder with a `status` file)."""

    proc: Path = PROC
    baseline: int | None = None
    window: str = "timed steps"

    def before_build(self) -> None:
        self.baseline = rss_bytes(self.proc)

    def before_timing(self) -> None:
        try:
            (self.proc / "clear_refs").write_text("5")
        except OSError:
            self.window = "the whole worker process (the peak mark could not be reset)"

    def after_timing(self) -> BlockMemory:
        kib = _status_kib(self.proc, "VmHWM")
        peak = None if kib is None else kib * 1024
        step = peak - self.baseline if peak is not None and self.baseline is not None else None
        return {
            "method": "peak resident set (VmHWM) less the resident set before the model",
            "peak_window": self.window,
            "peak_rss_bytes": peak,
            "baseline_rss_bytes": self.baseline,
            "step_bytes": step,
        }


@dataclass
class CudaMemory:
    """The caching allocator's peaks over the timed steps (`cuda`: torch.cuda, or a fake)."""

    cuda: Any

    def before_build(self) -> None:
        pass

    def before_timing(self) -> None:
        self.cuda.synchronize()
        self.cuda.reset_peak_memory_stats()

    def after_timing(self) -> BlockMemory:
        self.cuda.synchronize()
        allocated = int(self.cuda.max_memory_allocated())
        return {
            "method": "torch.cuda.max_memory_allocated over the timed steps",
            "peak_window": "timed steps",
            "peak_allocated_bytes": allocated,
            "peak_reserved_bytes": int(self.cuda.max_memory_reserved()),
            "step_bytes": allocated,
        }


def memory_probe(device: str) -> CpuMemory | CudaMemory:
    if device == "cuda":
        import torch

        return CudaMemory(torch.cuda)
    return CpuMemory()
