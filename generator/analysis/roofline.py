"""Roofline metrics per kernel, per NVTX range and per step, as docs/methodology.md defines them.

FLOPs = sum over precisions of (add + mul + 2*fma) thread instructions, plus tensor-core ops
from direct counters. Missing is never zero: a total over kernels is null when any kernel
lacks the metric, and `incomplete` says which metric and how many kernels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from generator.analysis.roofs import Roof
from generator.analysis.seed_join import seed_joined

# precision -> (kernel column, FLOPs per unit). Data, not ifs.
FLOP_TERMS: dict[str, tuple[tuple[str, int], ...]] = {
    "fp64": (("fp64_add_inst", 1), ("fp64_mul_inst", 1), ("fp64_fma_inst", 2)),
    "fp32": (("fp32_add_inst", 1), ("fp32_mul_inst", 1), ("fp32_fma_inst", 2)),
    "fp16": (("fp16_add_inst", 1), ("fp16_mul_inst", 1), ("fp16_fma_inst", 2)),
    "tensor_fp16": (("tensor_fp16_fp16_ops", 1), ("tensor_fp16_fp32_ops", 1)),
    "tensor_bf16": (("tensor_bf16_bf16_ops", 1), ("tensor_bf16_fp32_ops", 1)),
    "tensor_tf32": (("tensor_tf32_fp32_ops", 1),),
    "tensor_fp64": (("tensor_fp64_ops", 1),),
    "tensor_fp8": (("tensor_fp8_fp16_ops", 1), ("tensor_fp8_fp32_ops", 1)),
}
# Read only where none of the precision's own terms was collected: Hopper has no generic
# fp16 counter split by accumulator (`sm__ops_path_tensor_src_fp16_dst_*`), only the sum.
FALLBACK_TERMS: dict[str, tuple[str, int]] = {"tensor_fp16": ("tensor_fp16_any_ops", 1)}
# CUDA-core precisions need all three instruction counters: without the fma count the FLOPs
# would be undercounted by most of the work. Tensor paths are separate counters (ncu reports
# n/a for a path the GPU lacks), so any present one counts.
REQUIRE_ALL_TERMS = frozenset({"fp64", "fp32", "fp16"})

PRECISIONS: tuple[str, ...] = tuple(FLOP_TERMS)


def _precision_flops(precision: str) -> pl.Expr:
    terms = [pl.col(column) * weight for column, weight in FLOP_TERMS[precision]]
    present = (t.is_not_null() for t in terms)
    known = (
        pl.all_horizontal(present) if precision in REQUIRE_ALL_TERMS else pl.any_horizontal(present)
    )
    flops = pl.when(known).then(pl.sum_horizontal(terms))
    if precision not in FALLBACK_TERMS:
        return flops.alias(f"flops_{precision}")
    column, weight = FALLBACK_TERMS[precision]
    return flops.otherwise(pl.col(column) * weight).alias(f"flops_{precision}")


def kernel_metrics(kernels: pl.DataFrame) -> pl.DataFrame:
    """Add per-kernel FLOPs, bytes, time, AI and attained FLOP/s to the kernel table."""
    precision_columns = [f"flops_{p}" for p in PRECISIONS]
    frame = kernels.with_columns(_precision_flops(p) for p in PRECISIONS)
    any_flops = pl.any_horizontal(pl.col(c).is_not_null() for c in precision_columns)
    frame = frame.with_columns(
        pl.when(any_flops).then(pl.sum_horizontal(precision_columns)).alias("flops"),
        pl.coalesce("dram_bytes", pl.col("dram_read_bytes") + pl.col("dram_write_bytes")).alias(
            "dram_total_bytes"
        ),
        pl.coalesce("gpu_time_s", pl.col("sm_cycles") / pl.col("sm_clock_hz")).alias("time_s"),
        pl.when(pl.col("gpu_time_s").is_not_null())
        .then(pl.lit("gpu__time_duration"))
        .when((pl.col("sm_cycles") / pl.col("sm_clock_hz")).is_not_null())
        .then(pl.lit("cycles/clock"))
        .alias("time_source"),
    )
    # A kernel that moved no DRAM bytes has no finite AI: null, never inf (JSON has no inf).
    return frame.with_columns(
        pl.when(pl.col("dram_total_bytes") > 0)
        .then(pl.col("flops") / pl.col("dram_total_bytes"))
        .alias("arithmetic_intensity"),
        pl.when(pl.col("time_s") > 0)
        .then(pl.col("flops") / pl.col("time_s"))
        .alias("attained_flops_per_s"),
    )


@dataclass
class Totals:
    """Sums over a set of kernels; None where any kernel lacks the input."""

    kernels: int
    flops: float | None
    flops_by_precision: dict[str, float]
    dram_bytes: float | None
    l2_bytes: float | None
    l1_bytes: float | None
    time_s: float | None
    sm_pct: float | None
    dram_pct: float | None
    tensor_pipe_inst: float | None
    incomplete: dict[str, int] = field(default_factory=dict)
    # sm_pct and dram_pct as seed 000's script joins kernels to times (seed_join.py)
    seed_joined: dict[str, float] = field(default_factory=dict)

    @property
    def tensor_flops(self) -> float:
        """The part of `flops` the tensor-core counters counted."""
        return sum(v for k, v in self.flops_by_precision.items() if k.startswith("tensor_"))

    @property
    def arithmetic_intensity(self) -> float | None:
        if self.flops is None or not self.dram_bytes:
            return None
        return self.flops / self.dram_bytes

    @property
    def attained_flops_per_s(self) -> float | None:
        if self.flops is None or not self.time_s:
            return None
        return self.flops / self.time_s

    @property
    def dominant_precision(self) -> str | None:
        present = {p: v for p, v in self.flops_by_precision.items() if v > 0}
        return max(present, key=lambda p: present[p]) if present else None


def totals(metrics: pl.DataFrame) -> Totals:
    """Totals of a frame from `kernel_metrics` (all kernels, or one range's)."""
    count = metrics.height
    incomplete: dict[str, int] = {}

    def strict_sum(column: str) -> float | None:
        missing = metrics[column].null_count()
        if missing == count:
            return None
        if missing:
            incomplete[column] = missing
            return None
        return float(metrics[column].sum())

    def weighted_pct(column: str) -> float | None:
        both = metrics.filter(pl.col(column).is_not_null() & pl.col("time_s").is_not_null())
        if both.height == 0:
            return None
        if both.height < count:
            incomplete[column] = count - both.height
            return None
        total_time = float(both["time_s"].sum())
        if total_time <= 0:
            return None
        return float((both[column] * both["time_s"]).sum()) / total_time

    by_precision = {}
    for precision in PRECISIONS:
        value = strict_sum(f"flops_{precision}")
        if value is not None:
            by_precision[precision] = value
    flops_missing = any(f"flops_{p}" in incomplete for p in PRECISIONS)
    # A per-kernel summary row stands for several launches.
    launches = int(metrics["invocations"].sum()) if "invocations" in metrics.columns else count
    return Totals(
        kernels=launches,
        flops=None if flops_missing or not by_precision else sum(by_precision.values()),
        flops_by_precision=by_precision,
        dram_bytes=strict_sum("dram_total_bytes"),
        l2_bytes=strict_sum("l2_bytes"),
        l1_bytes=strict_sum("l1_bytes"),
        time_s=strict_sum("time_s"),
        sm_pct=weighted_pct("sm_pct"),
        dram_pct=weighted_pct("dram_pct"),
        tensor_pipe_inst=strict_sum("tensor_pipe_inst"),
        incomplete=incomplete,
        seed_joined=seed_joined(metrics),
    )


def range_totals(metrics: pl.DataFrame) -> dict[str, Totals]:
    """Totals per innermost NVTX range, in order of first appearance."""
    ranges = metrics.with_columns(pl.col("nvtx_range").fill_null("(no range)"))
    order = ranges["nvtx_range"].unique(maintain_order=True).to_list()
    return {name: totals(ranges.filter(pl.col("nvtx_range") == name)) for name in order}


@dataclass(frozen=True)
class Bound:
    """Where a point sits against one roof (`roofs.roof_for` of its device and precision)."""

    precision: str  # the counted precision that dominates the FLOPs (FLOP_TERMS' keys)
    roof: Roof
    bound: str  # "memory" or "compute"
    roof_flops_per_s: float
    efficiency: float

    @property
    def peak_flops_per_s(self) -> float:
        return self.roof.peak_flops_per_s

    @property
    def bandwidth_bytes_per_s(self) -> float:
        return self.roof.bandwidth_bytes_per_s

    @property
    def ridge_ai(self) -> float:
        return self.roof.ridge_ai


def bound_against(total: Totals, roof: Roof | None) -> Bound | None:
    """Bound and efficiency of the step against `roof`, None where a part is missing."""
    precision = total.dominant_precision
    ai = total.arithmetic_intensity
    attained = total.attained_flops_per_s
    if roof is None or precision is None or ai is None or attained is None:
        return None
    at = roof.at(ai)
    return Bound(
        precision=precision,
        roof=roof,
        bound="memory" if ai < roof.ridge_ai else "compute",
        roof_flops_per_s=at,
        efficiency=attained / at,
    )
