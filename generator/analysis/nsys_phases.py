"""Roofline points per phase of an Nsight Systems capture, without counters: the analytic
FLOPs of a model (named by the user) for each phase the NVTX ranges name, over that phase's
measured time.

A phase range is named `forward`, `loss`, `backward` or `optimizer` (this tool's own labels,
`measure --nsys`), or a common spelling of them (`fwd`, `bwd`, `optimizer.step`, ...),
after any `domain:` prefix. Its time, from an SQLite export, is the GPU time of the kernels
its instances launched (each kernel joined to its runtime call by correlation id), since a
range's host time ends before its kernels do; from the stats reports, which have no
launches, it is the range's time on the host, and the table says so. The FLOPs of a phase
are the model's FLOPs for one step's phase, times the range's instances. The step is one
point on the roofline: its FLOPs over the phases' time, at the step's analytic arithmetic
intensity (FLOPs over minimal bytes).
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass

import polars as pl

from generator.ingest.nsys.capture import NsysCapture

PHASES = ("forward", "loss", "backward", "optimizer")
SPELLINGS = {
    "forward": ("forward", "fwd", "forward_pass", "forward pass", "model.forward"),
    "loss": ("loss", "loss_fn", "criterion"),
    "backward": ("backward", "bwd", "backward_pass", "backward pass", "loss.backward"),
    "optimizer": (
        "optimizer",
        "optimizer.step",
        "optimizer_step",
        "opt",
        "optim",
        "step_optimizer",
    ),
}
GPU_BASIS = "GPU time of the kernels it launched"
HOST_BASIS = "range time on the host (no launches in stats reports)"
PHASE_SCHEMA = {
    "phase": pl.String,
    "range": pl.String,
    "instances": pl.Int64,
    "time_s": pl.Float64,
    "time_basis": pl.String,
    "flops": pl.Float64,
    "attained_flops_per_s": pl.Float64,
}


@dataclass(frozen=True)
class ModelWork:
    """What the model computes in one step: FLOPs per phase and the step's minimal bytes."""

    model: str
    batch: int
    flops: dict[str, float]  # forward, loss, backward, optimizer
    step_bytes: float

    @property
    def step_flops(self) -> float:
        return sum(self.flops.get(p, 0.0) for p in PHASES)


def phase_of(range_name: str) -> str | None:
    """The phase a range name stands for, or None."""
    text = re.sub(r"^[^:]*:", "", range_name.strip()).strip().lower()
    for phase, spellings in SPELLINGS.items():
        if text in spellings:
            return phase
    return None


def _gpu_times(capture: NsysCapture) -> dict[int, float]:
    """Each range instance's index -> the GPU time of the kernels launched inside it."""
    export = capture.events
    assert export is not None
    kernel_time: dict[int, float] = {}
    for link, start, end in zip(
        export.kernels.correlation, export.kernels.start, export.kernels.end, strict=True
    ):
        if link >= 0:
            kernel_time[link] = kernel_time.get(link, 0.0) + (end - start)
    launches = sorted(
        (start, kernel_time[link])
        for start, link in zip(export.api.start, export.api.correlation, strict=True)
        if link in kernel_time
    )
    starts = [at for at, _ in launches]
    before = list(itertools.accumulate((t for _, t in launches), initial=0.0))
    times: dict[int, float] = {}
    ranges = export.ranges
    for index, (lo, hi) in enumerate(zip(ranges.start, ranges.end, strict=True)):
        if phase_of(ranges.name[index]) is not None:
            first, stop = bisect.bisect_left(starts, lo), bisect.bisect_right(starts, hi)
            times[index] = before[stop] - before[first]
    return times


def phase_table(capture: NsysCapture, work: ModelWork) -> pl.DataFrame:
    """One row per phase range: its instances, time, FLOPs and attained FLOP/s."""
    rows: dict[tuple[str, str], dict[str, object]] = {}
    if capture.events is not None:
        times = _gpu_times(capture)
        names = capture.events.ranges.name
        for index, time_s in times.items():
            key = (str(phase_of(names[index])), names[index])
            row = rows.setdefault(key, {"instances": 0, "time_s": 0.0, "time_basis": GPU_BASIS})
            row["instances"] = int(row["instances"]) + 1  # type: ignore[call-overload]
            row["time_s"] = float(row["time_s"]) + time_s  # type: ignore[arg-type]
    else:
        for name, count, time_s in capture.ranges.select("range", "count", "time_s").iter_rows():
            phase = phase_of(name)
            if phase is not None:
                rows[(phase, name)] = {
                    "instances": count,
                    "time_s": time_s,
                    "time_basis": HOST_BASIS,
                }
    out = []
    for (phase, name), row in rows.items():
        flops = work.flops.get(phase, 0.0) * int(row["instances"])  # type: ignore[call-overload]
        time_s = float(row["time_s"])  # type: ignore[arg-type]
        out.append(
            {
                "phase": phase,
                "range": name,
                "instances": row["instances"],
                "time_s": time_s,
                "time_basis": row["time_basis"],
                "flops": flops,
                "attained_flops_per_s": flops / time_s if time_s > 0 else None,
            }
        )
    order = {p: i for i, p in enumerate(PHASES)}
    return pl.DataFrame(out, schema=PHASE_SCHEMA).sort(
        pl.col("phase").replace_strict(order, default=len(order)), "range"
    )


def step_point(phases: pl.DataFrame, work: ModelWork) -> dict[str, float] | None:
    """The step on the roofline: FLOPs over the phases' time, at the step's analytic AI.
    Needs the forward phase (its instances count the steps)."""
    forward = phases.filter(pl.col("phase") == "forward")
    if forward.is_empty() or not work.step_bytes:
        return None
    steps = int(forward["instances"].sum())
    time_s = float(phases["time_s"].sum())
    flops = work.step_flops * steps
    return {
        "steps": steps,
        "flops": flops,
        "time_s": time_s,
        "arithmetic_intensity": work.step_flops / work.step_bytes,
        "attained_flops_per_s": flops / time_s if time_s > 0 else float("nan"),
    }
