"""The thresholds that turn a number into a judgement, named so the methodology page, the
checks in `findings/` and the tests can quote them. They live here, below `findings/`,
because analyses use them too (replication's roof tolerance, the observations' noise bound)."""

from __future__ import annotations

BACKWARD_KERNEL_RATIO = 1 / 3  # backward kernels below forward / 3: the range missed them
COUNTED_TO_ANALYTIC_MIN = 0.6  # counted training FLOPs below 60 % of the analytic count
ROOF_TOLERANCE = 1.05  # datasheet peaks are at boost clock; allow 5 % before calling it wrong
CLOCK_TOLERANCE = 1.10
TIME_AGREEMENT = 0.20  # |duration - cycles/clock| / duration
# An export holding under 90 % of its step's analytic FLOPs times only part of the step
# (analysis/seed_prediction.py says so beside its published ÷ predicted).
PARTIAL_EXPORT_SHARE = 0.9
NOISY_CI = 0.03  # the median's 95 % interval wider than ±3 % of it: too imprecise to compare
THROTTLE_CLOCK_DROP = 0.10  # a GPU round's SM clock 10 % below the run's highest
CONTENDED_CORE_SHARE = 0.25  # other processes using a quarter of a core over a block
CONTENDED_SLOWDOWN = 1.25  # ... and those blocks' median step 1.25x the quiet blocks'
MIN_ITERATIONS = 5
DRIFT_T = 3.0  # |slope / standard error|
UNCOUNTED_WARNING_SHARE = 0.05  # uncounted kernel time above 5 % of the trace: a warning
DRIFT_MIN_SHARE = 0.02  # and the trend moves the step by at least 2 % over the run
# Per-layer times (from the profiled step) summing above 1.1x the timed phase: the
# profiler's own overhead is in them, and the page must say so.
PROFILER_OVERHEAD_RATIO = 1.10
# Multi-rank captures (findings/rank_checks.py): one rank computes this much longer than
# the median of the others, in at least this share of the steps, and at least two steps.
STRAGGLER_LAG_SHARE = 0.10
STRAGGLER_STEP_SHARE = 2 / 3
# Communication that no compute hides, above this share of the ranks' step time.
EXPOSED_COMMUNICATION_SHARE = 0.20
# Nsight Systems captures (findings/nsys_checks.py).
HOST_BOUND_IDLE_SHARE = 0.30  # GPUs idle over 30 % of the steps (or of the capture)
H2D_TIME_SHARE = 0.10  # host-to-device copies over 10 % of the GPU time
DOMINANT_KERNEL_SHARE = 0.50  # one kernel name over half of the kernel time
LAUNCH_TO_KERNEL_TIME = 0.50  # kernel-launch calls over half the kernels' own time (sums)
# Measured memory of a step against its analytic footprint: a ratio outside
# [1 / MEMORY_MISMATCH_FACTOR, MEMORY_MISMATCH_FACTOR] is the finding `memory-mismatch`.
MEMORY_MISMATCH_FACTOR = 3.0
# A CUDA step whose host took at least this share of the GPU's time to enqueue it is
# host-bound (launch): the GPU waits for launches (analysis/launch.py).
LAUNCH_BOUND_SHARE = 0.90
