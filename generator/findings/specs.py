"""Every finding, declared once: its id, severity, what it catches, its usual fix, and the
checks that raise it. The Findings page's table, `rederive --help`, rederive itself (the RUN
checks, in this order) and the tests read SPECS; a check builds its findings from its spec
(`SPEC.found(...)`). Adding one: docs/architecture.md, "Findings registry"."""

from __future__ import annotations

from generator.analysis.thresholds import (
    CLOCK_TOLERANCE,
    CONTENDED_SLOWDOWN,
    COUNTED_TO_ANALYTIC_MIN,
    DOMINANT_KERNEL_SHARE,
    DRIFT_MIN_SHARE,
    DRIFT_T,
    EXPOSED_COMMUNICATION_SHARE,
    H2D_TIME_SHARE,
    HOST_BOUND_IDLE_SHARE,
    LAUNCH_BOUND_SHARE,
    LAUNCH_TO_KERNEL_TIME,
    MEMORY_MISMATCH_FACTOR,
    MIN_ITERATIONS,
    NOISY_CI,
    PROFILER_OVERHEAD_RATIO,
    ROOF_TOLERANCE,
    STRAGGLER_LAG_SHARE,
    THROTTLE_CLOCK_DROP,
    TIME_AGREEMENT,
    UNCOUNTED_WARNING_SHARE,
)
from generator.findings.finding_spec import Check, FindingSpec, Stage


def _g(value: float) -> str:
    return f"{value:g}"


def _pct(share: float) -> str:
    return f"{100 * share:g} %"


# ---- one ncu export (findings/export_checks.py, flop_checks.py) ----------------------------

INCOMPLETE_STEP = FindingSpec(
    "incomplete-step",
    "error",
    "a backward range with fewer than a third of the forward's kernels, a training step "
    f"without one, or counted FLOPs below {_pct(COUNTED_TO_ANALYTIC_MIN)} of the analytic count",
    "PyTorch runs backward on its own thread, so NVTX ranges pushed per thread miss its "
    "kernels. Profile with `ncu --nvtx --nvtx-push-pop-scope process`, or bracket the step "
    "with cudaProfilerStart/Stop and `ncu --profile-from-start off` "
    "(`nox -s measure -- --ncu` does both).",
    (
        Check(Stage.EXPORT, "export_checks.incomplete_step"),
        Check(Stage.TRACE, "trace_checks.incomplete_trace_step"),
    ),
)
ABOVE_ROOF = FindingSpec(
    "above-roof",
    "error",
    f"a kernel or step attaining more than min(peak, AI × bandwidth) + {_pct(ROOF_TOLERANCE - 1)}",
    "check the device (a different GPU has other peaks), the precision (fp32 work against an "
    "fp32 roof, not a tensor-core one), and the units (time in ns read as µs, bytes in MB read "
    "as MiB)",
    (
        Check(Stage.EXPORT, "export_checks.above_roof"),
        Check(Stage.TRACE, "trace_checks.above_roof_ops"),
    ),
)
TENSOR_WORK_UNCOUNTED = FindingSpec(
    "tensor-work-uncounted",
    "error",
    "tensor-pipe instructions or activity with matrix-work evidence (an MMA sub-metric such as "
    "`sm__inst_executed_pipe_tensor_op_hmma`, a tensor-core kernel family by name: xmma, "
    "wgmma, hmma, imma, gmma, tensorop, flash, or a GEMM, convolution or attention kernel with "
    "its tensor pipe busy ≥ 1 % of cycles) while no tensor FLOP counter has a value; the "
    "finding names those kernels and their share of the instructions. A GEMM's name alone, or "
    "tensor-pipe instructions in elementwise, RNG, softmax or reduction kernels, is no "
    "evidence of uncounted matrix work",
    "collect the direct tensor counters (`sm__ops_path_tensor_src_*`, see `ncu --query-metrics`)",
    (Check(Stage.EXPORT, "export_checks.tensor_work_uncounted"),),
)
FP16_TENSOR_PIPE = FindingSpec(
    "fp16-tensor-pipe",
    "info",
    "tensor-pipe instructions from kernels without matrix-work evidence that do FP16 "
    "arithmetic (their FP16 thread instructions ÷ 32 of the same order): on GA100, Volta and "
    "Turing HFMA2 issues on the pipe shared with the tensor cores; the work is in the FP16 "
    "FLOPs",
    "nothing to fix: no tensor-core FLOPs are missing from the count",
    (Check(Stage.EXPORT, "export_checks.fp16_tensor_pipe"),),
)
FLOPS_MISMATCH = FindingSpec(
    "flops-mismatch",
    "warning",
    "counted against analytic FLOPs off by a factor near 2 (MACs vs FLOPs), far below, or far "
    "above",
    "one side counts multiply-accumulates: FLOPs = 2 × MACs (torchvision's 'GFLOPS' and many "
    "papers' numbers are GMACs)",
    (Check(Stage.EXPORT, "flop_checks.flops_mismatch"),),
)
FEWER_FLOPS_ALGORITHM = FindingSpec(
    "fewer-flops-algorithm",
    "info",
    "a forward or backward range counting over 25 % fewer FLOPs than the analytic count where "
    "cuDNN ran Winograd or FFT convolutions, which do fewer multiplications",
    "nothing is wrong; compare rates on one basis: counted FLOPs / kernel time is the work the "
    "GPU did, analytic FLOPs / step time is the model's throughput",
    (Check(Stage.EXPORT, "flop_checks.flops_mismatch"),),
)
TENSOR_PADDING = FindingSpec(
    "tensor-padding",
    "info",
    "a forward or backward range counting over 25 % more FLOPs than the analytic count, over "
    "half of them from tensor-core counters, which count tile padding",
    "read attained FLOP/s on the counted basis as tensor-core occupancy, and on the analytic "
    "basis (analytic FLOPs / time) as useful work",
    (Check(Stage.EXPORT, "flop_checks.flops_mismatch"),),
)
IMPLAUSIBLE_CLOCK = FindingSpec(
    "implausible-clock",
    "error",
    f"an SM clock above the device's boost clock + {_pct(CLOCK_TOLERANCE - 1)}, or a kernel "
    f"time {_pct(TIME_AGREEMENT)} away from cycles / clock",
    "trust `gpu__time_duration.sum`; check the units of the cycle and clock metrics",
    (Check(Stage.EXPORT, "export_checks.implausible_clock"),),
)
MISSING_METRIC = FindingSpec(
    "missing-metric",
    "warning",
    "a metric the page needs that is n/a for some or all kernels",
    "collect the metric for every kernel (ncu --metrics ..., or --set full)",
    (Check(Stage.EXPORT, "export_checks.missing_metric"),),
)

# ---- one torch.profiler trace (findings/trace_checks.py) ------------------------------------

MISSING_SHAPES = FindingSpec(
    "missing-shapes",
    "error",
    "a torch.profiler trace recorded without shapes (no op carries `Input Dims`): kernel "
    "times are shown, FLOPs, bytes and roofline points are n/a",
    "profile with torch.profiler.profile(..., record_shapes=True): shapes are what FLOPs and "
    "bytes are derived from",
    (Check(Stage.TRACE, "trace_checks.missing_shapes"),),
)
UNCOUNTED_OPS = FindingSpec(
    "uncounted-ops",
    "warning",
    "a trace's ops with time but no model (no formula, no usable shapes, a compiled region, no "
    "op), by cause: their FLOPs are missing from the totals, never taken as zero; info below "
    f"{_pct(UNCOUNTED_WARNING_SHARE)} of the measured time",
    "no formula: the op is unknown to Roofline Atlas (custom, fused, compiled Triton or "
    "data-movement ops); no usable shapes: the recorded shapes do not give the op's sizes "
    "(record with record_shapes=True; FBGEMM embedding tables of mixed widths record only "
    "their summed width); compiled region: a torch.compile region recorded as one op (PyTorch "
    ">= 2.4 records each Triton launch as an op); no op: the kernel's launch is not in the "
    "trace and no op launched an identical kernel (keep the whole step inside the profiler's "
    "window)",
    (Check(Stage.TRACE, "trace_checks.uncounted_ops"),),
    milder="info",
)
BYTES_UPPER_BOUND = FindingSpec(
    "bytes-upper-bound",
    "info",
    "a trace's op above its memory roof: its modelled bytes are more than reached memory "
    "(cached data, or a broadcast view the trace records at full shape, with no strides), so "
    "they are an upper bound and its efficiency no measurement",
    "record the step with ncu for the bytes that reached memory; the roofline of these ops is "
    "bounded, not placed",
    (Check(Stage.TRACE, "trace_checks.bytes_upper_bound_ops"),),
)
HOST_BOUND = FindingSpec(
    "host-bound",
    "warning",
    f"a profiled step whose host took at least {_pct(LAUNCH_BOUND_SHARE)} of the GPU's busy "
    "time to enqueue it (a torch.profiler trace's ProfilerStep), or an Nsight Systems "
    f"timeline whose GPUs sat idle over {_pct(HOST_BOUND_IDLE_SHARE)} of its step ranges: the "
    "GPU waits for the host",
    "overlap the host's work with the GPU's and launch fewer, larger kernels: CUDA graphs, "
    "torch.compile, larger batches, fewer synchronizations",
    (
        Check(Stage.TRACE, "trace_checks.host_bound_launch"),
        Check(Stage.NSYS, "nsys_checks.host_bound"),
    ),
)

# ---- one Nsight Systems or rocprofv3 capture (findings/nsys_checks.py) ----------------------

LAUNCH_OVERHEAD = FindingSpec(
    "launch-overhead",
    "info",
    "a capture without a timeline (the `nsys stats` reports) whose kernel-launch calls take "
    f"over {_pct(LAUNCH_TO_KERNEL_TIME)} of the kernels' own time: whether a step is "
    "host-bound is unknown without one",
    "export the capture to SQLite (`nsys export --type sqlite`) with NVTX step ranges, which "
    "show whether the step is host-bound",
    (Check(Stage.NSYS, "nsys_checks.host_bound"),),
)
H2D_COPIES = FindingSpec(
    "h2d-copies",
    "warning",
    f"host-to-device copies taking over {_pct(H2D_TIME_SHARE)} of the GPU's time (kernels and "
    "copies), inside the step ranges when the timeline has them",
    "keep the data on the GPU between steps; copy from pinned memory with non_blocking=True on "
    "a side stream so the copy overlaps compute",
    (Check(Stage.NSYS, "nsys_checks.h2d_copies"),),
)
DOMINANT_KERNEL = FindingSpec(
    "dominant-kernel",
    "info",
    f"one kernel name over {_pct(DOMINANT_KERNEL_SHARE)} of the capture's kernel time",
    "optimize this kernel first (or overlap it with compute, when it is communication)",
    (Check(Stage.NSYS, "nsys_checks.dominant_kernel"),),
)

# ---- one multi-rank capture (findings/rank_checks.py) ----------------------------------------

RANK_PROBLEM = FindingSpec(
    "rank-problem",
    "error",
    "a rank of a multi-rank capture that could not be used as it is (a file that could not "
    "be read, a rank found twice or missing); the other ranks are still shown",
    "the problem's own fix, given with it",
    (Check(Stage.RANKS, "rank_checks.rank_problems"),),
)
STRAGGLER_RANK = FindingSpec(
    "straggler-rank",
    "warning",
    "one rank computing longest in at least two thirds of a capture's steps (and two or "
    f"more), {_pct(STRAGGLER_LAG_SHARE)} or more above the median of the other ranks",
    "look at what the rank does that the others do not (its data, its share of the model, "
    "extra work in its loop, a slower device or host); balancing it shortens every rank's step",
    (Check(Stage.RANKS, "rank_checks.straggler"),),
)
EXPOSED_COMMUNICATION = FindingSpec(
    "exposed-communication",
    "warning",
    f"communication that no compute hides, over {_pct(EXPOSED_COMMUNICATION_SHARE)} of the "
    "ranks' step time",
    "when one rank is the straggler, the others' exposed time is waiting for it: balance the "
    "work first; otherwise overlap the collectives with the backward pass (DDP bucket size, "
    "FSDP prefetch) or communicate less often",
    (Check(Stage.RANKS, "rank_checks.exposed_communication"),),
)

# ---- a measured run's own files (findings/run_checks.py: measure writes, rederive derives) --
# In the order measure writes them into run.json.

PROFILER_OVERHEAD = FindingSpec(
    "profiler-overhead",
    "warning",
    "a measured run's per-layer times (from its profiled step) adding up to more than "
    f"{_g(PROFILER_OVERHEAD_RATIO)}× the timed median of their phase: they are profiled time, "
    "not shares of the timed step",
    "read per-layer times as shares of the profiled step, not of the timed one; the timed "
    "phase medians are the step's time",
    (Check(Stage.RUN, "layer_checks.profiler_overhead_of"),),
)
RECOMPILED = FindingSpec(
    "recompiled",
    "warning",
    "a compiled run (torch.compile) whose model compiled a new graph while its steps were "
    "timed: that compile time is inside its step times",
    "find what changes between calls (TORCH_LOGS=recompiles) and keep it fixed",
    (Check(Stage.RUN, "resource_checks.recompiled"),),
)
MEMORY_MISMATCH = FindingSpec(
    "memory-mismatch",
    "info",
    f"a run's measured peak memory more than {_g(MEMORY_MISMATCH_FACTOR)}× above or below its "
    "analytic footprint (parameters, gradients, optimizer state, activations, input); on a CPU "
    "small models sit far above it, their resident set being kernels and allocator pools",
    "above: allocator pools, workspaces and loaded kernels the count leaves out (they dominate "
    "a small model); below: activations freed or recomputed early",
    (Check(Stage.RUN, "resource_checks.memory_mismatch"),),
)
NCU_FAILED = FindingSpec(
    "ncu-failed",
    "warning",
    "a measured run whose Nsight Compute profile failed (ncu refused an option, could not read "
    "counters or lock clocks, ran out of time): its timing is kept, its counters are missing; "
    "the evidence is ncu's own message, and `measure --ncu` profiles it again without timing "
    "it again",
    "fix the cause in ncu's message; then `nox -s measure -- --ncu` re-profiles it without "
    "timing it again",
    (Check(Stage.RUN, "profiler_checks.ncu_failed"),),
)
NSYS_FAILED = FindingSpec(
    "nsys-failed",
    "warning",
    "a measured run whose Nsight Systems capture failed: its timing is kept, its capture is "
    "missing; `measure --nsys` records it again without timing it again",
    "fix the cause in nsys's message; then `nox -s measure -- --nsys` records it without "
    "timing it again",
    (Check(Stage.RUN, "profiler_checks.nsys_failed"),),
)

# ---- the report's check stage, across runs (site/check.py) ---------------------------------

NOISY_TIMING = FindingSpec(
    "noisy-timing",
    "warning",
    f"a step time whose 95 % interval is wider than ±{_pct(NOISY_CI)} of it (across blocks "
    "for a result timed in blocks: the interval of its long-run level), or fewer than "
    f"{MIN_ITERATIONS} timed iterations",
    "measure again with more iterations or blocks on a quiet machine; compare this result only "
    "where intervals do not overlap",
    (
        Check(Stage.REPORT, "timing.timing_findings"),
        Check(Stage.REPORT, "timing.blocks_timing_findings"),
    ),
)
TIMING_DRIFT = FindingSpec(
    "timing-drift",
    "warning",
    f"a trend in step time over the iterations (t > {_g(DRIFT_T)} and more than "
    f"{_pct(DRIFT_MIN_SHARE)} over the run)",
    "rising: thermal or power throttling, or memory growth; falling: warm-up not finished "
    "(raise `warmup`)",
    (Check(Stage.REPORT, "timing.timing_findings"),),
)
THROTTLED = FindingSpec(
    "throttled",
    "warning",
    f"a GPU run whose SM clock fell more than {_pct(THROTTLE_CLOCK_DROP)} below its highest "
    "across rounds, or for which NVML named a slowdown reason (power cap, thermal, hardware "
    "slowdown)",
    "the step ran below the GPU's sustained clock: cool the GPU or lift the power cap, or lock "
    "clocks (`nvidia-smi -lgc`), then measure again",
    (Check(Stage.REPORT, "timing.throttle_findings"),),
)
CONTENDED_BLOCKS = FindingSpec(
    "contended-blocks",
    "warning",
    "a run timed in blocks during which other processes used at least a quarter of a core "
    "(the busy processes each block records), where those blocks' median step was at least "
    f"{_g(CONTENDED_SLOWDOWN)}× the quiet blocks' (or no block was quiet)",
    "measure on a quiet machine: stop other work first; `measure --force` adds quiet blocks to "
    "this result, and removing the run folder first replaces it",
    (Check(Stage.REPORT, "contention.contention_findings"),),
)
NOT_REPRODUCED = FindingSpec(
    "not-reproduced",
    "warning",
    "a result whose newest re-measurement (`python -m generator remeasure`, in a later call) "
    "fell outside the 95 % re-measurement interval the report states for it",
    "read the interval as too narrow for this configuration: measure it again (`nox -s "
    "measure -- --force --group ...` adds blocks, and blocks from another session widen the "
    "interval by what changed between them)",
    (Check(Stage.REPORT, "calibration_checks.not_reproduced"),),
)
ABOVE_CEILING = FindingSpec(
    "above-ceiling",
    "warning",
    "a measured step (its modelled FLOP/s, beyond its interval) or an op of its profiled step "
    "faster than its device's measured GEMM ceiling: the ceiling is no ceiling",
    "measure the ceilings again: delete measurements/ceilings/<device>.json and run `nox -s "
    "measure`",
    (
        Check(Stage.REPORT, "ceiling_checks.step_above_ceiling"),
        Check(Stage.REPORT, "ceiling_checks.ops_above_ceiling"),
    ),
)
UNEXPLAINED_COMPARISON = FindingSpec(
    "unexplained-comparison",
    "warning",
    "a comparison against the direction a reader expects (a reduced precision slower than "
    "fp32, a smaller batch slower per step than a larger one, a GPU slower than the CPU, a "
    "backward pass faster than its forward) that neither the step's host launch time "
    "(host-bound (launch)) nor its bound (latency/overhead) explains",
    "re-measure both configurations in blocks (the calibration command on their pages) on a "
    "build that records the host's launch time, and profile them (`--ncu`, the torch.profiler "
    "trace): a host-bound or latency/overhead-bound step would explain it; else it is worth an "
    "issue with both run ids",
    (Check(Stage.REPORT, "odd_checks.unexplained"),),
)

# The order of the Findings page, by stage; within RUN, the order measure writes them.
SPECS: tuple[FindingSpec, ...] = (
    INCOMPLETE_STEP, ABOVE_ROOF, TENSOR_WORK_UNCOUNTED, FP16_TENSOR_PIPE, FLOPS_MISMATCH,
    FEWER_FLOPS_ALGORITHM, TENSOR_PADDING, IMPLAUSIBLE_CLOCK, MISSING_METRIC,  # EXPORT
    MISSING_SHAPES, UNCOUNTED_OPS, BYTES_UPPER_BOUND, HOST_BOUND,  # TRACE (and NSYS)
    LAUNCH_OVERHEAD, H2D_COPIES, DOMINANT_KERNEL,  # NSYS
    RANK_PROBLEM, STRAGGLER_RANK, EXPOSED_COMMUNICATION,  # RANKS
    PROFILER_OVERHEAD, RECOMPILED, MEMORY_MISMATCH, NCU_FAILED, NSYS_FAILED,  # RUN
    NOISY_TIMING, TIMING_DRIFT, THROTTLED, CONTENDED_BLOCKS, NOT_REPRODUCED, ABOVE_CEILING,
    UNEXPLAINED_COMPARISON,  # REPORT
)  # fmt: skip
FINDING_IDS = tuple(spec.id for spec in SPECS)


def specs_of(stage: Stage) -> tuple[FindingSpec, ...]:
    """The findings a stage's checks raise, in SPECS order."""
    return tuple(s for s in SPECS if any(c.stage is stage for c in s.checks))
