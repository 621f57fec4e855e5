"""Roofline points from a profiler trace: analytic FLOPs and bytes over measured time.

A third kind of point beside ncu-counted and modelled ones: the FLOPs come from the op's
shapes (generator.ingest.trace.formulas), the time from its kernels (or its CPU self time).
Each op's FLOPs are spread over its work items in proportion to their time, so every grouping
(per op, step, phase, layer, annotated range) is a plain sum and all of them add up to the
same totals. The roof of each op is the peak of its path: tensor cores for a matmul whose
kernels are tensor-core code (TF32 for float32), CUDA cores otherwise, each path under its
roof by `roofs.roof_for` (measured first: a CPU trace runs against the CPU's measured GEMM and
stream ceilings).
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from generator.analysis.kernels import COMMUNICATION, family_of
from generator.analysis.roofs import Roof
from generator.ingest.trace.attribute import Attribution, tensor_path

POINT_KIND = "analytic FLOPs / measured time"
# Why a work item has no model: its op has no formula; its op has one but the shapes
# recorded do not fit it; the trace recorded no shapes at all (`record_shapes=True` would);
# no op launched it (no launch event and no identical kernel an op launched); it is
# communication, reported apart.
UNCOUNTED_CAUSES = (
    "no formula",
    "compiled region",
    "no usable shapes",
    "no shapes recorded",
    "no op",
    "communication",
)
# A torch.compile region recorded as one op, its kernels launched under it: before
# PyTorch 2.4 inductor records no op per kernel, so the region has no cost of its own.
COMPILED_REGION = r"^(?:CompiledFunction(?:Backward)?|Torch-Compiled Region)"
# What would let each cause be costed: the profiler option (or the model) it lacks.
CAUSE_FIX = {
    "no formula": "none in the trace: the op needs a cost model here (custom, fused or "
    "compiled reduction ops)",
    "compiled region": "profile with PyTorch >= 2.4, which records each of inductor's "
    "Triton launches as an op with its arguments (its pointwise kernels are then costed; "
    "its reductions and extern kernels are not yet)",
    "no usable shapes": "record_shapes=True with Concrete Inputs (torch >= 2.1) gives the "
    "sizes the formula reads; an FBGEMM call over tables of mixed widths records only "
    "their summed width",
    "no shapes recorded": "profile with record_shapes=True",
    "no op": "keep the whole step inside the profiler's window (its launches are outside "
    "it or were dropped); torch.compile regions: profile with "
    "torch._inductor.config.triton.unique_kernel_names=True and PyTorch >= 2.4, which "
    "records each kernel's launch as an op with its arguments",
    "communication": "not costed: collectives are timed, not modelled",
}
# A kernel no op launched is shown by its family (analysis/kernels.py) or, for inductor's
# Triton kernels, as compiled code: "(no op: optimizer)", "(no op: compiled)".
NO_OP = "(no op)"
# A collective's own op on a CPU trace (gloo's work is the op's self time, not a kernel).
HOST_COMMUNICATION = r"^(?:c10d::|gloo:|nccl:)|^record_param_comms$"
# The one whole every share of a trace's time is of: the GPU's busy time, kernels plus
# memcpy and memset (a CPU trace: its ops' self time). Its parts, which sum to it.
COPIES = "copies and memsets"
OVERHEAD = "dispatch overhead"
# Counted work whose cost rests on a value the trace lacks (formulas.Cost.bounded): its
# lower end is in the totals, its time is counted apart from the exactly modelled time.
BOUNDED = "bounded"
PARTS = ("modelled", BOUNDED, *UNCOUNTED_CAUSES, COPIES, OVERHEAD)
WHOLE_GPU = "GPU busy time (kernels + memcpy + memset)"
WHOLE_CPU = "ops' self time on the CPU"
UPPER_BOUND = "costed (bytes an upper bound)"  # a row above the memory roof
# Every path `tensor_path` gives an op: the roofs a trace's device is asked for.
TRACE_PATHS = ("fp32", "tf32_tensor", "fp64", "fp64_tensor", "bf16_tensor", "fp16_tensor",
               "fp8_tensor")  # fmt: skip


def work_points(attribution: Attribution) -> pl.DataFrame:
    """The work table with each row's share of its op's FLOPs and bytes, and its path."""
    work = attribution.work.with_columns(
        pl.when(pl.col("kernel").is_null())
        .then(pl.col("launcher").fill_null("").str.contains(HOST_COMMUNICATION))
        .otherwise(pl.col("kernel").str.contains(COMMUNICATION))
        .alias("communication")
    )
    unusable = "no usable shapes" if attribution.ops_with_shapes else "no shapes recorded"
    per_instance = work.group_by("instance").agg(
        pl.col("time_s").sum().alias("instance_time_s"),
        pl.col("tensor_core").any().alias("instance_tensor_core"),
    )
    joined = work.join(per_instance, on="instance", how="left").join(
        attribution.instances, on="instance", how="left"
    )
    share = pl.when(pl.col("instance_time_s") > 0).then(
        pl.col("time_s") / pl.col("instance_time_s")
    )
    paths = [
        tensor_path(f, d, t)
        for f, d, t in zip(
            joined["family"].to_list(),
            joined["dtype"].to_list(),
            joined["instance_tensor_core"].to_list(),
            strict=True,
        )
    ]
    counted = (pl.col("instance") >= 0) & pl.col("flops").is_not_null()
    # Why work has no model: one of UNCOUNTED_CAUSES, null where it is counted
    cause = (
        pl.when(pl.col("communication"))
        .then(pl.lit("communication"))
        .when(counted | pl.col("overhead"))
        .then(pl.lit(None, pl.String))
        .when(pl.col("launcher").is_null())
        .then(pl.lit("no op"))
        .when(pl.col("instance") < 0)
        .then(
            pl.when(pl.col("launcher").str.contains(COMPILED_REGION))
            .then(pl.lit("compiled region"))
            .otherwise(pl.lit("no formula"))
        )
        .otherwise(pl.lit(unusable))
    )
    return joined.with_columns(
        cause.alias("cause"),
        (pl.col("flops") * share).alias("flops"),
        (pl.col("bytes") * share).alias("bytes"),
        (pl.col("full_square_flops") * share).alias("full_square_flops"),
        (pl.col("flops_upper") * share).alias("flops_upper"),
        (pl.col("bytes_upper") * share).alias("bytes_upper"),
        pl.Series("path", paths, dtype=pl.String),
        (~counted & ~pl.col("communication") & ~pl.col("overhead")).alias("uncounted"),
        pl.coalesce("op", "launcher", _no_op_label(joined)).alias("op"),
    )


def _no_op_label(work: pl.DataFrame) -> pl.Expr:
    """ "(no op: <family>)" by the kernel's name: what the trace records of a kernel no op
    launched (a compiled region's Triton code, a fused optimizer's multi-tensor kernels)."""
    names = work.filter(pl.col("launcher").is_null())["kernel"].drop_nulls().unique().to_list()
    labels = {
        name: f"{NO_OP[:-1]}: {'compiled' if name.startswith('triton_') else family_of(name)})"
        for name in names
    }
    return pl.col("kernel").replace_strict(labels, default=pl.lit(NO_OP), return_dtype=pl.String)


def group_points(points: pl.DataFrame, by: str, roofs: Mapping[str, Roof]) -> pl.DataFrame:
    """Time, FLOPs, bytes, AI, attained and bound per value of `by`, largest time first.

    FLOPs and bytes sum over counted work only; `counted_time_s` is the time they were
    spent in, so attained FLOP/s never divides counted work by uncounted time."""
    counted = ~pl.col("uncounted") & ~pl.col("communication") & ~pl.col("overhead")
    grouped = (
        points.group_by(by)
        .agg(
            pl.len().alias("work_items"),
            pl.col("time_s").sum(),
            pl.col("time_s").filter(counted).sum().alias("counted_time_s"),
            pl.col("time_s").filter(pl.col("uncounted")).sum().alias("uncounted_time_s"),
            pl.col("time_s").filter(pl.col("overhead")).sum().alias("overhead_time_s"),
            pl.col("time_s").filter(pl.col("communication")).sum().alias("communication_time_s"),
            pl.col("flops").filter(counted).sum(),
            pl.col("bytes").filter(counted).sum(),
            # the upper ends: a bounded cost's where the trace gives one, the cost elsewhere
            pl.coalesce("flops_upper", "flops").filter(counted).sum().alias("flops_upper"),
            pl.coalesce("bytes_upper", "bytes").filter(counted).sum().alias("bytes_upper"),
            pl.col("flops")
            .filter(counted & pl.col("full_square_flops").is_not_null())
            .sum()
            .alias("_masked_flops"),
            # attention over the whole L×S square (FlopCounterMode's count); null elsewhere
            pl.col("full_square_flops").filter(counted).sum().alias("_full_square_flops"),
            pl.col("full_square_flops").filter(counted).is_not_null().any().alias("_any_square"),
            counted.any().alias("_any_counted"),
            pl.col("family").drop_nulls().mode().sort().first(),  # ties: alphabetical, not by hash
            pl.col("cause").drop_nulls().mode().sort().first(),
        )
        # ties in time by name: group_by's order is a hash's, and a page must not flip
        .sort("time_s", by, descending=[True, False], nulls_last=True)
    )
    # The path that carries most of a group's FLOPs sets its roof.
    dominant = (
        points.filter(counted)
        .group_by(by, "path")
        .agg(pl.col("flops").sum().alias("_path_flops"))
        .sort("_path_flops", "path", descending=[True, False])
        .group_by(by, maintain_order=True)
        .first()
        .select(by, "path")
    )
    grouped = (
        grouped.join(dominant, on=by, how="left", nulls_equal=True)
        .with_columns(
            # nothing counted: FLOPs and bytes are unknown, not zero
            pl.when("_any_counted").then(pl.col(c)).alias(c)
            for c in ("flops", "bytes", "flops_upper", "bytes_upper")
        )
        .with_columns(
            # why some of the time has no model: its commonest cause (UNCOUNTED_CAUSES)
            pl.when(pl.col("uncounted_time_s") > 0)
            .then(pl.coalesce("cause", pl.lit("no formula")))
            .when(pl.col("communication_time_s") >= pl.col("time_s"))
            .then(pl.lit("communication"))
            .when(pl.col("overhead_time_s") >= pl.col("time_s"))
            .then(pl.lit("dispatch overhead"))
            .otherwise(pl.lit("costed"))
            .alias("counted_as")
        )
        .with_columns(
            # the FLOPs FlopCounterMode would count: the square for attention, ours elsewhere
            pl.when("_any_square")
            .then(pl.col("flops") - pl.col("_masked_flops") + pl.col("_full_square_flops"))
            .alias("full_square_flops")
        )
        .drop("_any_counted", "_any_square", "_full_square_flops", "_masked_flops")
    )
    grouped = grouped.with_columns(
        pl.when(pl.col("bytes") > 0)
        .then(pl.col("flops") / pl.col("bytes"))
        .alias("arithmetic_intensity"),
        pl.when(pl.col("counted_time_s") > 0)
        .then(pl.col("flops") / pl.col("counted_time_s"))
        .alias("attained_flops_per_s"),
    )
    # Above the memory roof, the modelled bytes are more than reached memory: cached data,
    # or an input the trace records at full shape that is a broadcast view (no strides).
    return with_bounds(grouped, roofs).with_columns(
        pl.when((pl.col("bound") == "memory") & (pl.col("efficiency") > 1))
        .then(pl.lit(UPPER_BOUND))
        .otherwise(pl.col("counted_as"))
        .alias("counted_as")
    )


def with_bounds(frame: pl.DataFrame, roofs: Mapping[str, Roof]) -> pl.DataFrame:
    """Roof, bound and efficiency of each row against the roof of its path (`roofs`: path ->
    its roof, `roofs.path_roofs`); a path without one has no bound."""
    if not roofs:
        return frame.with_columns(
            pl.lit(None, pl.Float64).alias("roof_flops_per_s"),
            pl.lit(None, pl.String).alias("bound"),
            pl.lit(None, pl.Float64).alias("efficiency"),
        )
    peak = pl.col("path").replace_strict(
        {p: r.peak_flops_per_s for p, r in roofs.items()}, default=None, return_dtype=pl.Float64
    )
    # a data-moving op with no path roof of its own moves bytes at the fp32 (else first) roof's
    memory_roof = roofs.get("fp32") or next(iter(roofs.values()))
    bandwidth = pl.col("path").replace_strict(
        {p: r.bandwidth_bytes_per_s for p, r in roofs.items()},
        default=memory_roof.bandwidth_bytes_per_s,
        return_dtype=pl.Float64,
    )
    roof_value = pl.min_horizontal(peak, pl.col("arithmetic_intensity") * bandwidth)
    usable = (
        peak.is_not_null() & pl.col("arithmetic_intensity").is_not_null() & (pl.col("flops") > 0)
    )
    # A memory op (copy_, fill_, zero_, a lookup) does no arithmetic but moves known bytes:
    # its roof is the bandwidth, and its efficiency the bytes per second over it.
    time = "counted_time_s" if "counted_time_s" in frame.columns else "time_s"
    moves_only = (pl.col("flops") == 0) & (pl.col("bytes") > 0) & (pl.col(time) > 0)
    return frame.with_columns(
        pl.when(usable).then(roof_value).alias("roof_flops_per_s"),
        pl.when(usable)
        .then(
            pl.when(pl.col("arithmetic_intensity") < peak / bandwidth)
            .then(pl.lit("memory"))
            .otherwise(pl.lit("compute"))
        )
        .when(moves_only)
        .then(pl.lit("memory"))
        .alias("bound"),
    ).with_columns(
        pl.when(pl.col("roof_flops_per_s") > 0)
        .then(pl.col("attained_flops_per_s") / pl.col("roof_flops_per_s"))
        .when(moves_only)
        .then(pl.col("bytes") / pl.col(time) / bandwidth)
        .alias("efficiency")
    )


def totals_row(points: pl.DataFrame, roofs: Mapping[str, Roof]) -> dict[str, object]:
    """The whole trace as one point."""
    frame = group_points(points.with_columns(pl.lit("all").alias("_all")), "_all", roofs)
    if frame.is_empty():  # no work with any duration: nothing measured
        return dict.fromkeys(frame.drop("_all").columns) | {"work_items": 0, "time_s": 0.0}
    return frame.drop("_all").row(0, named=True)


def time_parts(points: pl.DataFrame, copies_s: float) -> dict[str, float]:
    """The seconds of each of PARTS: the work items by cause (counted ones are modelled,
    a wrapper's CPU self time dispatch overhead) and the memcpy/memset time beside them.
    Their sum is the whole (WHOLE_GPU or WHOLE_CPU)."""
    part = (
        pl.when(pl.col("communication"))
        .then(pl.lit("communication"))
        .when(pl.col("overhead"))
        .then(pl.lit(OVERHEAD))
        .when(pl.col("cause").is_not_null())
        .then(pl.col("cause"))
        .when(pl.col("bounded").fill_null(False))
        .then(pl.lit(BOUNDED))
        .otherwise(pl.lit("modelled"))
    )
    found = (
        dict(points.group_by(part.alias("part")).agg(pl.col("time_s").sum()).iter_rows())
        if points.height
        else {}
    )
    return {name: float(found.get(name, 0.0) or 0.0) for name in PARTS} | {COPIES: copies_s}


def time_shares(parts: dict[str, float]) -> dict[str, float]:
    """Each part over the whole (their sum); all zero when nothing took any time."""
    whole = sum(parts.values())
    return {name: (t / whole if whole > 0 else 0.0) for name, t in parts.items()}
