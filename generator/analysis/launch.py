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
  in it. The profiler slows the host (2 to 3 times on the H200's ResNet-18 step), so this
  one overstates the host's share. Where the configuration was also timed unprofiled
  (`timed_step_s`, a run's timed median), the verdict also needs the GPU idle for at least
  HOST_BOUND_IDLE_SHARE of that step (its busy time at most the rest): a step the GPU
  keeps busy is not set by the host, however slow the profiled host was.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from generator.analysis.thresholds import HOST_BOUND_IDLE_SHARE, LAUNCH_BOUND_SHARE
from generator.formatting import number, percent, seconds
from generator.records.run import PHASES

# Phases whose host time is not enqueue time: they synchronize, so the host waits there
# for the GPU's work so far. GradScaler's step reads its inf check with .item() under fp16
# autocast; the timed comparison leaves such phases out on both sides.
SYNCHRONIZING_PHASES = {"fp16-amp": ("optimizer_step",)}

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
    # PROFILED: the same configuration's timed (unprofiled) median step, where it has one
    timed_step_s: float | None = None

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"launch source must be one of {sorted(SOURCES)}, not {self.source!r}")

    @property
    def ratio(self) -> float:
        """Host time over GPU time (inf when the GPU time is 0)."""
        return self.host_s / self.gpu_s if self.gpu_s > 0 else float("inf")

    @property
    def gpu_busy_share(self) -> float | None:
        """PROFILED with a timed step: the profiled step's GPU busy time over the timed
        (unprofiled) median step, the GPU's utilisation in it (may exceed 1 by noise)."""
        if self.source != PROFILED or not self.timed_step_s:
            return None
        return self.gpu_s / self.timed_step_s

    @property
    def gpu_idle_share(self) -> float | None:
        """PROFILED with a timed step: the share of the unprofiled step the GPU is idle."""
        busy = self.gpu_busy_share
        return None if busy is None else max(0.0, 1 - busy)

    @property
    def host_bound(self) -> bool:
        idle = self.gpu_idle_share
        return self.ratio >= LAUNCH_BOUND_SHARE and (idle is None or idle >= HOST_BOUND_IDLE_SHARE)

    def cell(self) -> str:
        """A table cell: "host-bound (launch)" or "GPU" (the GPU's work sets the time)."""
        return HOST_BOUND if self.host_bound else "GPU"

    def words(self) -> str:
        """One clause with both times, e.g. "host-bound (launch): the host took 9.3 ms to
        enqueue the step and the GPU took 9.28 ms (host/GPU 1, timed steps)"."""
        gpu = "the GPU was busy" if self.source == PROFILED else "the GPU took"
        times = (
            f"the host took {seconds(self.host_s)} to enqueue the step and {gpu} "
            f"{seconds(self.gpu_s)} (host/GPU {number(self.ratio, 3)}, {self.source})"
        )
        idle = self.gpu_idle_share
        if idle is not None:
            times += (
                f"; the GPU is idle {percent(100 * idle)} of the unprofiled step "
                f"({seconds(self.timed_step_s)})"
            )
        if self.host_bound:
            return f"{HOST_BOUND}: {times}"
        if self.ratio >= LAUNCH_BOUND_SHARE:
            return (
                f"not host-bound: {times}, under {percent(100 * HOST_BOUND_IDLE_SHARE)}: the "
                "GPU's work sets the unprofiled step"
            )
        return (
            f"not host-bound: {times}; the host's share is under "
            f"{percent(100 * LAUNCH_BOUND_SHARE)}"
        )


def launch_time(
    host_s: float | None, gpu_s: float | None, source: str, steps: int = 1
) -> LaunchTime | None:
    """The pair, or None where either is unknown (a CPU step, a run before host time)."""
    if host_s is None or gpu_s is None or host_s < 0 or gpu_s < 0:
        return None
    return LaunchTime(host_s, gpu_s, source, steps)


def decided_by_host(*times: LaunchTime | None) -> bool:
    """A comparison of steps is decided by the host when every step in it with a known
    launch time is host-bound (and at least one is known)."""
    known = [t for t in times if t is not None]
    return bool(known) and all(t.host_bound for t in known)


def timed_launch(rows: list[dict[str, float | None]], precision: str) -> LaunchTime | None:
    """The TIMED pair from steps.csv rows (`host_<phase>_s` beside `<phase>_s`): the medians,
    over the steps that recorded the host's time, of the host's and the GPU's time for the
    phases that do not synchronize (SYNCHRONIZING_PHASES). None where no step recorded it."""
    skipped = SYNCHRONIZING_PHASES.get(precision, ())
    host, gpu = [], []
    for row in rows:
        phases = [p for p in PHASES if row.get(f"host_{p}_s") is not None and p not in skipped]
        if not phases or any(row.get(f"{p}_s") is None for p in phases):
            continue
        host.append(sum(float(row[f"host_{p}_s"] or 0.0) for p in phases))
        gpu.append(sum(float(row[f"{p}_s"] or 0.0) for p in phases))
    if not host:
        return None
    return LaunchTime(statistics.median(host), statistics.median(gpu), TIMED, len(host))
