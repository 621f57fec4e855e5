"""Host launch time against GPU time: the one rule that calls a CUDA step host-bound (launch).

A CUDA step runs twice: the host enqueues its kernels (Python, the dispatcher, the launch
calls), and the GPU runs them. When the host takes about as long to enqueue a step as the
GPU takes to run it, the GPU waits for each launch, and neither its arithmetic units nor its
memory decide the step's time: the host does. Then the step is *host-bound (launch)*, and a
comparison between such steps (a precision, a batch size) measures the host.

Two sources give the pair, and a `LaunchTime` says which one it rests on:
- TIMED: every timed step of a CUDA block records the host's enqueue time (perf_counter
  over the phases, before the step's final synchronize) beside its event time (the GPU's
  time for the step, its waits for the host included); the medians over the same steps;
- PROFILED: the profiled step of a torch.profiler trace: the host's span from the step's
  first op to its last kernel launch beside the GPU's busy time (kernels, copies and sets)
  in it. The profiler slows the host, so this one overstates the host's share.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.analysis.thresholds import LAUNCH_BOUND_SHARE
from generator.formatting import number, percent, seconds

TIMED = "timed steps"
PROFILED = "profiled step"
HOST_BOUND = "host-bound (launch)"
SOURCES = {
    TIMED: "the host's time to enqueue each timed step against the step's GPU time (CUDA "
    "events), medians over the same steps",
    PROFILED: "the host's span from the profiled step's first op to its last kernel launch "
    "against the GPU's busy time in it (torch.profiler slows the host, so this overstates "
    "the host's share)",
}


@dataclass(frozen=True)
class LaunchTime:
    """A CUDA step's host enqueue time beside its GPU time, and which source gave them."""

    host_s: float
    gpu_s: float
    source: str  # TIMED or PROFILED
    steps: int = 1  # how many steps the medians are over

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"launch source must be one of {sorted(SOURCES)}, not {self.source!r}")

    @property
    def ratio(self) -> float:
        """Host time over GPU time (inf when the GPU time is 0)."""
        return self.host_s / self.gpu_s if self.gpu_s > 0 else float("inf")

    @property
    def host_bound(self) -> bool:
        return self.ratio >= LAUNCH_BOUND_SHARE

    def cell(self) -> str:
        """A table cell: "host-bound (launch)" or "GPU" (the GPU's work sets the time)."""
        return HOST_BOUND if self.host_bound else "GPU"

    def words(self) -> str:
        """One clause with both times, e.g. "host-bound (launch): the host took 9.3 ms to
        enqueue the step and the GPU 9.28 ms (host/GPU 1, timed steps)"."""
        times = (
            f"the host took {seconds(self.host_s)} to enqueue the step and the GPU "
            f"{seconds(self.gpu_s)} (host/GPU {number(self.ratio, 3)}, {self.source})"
        )
        if self.host_bound:
            return f"{HOST_BOUND}: {times}"
        return (
            f"not host-bound: {times}; the host's share is under "
            f"{percent(100 * LAUNCH_BOUND_SHARE)}"
        )


def launch_time(host_s: float | None, gpu_s: float | None, source: str, steps: int = 1) -> LaunchTime | None:
    """The pair, or None where either is unknown (a CPU step, a run before host time)."""
    if host_s is None or gpu_s is None or host_s < 0 or gpu_s < 0:
        return None
    return LaunchTime(host_s, gpu_s, source, steps)


def decided_by_host(*times: LaunchTime | None) -> bool:
    """A comparison of steps is decided by the host when every step in it with a known
    launch time is host-bound (and at least one is known)."""
    known = [t for t in times if t is not None]
    return bool(known) and all(t.host_bound for t in known)
