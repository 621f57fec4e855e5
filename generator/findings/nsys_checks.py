"""The checks of an Nsight Systems capture: a host-bound step (GPUs idle over a stated
share of it), host-to-device copies in the GPU's time (inside the steps, when the timeline
says where), and a kernel that dominates."""

from __future__ import annotations

import polars as pl

from generator.analysis.nsys_analysis import NsysAnalysis, step_ranges
from generator.analysis.thresholds import (
    DOMINANT_KERNEL_SHARE,
    H2D_TIME_SHARE,
    HOST_BOUND_IDLE_SHARE,
    LAUNCH_TO_KERNEL_TIME,
)
from generator.formatting import percent, seconds, short_name, si
from generator.records.finding import Finding

HOST_FIX = (
    "overlap the host's work with the GPU's: a DataLoader with workers and pinned memory, "
    "fewer synchronizations (.item(), .cpu(), printing), larger batches, or CUDA graphs / "
    "torch.compile for many small kernels"
)
GRAPHS = "CUDA graphs"  # HOST_FIX's words, in HIP's for a rocprofv3 capture


def _host_fix(analysis: NsysAnalysis) -> str:
    graphs = "HIP graphs (torch.cuda graphs on ROCm)"
    return HOST_FIX.replace(GRAPHS, graphs) if analysis.capture.counters is not None else HOST_FIX


def _host_bound_timeline(analysis: NsysAnalysis) -> list[Finding]:
    if not analysis.capture.gpu_traced:  # the GPUs' work was not recorded
        return []
    steps = step_ranges(analysis.ranges)
    if not steps.is_empty():
        ranges = analysis.capture.words.ranges
        where = f"the {int(steps['count'].sum())} {ranges} step ranges ({', '.join(steps['range'].head(3))})"
        total, busy = float(steps["time_s"].sum()), float(steps["gpu_busy_s"].sum())
    else:
        gpus = analysis.gpus
        assert gpus is not None
        if gpus.is_empty():
            return []
        where = f"the capture (no {analysis.capture.words.ranges} range names a step)"
        total, busy = float(gpus["wall_s"].max()), float(gpus["busy_s"].max())  # type: ignore[arg-type]
    if total <= 0 or 1 - busy / total < HOST_BOUND_IDLE_SHARE:
        return []
    return [
        Finding(
            "host-bound",
            "warning",
            f"The GPU is idle {percent(100 * (1 - busy / total))} of the time: the step is "
            "host-bound",
            f"in {where}, the GPUs run kernels or copies {seconds(busy)} of {seconds(total)}; "
            f"over {percent(100 * HOST_BOUND_IDLE_SHARE)} idle means the GPU waits for the host",
            _host_fix(analysis),
        )
    ]


def host_bound(analysis: NsysAnalysis) -> list[Finding]:
    if analysis.has_timeline:
        return _host_bound_timeline(analysis)
    kernel, launch = analysis.kernel_time_s, analysis.launch_time_s
    if kernel <= 0 or launch < LAUNCH_TO_KERNEL_TIME * kernel:
        return []
    return [
        Finding(
            "host-bound",
            "warning",
            "Launching the kernels takes "
            f"{percent(100 * launch / kernel)} of their own run time: likely host-bound",
            f"the kernel-launch calls take {seconds(launch)} on the host, the kernels "
            f"{seconds(kernel)} on the GPU ({int(analysis.kernels['count'].sum())} kernels, "
            f"{seconds(kernel / max(int(analysis.kernels['count'].sum()), 1))} each on "
            "average). The stats reports are sums with no "
            "timeline, so the GPU's idle time itself is unknown; the SQLite export "
            "(`nsys export --type sqlite`) shows it",
            HOST_FIX,
        )
    ]


def h2d_copies(analysis: NsysAnalysis) -> list[Finding]:
    copies = analysis.copies
    h2d = copies.filter(pl.col("operation") == "Host-to-Device")
    gpu_time = analysis.kernel_time_s + float(copies["time_s"].sum() or 0.0)
    if h2d.is_empty() or gpu_time <= 0:
        return []
    time_s = float(h2d["time_s"].sum() or 0.0)
    size = h2d["bytes"].sum() if h2d["bytes"].null_count() == 0 else None
    inside = ""
    if analysis.has_timeline:
        steps = step_ranges(analysis.ranges)
        if not steps.is_empty():
            count = int(steps["h2d_copies"].sum())
            if count == 0:
                return []  # every copy is outside the steps: loading, not training
            inside = (
                f"; {count} of them ({si(float(steps['h2d_bytes'].sum()), 'B')}) start inside "
                f"the {analysis.capture.words.ranges} step ranges"
            )
    if time_s < H2D_TIME_SHARE * gpu_time:
        return []
    return [
        Finding(
            "h2d-copies",
            "warning",
            f"Host-to-device copies take {percent(100 * time_s / gpu_time)} of the GPU's time",
            f"{int(h2d['count'].sum())} copies, {seconds(time_s)}"
            + (f", {si(float(size), 'B')}" if size else "")
            + f" against {seconds(analysis.kernel_time_s)} of kernels{inside}",
            "keep the data on the GPU between steps; copy from pinned memory with "
            "non_blocking=True on a side stream so the copy overlaps compute",
        )
    ]


def dominant_kernel(analysis: NsysAnalysis) -> list[Finding]:
    if analysis.kernels.is_empty():
        return []
    top = analysis.kernels.row(0, named=True)
    if top["share"] is None or top["share"] < DOMINANT_KERNEL_SHARE:
        return []
    return [
        Finding(
            "dominant-kernel",
            "info",
            f"One kernel is {percent(100 * top['share'])} of the kernel time",
            f"`{short_name(top['name'], 120)}` ({top['family']}): {top['count']} launches, "
            f"{seconds(top['time_s'])}",
            f"optimize this kernel first: profile it with {analysis.capture.words.kernel_profiler} "
            "for its roofline point",
        )
    ]


def nsys_findings(analysis: NsysAnalysis) -> list[Finding]:
    return [*host_bound(analysis), *h2d_copies(analysis), *dominant_kernel(analysis)]
