"""The checks of one profiler trace: shapes not recorded, ops with time but no formula, an op
above its roof, a training step without its backward pass, and a host-bound (launch) step."""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from generator.analysis.launch import HOST_BOUND as HOST_BOUND_WORDS
from generator.analysis.thresholds import (
    HOST_BOUND_IDLE_SHARE,
    LAUNCH_BOUND_SHARE,
    ROOF_TOLERANCE,
    UNCOUNTED_WARNING_SHARE,
)
from generator.analysis.trace_analysis import TraceAnalysis
from generator.analysis.trace_launch import WHOLE_TRACE, TraceLaunch
from generator.analysis.trace_roofline import UPPER_BOUND
from generator.findings.specs import (
    ABOVE_ROOF,
    BYTES_UPPER_BOUND,
    HOST_BOUND,
    INCOMPLETE_STEP,
    MISSING_SHAPES,
    UNCOUNTED_OPS,
)
from generator.formatting import number, percent, seconds, si
from generator.records.finding import Finding


def missing_shapes(ops_with_shapes: int, ops: int) -> list[Finding]:
    if ops == 0 or ops_with_shapes > 0:
        return []
    return [
        MISSING_SHAPES.found(
            "The trace was recorded without shapes: no FLOPs can be derived from it",
            f"none of its {ops} ops carries `Input Dims`; kernel times are shown, FLOPs, "
            "bytes and roofline points are n/a",
        )
    ]


def uncounted_ops(by_op: pl.DataFrame, total_time_s: float) -> list[Finding]:
    """Ops with time but no model, each with its cause; their FLOPs are missing, never
    taken as zero. Shares of `total_time_s`, the whole every share is of (the GPU's busy
    time, trace_roofline.WHOLE_GPU)."""
    uncounted = by_op.filter(pl.col("uncounted_time_s") > 0).sort(
        "uncounted_time_s", descending=True
    )
    if uncounted.is_empty() or total_time_s <= 0:
        return []
    share = float(uncounted["uncounted_time_s"].sum()) / total_time_s
    causes = (
        uncounted.group_by("cause")
        .agg(pl.col("uncounted_time_s").sum())
        .sort("uncounted_time_s", "cause", descending=[True, False])
    )
    by_cause = ", ".join(
        f"{cause or 'no formula'} {percent(100 * t / total_time_s)}"
        for cause, t in causes.iter_rows()
    )
    top = ", ".join(
        f"{op} {percent(100 * t / total_time_s)} ({cause or 'no formula'})"
        for op, t, cause in uncounted.select("op", "uncounted_time_s", "cause").head(5).iter_rows()
    )
    more = f" and {uncounted.height - 5} more" if uncounted.height > 5 else ""
    return [
        UNCOUNTED_OPS.found(
            f"{percent(100 * share)} of the measured time is in work with no model ({by_cause})",
            f"{uncounted.height} op(s) with time but no model, by cause: {top}{more}. "
            "Their FLOPs are not in the totals, so the step's attained FLOP/s covers the "
            "costed ops' time only",
            milder=share < UNCOUNTED_WARNING_SHARE,
        )
    ]


def above_roof_ops(by_op: pl.DataFrame) -> list[Finding]:
    """Compute-bound ops above their peak. The memory side is not checked: a trace's bytes
    are the minimal traffic to memory, and an op whose data stays in cache (L2 on a GPU, the
    caches of a CPU) moves less than that to DRAM, so it may rightly sit above the slope."""
    over = by_op.filter((pl.col("efficiency") > ROOF_TOLERANCE) & (pl.col("bound") == "compute"))
    findings = []
    for row in over.iter_rows(named=True):
        findings.append(
            ABOVE_ROOF.found(
                f"{row['op']} runs above its roof",
                f"attained {si(row['attained_flops_per_s'], 'FLOP/s')} against a "
                f"{row['path']} roof of {si(row['roof_flops_per_s'], 'FLOP/s')} "
                f"({percent(100 * row['efficiency'])})",
                "the op's formula overcounts its FLOPs, its kernels are attributed to it "
                "wrongly, or the path is wrong (a float32 GEMM on tensor cores is TF32)",
            )
        )
    return findings


def bytes_upper_bound_ops(by_op: pl.DataFrame) -> list[Finding]:
    """Memory-bound ops that the model places above the memory roof: their modelled bytes
    are more than reached memory, so for them the bytes are an upper bound, and the row
    says so (trace_roofline.UPPER_BOUND)."""
    over = by_op.filter(pl.col("counted_as") == UPPER_BOUND).sort("time_s", descending=True)
    if over.is_empty():
        return []
    top = ", ".join(
        f"{op} {percent(100 * e)} of the memory roof"
        for op, e in over.select("op", "efficiency").head(5).iter_rows()
    )
    more = f" and {over.height - 5} more" if over.height > 5 else ""
    return [
        BYTES_UPPER_BOUND.found(
            f"{over.height} op(s) above the memory roof: their bytes are an upper bound",
            f"{top}{more}. The model counts each input at its recorded shape; the trace "
            "records no strides, so an input that is a broadcast view (expand, a stride-0 "
            "dim) is counted at its full size, and data kept in cache never reaches memory. "
            "Their efficiency is not a measurement",
        )
    ]


def incomplete_trace_step(phase: str | None, backward_ops: int) -> list[Finding]:
    if phase != "train_step" or backward_ops:
        return []
    return [
        INCOMPLETE_STEP.found(
            "A training step without a backward pass",
            "the trace holds no autograd backward op (`autograd::engine::evaluate_function`)",
            "profile the whole step (forward, loss.backward(), optimizer.step()) inside the "
            "profiler's active window",
        )
    ]


LAUNCH_FIX = (
    "launch fewer, larger kernels: capture the step in CUDA graphs (HIP graphs on ROCm; "
    'torch.compile(mode="reduce-overhead") does this), a larger batch (the same launches '
    "carry more work), fewer small kernels (fused ops, torch.compile, foreach/fused "
    "optimizers); under autocast the cast kernels are launches too (fewer with the weights "
    "kept in the low precision, or fused by torch.compile). Until then a comparison of such "
    "steps (a precision, a batch size) measures the host"
)


def host_bound_launch(launch: TraceLaunch, timed_step_s: float | None = None) -> list[Finding]:
    """A profiled step whose host took about as long to enqueue it as the GPU took to run
    it, judged by the one rule of analysis/launch.py (`LaunchTime.host_bound`), against the
    run's timed (unprofiled) median step where it has one (`timed_step_s`), as the run's
    page judges it. A trace without ProfilerStep ranges gets none: the whole trace holds
    set-up (lazy initialization, the first iteration's autotuning), as an nsys capture
    without step ranges gets no `host-bound` either."""
    time = launch.time
    if time is not None and timed_step_s:
        time = replace(time, timed_step_s=timed_step_s)
    if time is None or not time.host_bound or launch.scope == WHOLE_TRACE:
        return []
    waits = (
        f", less {seconds(launch.waits_s)} of waits for the GPU (synchronize calls, "
        "device-to-host copies),"
        if launch.waits_s > 0
        else ""
    )
    idle = time.gpu_idle_share
    unprofiled = (
        "torch.profiler slows the host (it records every op and launch), so the step "
        "unprofiled may be less host-bound: its host enqueue time against CUDA event "
        "time (a measured run's timed steps) says for certain"
        if idle is None
        else f"Unprofiled, the GPU is idle {percent(100 * idle)} of the run's timed median "
        f"step ({seconds(time.timed_step_s)}), at or over "
        f"{percent(100 * HOST_BOUND_IDLE_SHARE)}: the host sets the step's time"
    )
    return [
        HOST_BOUND.found(
            f"The host took {seconds(time.host_s)} to enqueue the step and the GPU was busy "
            f"{seconds(time.gpu_s)} with it: {HOST_BOUND_WORDS}",
            f"in {launch.where()}, the host's span from the first op to the end of the last "
            f"kernel launch{waits} is {seconds(time.host_s)}; the GPU's busy time for the "
            "work launched in it (kernels, copies, sets; their union over streams) is "
            f"{seconds(time.gpu_s)}: host/GPU {number(time.ratio, 3)}, at or over "
            f"{percent(100 * LAUNCH_BOUND_SHARE)}, so the GPU waits for launches. {unprofiled}",
            LAUNCH_FIX,
        )
    ]


def trace_findings(
    analysis: TraceAnalysis, phase: str | None, timed_step_s: float | None = None
) -> tuple[Finding, ...]:
    """Every check that applies to one analysed trace (the phase says whether it should
    hold a backward pass; `timed_step_s`: a run's timed median step, which the host-bound
    rule checks the profiled step against)."""
    work, by_op = analysis.work, analysis.by_op
    whole_s = sum(analysis.parts.values())  # every share is of the GPU's busy time
    backward_ops = work.backward_ops
    return (
        *missing_shapes(work.ops_with_shapes, work.ops),
        *(uncounted_ops(by_op, whole_s) if work.ops_with_shapes else []),
        *above_roof_ops(by_op),
        *bytes_upper_bound_ops(by_op),
        *incomplete_trace_step(phase, backward_ops),
        *host_bound_launch(work.launch, timed_step_s),
    )
