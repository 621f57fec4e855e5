"""Counted against analytic FLOPs of the same work, and the cause the profile itself shows
when they differ: Winograd/FFT convolutions doing fewer multiplications, tensor-core counters
counting tile padding (both seen on an H100, measurements/runs/*-cuda-*), or MACs read as
FLOPs."""

from __future__ import annotations

import polars as pl

from generator.analysis.kernels import with_families
from generator.analysis.roofline import Totals
from generator.analysis.thresholds import COUNTED_TO_ANALYTIC_MIN
from generator.findings.specs import FEWER_FLOPS_ALGORITHM, FLOPS_MISMATCH, TENSOR_PADDING
from generator.formatting import number, percent, si
from generator.records.finding import Finding


def range_named(ranges: dict[str, Totals], word: str) -> tuple[str, Totals] | None:
    """The range whose name contains `word` with the most kernels."""
    matches = [(name, t) for name, t in ranges.items() if word in name.lower()]
    if not matches:
        return None
    return max(matches, key=lambda item: item[1].kernels)


# Convolution algorithms that do fewer multiplications than the direct one.
FEWER_MULTIPLICATIONS = frozenset({"winograd", "fft conv"})
# Counted within this of the analytic count: agreement (SIMT FFMA counts land within 1 % of
# a ResNet-18 forward on an H100; backward kernels within 20 %).
AGREEMENT = 0.25


def flops_mismatch(
    counted: float | None,
    analytic: float | None,
    what: str,
    kernels: pl.DataFrame | None = None,
    tensor_flops: float = 0.0,
) -> list[Finding]:
    """Counted against analytic FLOPs of the same work; `kernels` (the range's) and its
    counted tensor FLOPs let the finding name the cause the profile itself shows."""
    if not counted or not analytic:
        return []
    ratio = counted / analytic
    evidence = f"{what}: counted {si(counted, 'FLOP')}, analytic {si(analytic, 'FLOP')}, ratio {number(ratio, 3)}"
    fewer = _fewer_multiplication_kernels(kernels)
    if ratio < 1 - AGREEMENT and fewer:
        return [
            FEWER_FLOPS_ALGORITHM.found(
                "The convolution algorithm does fewer FLOPs than the model defines",
                f"{evidence}; {fewer}: these algorithms replace most multiplications of a "
                "direct convolution by transforms, so the FLOPs counted (the work done) are "
                "below the analytic count (the work the layers define)",
            )
        ]
    if ratio > 1 + AGREEMENT and tensor_flops > 0.5 * counted:
        return [
            TENSOR_PADDING.found(
                "Tensor-core counters count the work issued, tile padding included",
                f"{evidence}; {si(tensor_flops, 'FLOP')} of the counted FLOPs come from "
                "`sm__ops_path_tensor_*`, which count every multiply-accumulate the tensor cores "
                "issue, including the tile lanes a small channel count leaves empty (CUDA-core "
                "FLOPs are predicated-on instructions and count no padding)",
            )
        ]
    if 0.45 <= ratio <= 0.55 or 1.8 <= ratio <= 2.2:
        return [
            FLOPS_MISMATCH.found(
                "Counted and analytic FLOPs differ by a factor of 2",
                evidence,
            )
        ]
    if ratio < COUNTED_TO_ANALYTIC_MIN:
        return [
            FLOPS_MISMATCH.found(
                "Far fewer FLOPs counted than the model performs",
                evidence,
                "Winograd and FFT convolutions perform fewer multiplications than the direct "
                "algorithm; otherwise work is missing (tensor cores uncounted, kernels outside "
                "the profiled range)",
            )
        ]
    if ratio > 1.5:
        return [
            FLOPS_MISMATCH.found(
                "More FLOPs counted than the model performs",
                evidence,
                "recomputation (activation checkpointing), padding to tile sizes, or layers the "
                "analytic model lacks",
            )
        ]
    return []


def _fewer_multiplication_kernels(kernels: pl.DataFrame | None) -> str:
    """'N Winograd / FFT convolution kernels (x % of the range's kernel time)', or ''."""
    if kernels is None or kernels.is_empty():
        return ""
    families = with_families(kernels)
    chosen = families.filter(pl.col("family").is_in(list(FEWER_MULTIPLICATIONS)))
    if chosen.is_empty():
        return ""
    names = " / ".join(sorted(set(chosen["family"].to_list())))
    total = float(families["time_s"].sum())
    share = (
        f" ({percent(100 * float(chosen['time_s'].sum()) / total)} of its kernel time)"
        if total
        else ""
    )
    return f"cuDNN ran {chosen.height} {names} kernel(s){share}"


def phase_mismatch(
    metrics: pl.DataFrame, ranges: dict[str, Totals], word: str, analytic: float | None
) -> list[Finding]:
    found = range_named(ranges, word)
    if found is None or analytic is None:
        return []
    name, totals = found
    return flops_mismatch(
        totals.flops,
        analytic,
        f"{word} range",
        metrics.filter(pl.col("nvtx_range") == name),
        tensor_flops=totals.tensor_flops,
    )
