"""The checks of one ncu export: an incomplete step, a point above its roof, tensor-core
work left uncounted, counted against analytic FLOPs, an implausible clock, a missing metric."""

from __future__ import annotations

import polars as pl

from generator.analysis.export_analysis import ExportAnalysis
from generator.analysis.roofline import FLOP_TERMS, Bound, Totals
from generator.analysis.roofs import DATASHEET, roof_for
from generator.analysis.tensor_work import fp16_on_tensor_pipe, tensor_evidence
from generator.analysis.thresholds import (
    BACKWARD_KERNEL_RATIO,
    CLOCK_TOLERANCE,
    COUNTED_TO_ANALYTIC_MIN,
    ROOF_TOLERANCE,
    TIME_AGREEMENT,
)
from generator.catalog import Device, load_catalog
from generator.findings.flop_checks import phase_mismatch, range_named
from generator.findings.specs import (
    ABOVE_ROOF,
    FP16_TENSOR_PIPE,
    IMPLAUSIBLE_CLOCK,
    INCOMPLETE_STEP,
    MISSING_METRIC,
    TENSOR_WORK_UNCOUNTED,
)
from generator.formatting import number, percent, si
from generator.ingest.metric_map import METRIC_COLUMNS
from generator.records.finding import Finding


def _ncu_names(column: str) -> str:
    for metric in METRIC_COLUMNS:
        if metric.column == column:
            return " or ".join(f"`{alias}`" for alias in metric.aliases)
    return column


# kernel-table column (as totals report it) -> the ncu metrics that provide it
_NEEDED_METRICS: dict[str, str] = {
    "flops": "`sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum` (and "
    "`sm__ops_path_tensor_*` for tensor cores)",
    "dram_total_bytes": "`dram__bytes_read.sum` + `dram__bytes_write.sum` (or "
    "`dram__bytes_op_read.sum` + `dram__bytes_op_write.sum` where those are n/a)",
    "time_s": "`gpu__time_duration.sum` (or `sm__cycles_elapsed.avg` and "
    "`sm__cycles_elapsed.avg.per_second`)",
    "l2_bytes": _ncu_names("l2_bytes"),
    "l1_bytes": _ncu_names("l1_bytes"),
    "sm_pct": _ncu_names("sm_pct"),
    "dram_pct": _ncu_names("dram_pct"),
}
# ncu's default (basic) set times kernels and collects neither FP counters nor DRAM bytes.
_COLLECTING_SETS = (
    "ncu's default set collects neither: profile with `--set full`, or add "
    "`--section SpeedOfLight_RooflineChart` (FP instruction rates and DRAM bytes, which the "
    "counts are rebuilt from)"
)
_PAGE_NEEDS = {"flops": "FLOP counters", "dram_total_bytes": "DRAM bytes", "time_s": "kernel time"}


def incomplete_step(
    ranges: dict[str, Totals],
    total: Totals,
    phase: str | None,
    analytic_training_flops: float | None = None,
) -> list[Finding]:
    findings = []
    forward = range_named(ranges, "forward")
    backward = range_named(ranges, "backward")
    if forward and forward[1].kernels >= 3:
        forward_name, forward_total = forward
        if backward is None and phase == "train_step":
            findings.append(
                INCOMPLETE_STEP.found(
                    "The training step has no backward range",
                    f"range '{forward_name}' holds {forward_total.kernels} kernels and no range "
                    "is named backward, though this is a training step",
                )
            )
        elif (
            backward is not None
            and backward[1].kernels < forward_total.kernels * BACKWARD_KERNEL_RATIO
        ):
            backward_name, backward_total = backward
            flops = ""
            if forward_total.flops and backward_total.flops is not None:
                flops = (
                    f"; its FLOPs are {percent(100 * backward_total.flops / forward_total.flops)} "
                    "of the forward's, where a backward pass costs about 200 %"
                )
            findings.append(
                INCOMPLETE_STEP.found(
                    "The backward pass is missing from the profile",
                    f"range '{backward_name}' holds {backward_total.kernels} kernel(s) against "
                    f"{forward_total.kernels} in '{forward_name}' (a backward pass launches "
                    f"about as many kernels as the forward or more){flops}",
                )
            )
    if analytic_training_flops and total.flops is not None:
        ratio = total.flops / analytic_training_flops
        if ratio < COUNTED_TO_ANALYTIC_MIN:
            findings.append(
                INCOMPLETE_STEP.found(
                    "The profile counts far fewer FLOPs than the step performs",
                    f"counted {si(total.flops, 'FLOP')} against {si(analytic_training_flops, 'FLOP')} "
                    f"analytic for the training step (ratio {number(ratio, 3)} < "
                    f"{COUNTED_TO_ANALYTIC_MIN})",
                )
            )
    return findings


def _dominant_precision_expr() -> pl.Expr:
    columns = [f"flops_{p}" for p in FLOP_TERMS]
    return (
        pl.concat_list([pl.col(c).fill_null(0) for c in columns]).list.arg_max().alias("_dominant")
    )


def above_roof(metrics: pl.DataFrame, device: Device | None, bound: Bound | None) -> list[Finding]:
    """Attained FLOP/s above min(peak of the kernel's precision, AI · bandwidth), against the
    datasheet's roofs (`roofs.roof_for`): the hardware's limit, which no count may pass
    (a measured ceiling is a rate reached, which a kernel may pass)."""
    findings = []
    if device is not None:
        # Vectorised: an export can hold hundreds of thousands of kernels.
        precisions = list(FLOP_TERMS)
        indices = list(range(len(precisions)))
        roofs = [roof_for(device.name, p, DATASHEET, catalog=(device,)) for p in precisions]
        peaks = [r.peak_flops_per_s if r else None for r in roofs]
        dominant = _dominant_precision_expr()
        peak = dominant.replace_strict(indices, peaks, return_dtype=pl.Float64)
        # the datasheet's one memory roof, as each precision's roof has it
        bandwidth = next((r.bandwidth_bytes_per_s for r in roofs if r), None)
        memory_roof = pl.col("flops") / pl.col("dram_total_bytes") * bandwidth
        roof = (
            pl.when((pl.col("dram_total_bytes") > 0) & pl.lit(bandwidth is not None))
            .then(pl.min_horizontal(peak, memory_roof))
            .otherwise(peak)
        )
        over = (
            metrics.filter(pl.col("attained_flops_per_s").is_not_null())
            .with_columns(
                roof.alias("_roof"),
                dominant.replace_strict(indices, precisions, return_dtype=pl.String).alias(
                    "_precision"
                ),
            )
            .filter(
                pl.col("_roof").is_not_null()
                & (pl.col("attained_flops_per_s") > pl.col("_roof") * ROOF_TOLERANCE)
            )
            .with_columns((pl.col("attained_flops_per_s") / pl.col("_roof")).alias("_share"))
            .sort("_share", descending=True)
        )
        rows = over.height
        if rows:
            worst = over.row(0, named=True)
            share, precision, roof = worst["_share"], worst["_precision"], worst["_roof"]
            findings.append(
                ABOVE_ROOF.found(
                    "Kernels above their roof",
                    f"{rows} of {metrics.height} kernels attain more than "
                    f"min(peak, AI × bandwidth) of the {device.name}; worst: "
                    f"'{worst['kernel_name'][:80]}' at {si(worst['attained_flops_per_s'], 'FLOP/s')} "
                    f"{precision} against a roof of {si(roof, 'FLOP/s')} "
                    f"({percent(100 * share)})",
                )
            )
    if bound is not None and bound.efficiency > ROOF_TOLERANCE:
        findings.append(
            ABOVE_ROOF.found(
                "The step is above its roof",
                f"efficiency {percent(100 * bound.efficiency)} against the {bound.precision} "
                f"roof of {si(bound.roof_flops_per_s, 'FLOP/s')}",
            )
        )
    return findings


def tensor_work_uncounted(metrics: pl.DataFrame) -> list[Finding]:
    """An error only where matrix work on tensor cores is plausible (tensor_work.py)."""
    evidence = tensor_evidence(metrics)
    if evidence is None:
        return []
    parts = [f"{evidence.kernels} kernel(s) doing matrix work (GEMM, convolution, attention)"]
    if evidence.instructions is not None:
        share = (
            f" ({percent(100 * evidence.instruction_share)} of the export's)"
            if evidence.instruction_share is not None
            else ""
        )
        parts.append(f"issued {evidence.instructions:,.0f} tensor-pipe instructions{share}")
    if evidence.max_active_pct is not None:
        parts.append(f"kept the tensor pipe busy up to {percent(evidence.max_active_pct)}")
    named = ", ".join(f"'{name[:60]}'" for name in evidence.names[:3])
    more = f" and {len(evidence.names) - 3} more" if len(evidence.names) > 3 else ""
    shown = f" ({named}{more})"
    estimate = (
        f"; tensor FLOPs {si(evidence.estimate_flops, 'FLOP')} ({evidence.estimate_label})"
        if evidence.estimate_flops is not None
        else ""
    )
    return [
        TENSOR_WORK_UNCOUNTED.found(
            "Tensor-core work is not in the FLOP count",
            ", ".join(parts) + shown + ", but no `sm__ops_path_tensor_*` counter has a value: "
            "only CUDA-core FLOPs are counted, so FLOPs and attained FLOP/s are undercounted"
            + estimate,
            TENSOR_WORK_UNCOUNTED.fix
            + (
                "; the estimate is labelled as one and never added to the counted total"
                if evidence.estimate_flops is not None
                else "; with `sm__inst_executed_pipe_tensor.sum` an estimate can be shown"
            ),
        )
    ]


def fp16_tensor_pipe(metrics: pl.DataFrame) -> list[Finding]:
    """Tensor-pipe instructions without matrix-work evidence, from kernels doing FP16
    arithmetic: counted as FP16 FLOPs already, and said so (info)."""
    fp16 = fp16_on_tensor_pipe(metrics)
    if fp16 is None:
        return []
    share = fp16.fp16_warp_instructions / fp16.instructions
    return [
        FP16_TENSOR_PIPE.found(
            "Tensor-pipe instructions from FP16 arithmetic, not matrix work",
            f"{fp16.kernels} kernel(s) with no matrix-work evidence (no MMA sub-metric, no "
            f"tensor-core kernel family) issued {fp16.instructions:,.0f} tensor-pipe "
            f"instructions ('{fp16.example[:60]}'); their FP16 thread instructions ÷ 32 are "
            f"{fp16.fp16_warp_instructions:,.0f} warp instructions, {percent(100 * share)} of "
            "them: on GA100, Volta and Turing FP16 arithmetic (HFMA2) issues on the pipe shared "
            "with the tensor cores. That work is in the FP16 FLOPs",
        )
    ]


def _max_catalog_clock() -> float:
    return max(device.boost_clock_hz for device in load_catalog())


def implausible_clock(metrics: pl.DataFrame, device: Device | None) -> list[Finding]:
    findings = []
    clocks = metrics.filter(pl.col("sm_clock_hz").is_not_null())
    limit = device.boost_clock_hz if device else _max_catalog_clock()
    against = (
        f"the {device.name}'s boost clock" if device else "the fastest boost clock in the catalog"
    )
    if not clocks.is_empty():
        worst = clocks.sort("sm_clock_hz", descending=True).row(0, named=True)
        if worst["sm_clock_hz"] > limit * CLOCK_TOLERANCE:
            over = clocks.filter(pl.col("sm_clock_hz") > limit * CLOCK_TOLERANCE).height
            findings.append(
                IMPLAUSIBLE_CLOCK.found(
                    "A clock rate beyond the hardware",
                    f"{over} kernel(s) report `sm__cycles_elapsed.avg.per_second` up to "
                    f"{si(worst['sm_clock_hz'], 'Hz')} ('{worst['kernel_name'][:60]}'), above "
                    f"{against} of {si(limit, 'Hz')}; every time derived as cycles / clock, and "
                    "every rate built on it, is wrong",
                    "use `gpu__time_duration.sum` for time; check the unit of the clock metric "
                    "(cycle/nsecond read as cycle/second, or a per-SM sum read as an average)",
                )
            )
    both = metrics.filter(
        pl.col("gpu_time_s").is_not_null()
        & pl.col("sm_cycles").is_not_null()
        & (pl.col("sm_clock_hz") > 0)
        & (pl.col("gpu_time_s") > 0)
    ).with_columns(
        (
            (pl.col("sm_cycles") / pl.col("sm_clock_hz") - pl.col("gpu_time_s")).abs()
            / pl.col("gpu_time_s")
        ).alias("_gap")
    )
    disagree = both.filter(pl.col("_gap") > TIME_AGREEMENT)
    if not disagree.is_empty():
        worst = disagree.sort("_gap", descending=True).row(0, named=True)
        findings.append(
            IMPLAUSIBLE_CLOCK.found(
                "Kernel time disagrees with cycles / clock",
                f"{disagree.height} of {both.height} kernels: worst '{worst['kernel_name'][:60]}' "
                f"lasts {si(worst['gpu_time_s'], 's')} but cycles / clock gives "
                f"{si(worst['sm_cycles'] / worst['sm_clock_hz'], 's')}",
            )
        )
    return findings


def missing_metric(metrics: pl.DataFrame, total: Totals) -> list[Finding]:
    findings = []
    for column, count in sorted(total.incomplete.items()):
        findings.append(
            MISSING_METRIC.found(
                f"{column} is n/a for some kernels",
                f"{count} of {total.kernels} kernels have no value for {column}, so its total "
                "is shown as n/a (never as a partial sum)",
                f"collect {_NEEDED_METRICS.get(column, column)} for every kernel "
                "(ncu --metrics ..., or --set full)",
            )
        )
    for column, label in _PAGE_NEEDS.items():
        if column in total.incomplete:
            continue
        if metrics.height and metrics[column].null_count() == metrics.height:
            findings.append(
                MISSING_METRIC.found(
                    f"No {label} in the export",
                    f"none of the {metrics.height} kernels has {column}: the roofline point "
                    "needs FLOPs, DRAM bytes and time",
                    f"collect {_NEEDED_METRICS[column]} (ncu --metrics ...); {_COLLECTING_SETS}",
                )
            )
    return findings


def export_findings(
    analysis: ExportAnalysis,
    phase: str | None = None,
    analytic_training_flops: float | None = None,
    analytic_forward_flops: float | None = None,
    analytic_backward_flops: float | None = None,
) -> list[Finding]:
    """Every check that applies to one analysed ncu export; the analytic counts (when the
    model is known) check the forward and backward ranges and the whole step against the
    profile."""
    metrics, total, ranges = analysis.metrics, analysis.step, analysis.ranges
    device = analysis.match.device
    return [
        *incomplete_step(ranges, total, phase, analytic_training_flops),
        *phase_mismatch(metrics, ranges, "forward", analytic_forward_flops),
        *phase_mismatch(metrics, ranges, "backward", analytic_backward_flops),
        *above_roof(metrics, device, analysis.bound),
        *tensor_work_uncounted(metrics),
        *fp16_tensor_pipe(metrics),
        *implausible_clock(metrics, device),
        *missing_metric(metrics, total),
    ]
