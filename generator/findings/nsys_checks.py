"""The checks of an Nsight Systems capture: a host-bound step (GPUs idle over a stated
share of an NVTX step range; the stats reports, with no timeline, only the launch overhead), host-to-device copies in the GPU's time (inside the steps, when the timeline
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
from generator.findings.specs import DOMINANT_KERNEL, H2D_COPIES, HOST_BOUND, LAUNCH_OVERHEAD
from generator.formatting import percent, seconds, short_name, si
from generator.ingest.nsys.capture import ROCPROF_WORDS
from generator.records.finding import Finding

# Signs of a PyTorch process in what nsys records: ATen's kernels and ranges.
PYTORCH_SIGNS = r"at::native::|at::cuda::|c10::|pytorch|^aten::|ProfilerStep"
PYTORCH_FIX = (
    "overlap the host's work with the GPU's: a DataLoader with workers and pinned memory, "
    "fewer synchronizations (.item(), .cpu(), printing), larger batches, or CUDA graphs / "
    "torch.compile for many small kernels"
)
GENERIC_FIX = (
    "overlap the host's work with the GPU's: fewer host-device synchronizations, copies "
    "from pinned memory on a side stream, more work per kernel launch (larger batches, "
    "fused kernels), or CUDA graphs for many small kernels; profile the host side "
    "(`nsys --sample=cpu`) to see what it is doing"
)
GRAPHS = "CUDA graphs"  # the fixes' words, said in HIP's for a rocprofv3 capture


def _is_pytorch(analysis: NsysAnalysis) -> bool:
    """Whether the capture is of a PyTorch process: its kernels or NVTX ranges say so."""
    kernels = analysis.kernels["name"].str.contains(PYTORCH_SIGNS).any()
    ranges = analysis.ranges["range"].str.contains(PYTORCH_SIGNS).any()
    return bool(kernels) or bool(ranges)


def host_fix(analysis: NsysAnalysis) -> str:
    """Advice that fits the program (PyTorch's only for a PyTorch process) and its tool."""
    fix = PYTORCH_FIX if _is_pytorch(analysis) else GENERIC_FIX
    if analysis.capture.words is ROCPROF_WORDS:
        fix = fix.replace(GRAPHS, "HIP graphs (torch.cuda graphs on ROCm)")
        fix = fix.replace("(`nsys --sample=cpu`)", "(a CPU sampler such as `perf`)")
    return fix


def _host_bound_timeline(analysis: NsysAnalysis) -> list[Finding]:
    if not analysis.capture.gpu_traced:  # the GPUs' work was not recorded
        return []
    steps = step_ranges(analysis.ranges)
    if steps.is_empty():
        # A whole capture holds its start-up (context creation, allocation, reading input),
        # when the GPU waits for the host by necessity: idle time is a step's to explain.
        return []
    ranges = analysis.capture.words.ranges
    where = f"the {int(steps['count'].sum())} {ranges} step ranges ({', '.join(steps['range'].head(3))})"
    total, busy = float(steps["time_s"].sum()), float(steps["gpu_busy_s"].sum())
    if total <= 0 or 1 - busy / total < HOST_BOUND_IDLE_SHARE:
        return []
    return [
        HOST_BOUND.found(
            f"The GPU is idle {percent(100 * (1 - busy / total))} of the time: the step is "
            "host-bound",
            f"in {where}, the GPUs run kernels or copies {seconds(busy)} of {seconds(total)}; "
            f"over {percent(100 * HOST_BOUND_IDLE_SHARE)} idle means the GPU waits for the host",
            host_fix(analysis),
        )
    ]


def host_bound(analysis: NsysAnalysis) -> list[Finding]:
    """Idle steps on a timeline (SQLite); the stats reports, sums over the whole capture
    with no timeline and no step, get at most the launch-overhead observation."""
    if analysis.has_timeline:
        return _host_bound_timeline(analysis)
    kernel, launch = analysis.kernel_time_s, analysis.launch_time_s
    if kernel <= 0 or launch < LAUNCH_TO_KERNEL_TIME * kernel:
        return []
    return [
        LAUNCH_OVERHEAD.found(
            "Launching the kernels takes "
            f"{percent(100 * launch / kernel)} of their own run time, over the whole capture",
            f"the kernel-launch calls take {seconds(launch)} on the host, the kernels "
            f"{seconds(kernel)} on the GPU ({int(analysis.kernels['count'].sum())} kernels, "
            f"{seconds(kernel / max(int(analysis.kernels['count'].sum()), 1))} each on "
            "average). The stats reports are sums with no timeline and no step, start-up "
            "included, so whether a step is host-bound is unknown; the SQLite export "
            "(`nsys export --type sqlite`) with NVTX step ranges shows it",
            host_fix(analysis),
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
        H2D_COPIES.found(
            f"Host-to-device copies take {percent(100 * time_s / gpu_time)} of the GPU's time",
            f"{int(h2d['count'].sum())} copies, {seconds(time_s)}"
            + (f", {si(float(size), 'B')}" if size else "")
            + f" against {seconds(analysis.kernel_time_s)} of kernels{inside}",
        )
    ]


def dominant_kernel(analysis: NsysAnalysis) -> list[Finding]:
    if analysis.kernels.is_empty():
        return []
    top = analysis.kernels.row(0, named=True)
    if top["share"] is None or top["share"] < DOMINANT_KERNEL_SHARE:
        return []
    return [
        DOMINANT_KERNEL.found(
            f"One kernel is {percent(100 * top['share'])} of the kernel time",
            f"`{short_name(top['name'], 120)}` ({top['family']}): {top['count']} launches, "
            f"{seconds(top['time_s'])}",
            _dominant_fix(analysis, top["family"]),
        )
    ]


def _dominant_fix(analysis: NsysAnalysis, family: str) -> str:
    if family == "communication":  # it waits for the other ranks: no roofline point applies
        return (
            "this is collective communication: overlap it with compute (DDP's gradient "
            "buckets, FSDP's prefetch, a stream of its own) or communicate less; on one node, "
            "check that the GPUs talk over their links, not through the host"
        )
    return (
        f"optimize this kernel first: profile it with {analysis.capture.words.kernel_profiler} "
        "for its roofline point"
    )


def nsys_findings(analysis: NsysAnalysis) -> list[Finding]:
    return [*host_bound(analysis), *h2d_copies(analysis), *dominant_kernel(analysis)]
