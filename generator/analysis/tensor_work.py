"""Tensor-core work an export shows but does not count as FLOPs.

Tensor FLOPs are counted only from the direct `sm__ops_path_tensor_*` counters. Without them,
tensor-pipe instructions or tensor-pipe activity still show that tensor cores ran, but not
always matrix work: on GA100, Volta and Turing, FP16 arithmetic (HFMA2) issues on the pipe
it shares with the tensor cores, so RNG, elementwise, reduction, split-K reduce and SIMT
GEMM kernels issue tensor-pipe instructions that their FP16 thread instructions ÷ 32 account
for. Only kernels with matrix-work evidence (an MMA sub-metric, a tensor-core kernel family
by name, or a GEMM, convolution or attention kernel with its tensor pipe busy for a material
share of cycles) count as uncounted matrix work; the FP16 ones are reported as FP16
arithmetic. Not a
kernel whose counted CUDA-core FLOPs are at least what its tensor-pipe instructions could
do: its matrix multiply ran on CUDA cores and is counted (a naive fp32 GEMM on A100 issues
one tensor-pipe instruction per 16 FFMA warp instructions and no MMA). Nor a kernel whose
direct counters were collected and read zero: on an H100 (ncu 2025.3) FP32 elementwise,
batch-norm, pooling, FFT and SIMT implicit-GEMM kernels issue HMMA-pipe instructions while
every `sm__ops_path_tensor_*` counter reads 0 (runs F and H in measurements/runs/).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from generator.analysis.kernels import family_of
from generator.analysis.roofline import FLOP_TERMS

MATRIX_FAMILIES = frozenset(
    {"gemm", "conv fprop", "conv dgrad", "conv wgrad", "winograd", "depthwise conv", "attention"}
)
# Kernels of a GEMM's family that do no matrix multiply themselves.
NOT_MATRIX_NAME = r"(?i)splitKreduce|split_k_reduce|reduce_kernel"
TENSOR_NAME = (
    r"(?i)tensorop|xmma|hmma|wmma|imma|gmma|tf32|s1688|s16816|h1688|h16816|884gemm|"
    r"sm80_xmma|sm90_xmma|flash_fwd|flash_bwd|fmha"
)
MATERIAL_ACTIVE_PCT = 1.0  # tensor pipe busy for at least 1 % of cycles
# ncu's own SpeedOfLight_HierarchicalTensorRooflineChart section prices a tensor-pipe
# instruction at 512 FLOP (derived__sm__inst_executed_pipe_tensor_x512). The true figure
# depends on the architecture and the MMA shape, so the result is only ever an estimate.
FLOP_PER_TENSOR_INSTRUCTION = 512


@dataclass(frozen=True)
class TensorEvidence:
    kernels: int  # kernels where matrix work on tensor cores is plausible and uncounted
    instructions: float | None  # their tensor-pipe instructions, where exported
    max_active_pct: float | None  # their highest tensor-pipe activity, where exported
    example: str  # one kernel name
    other_kernels: int  # kernels with tensor-pipe activity where no matrix work is plausible
    estimate_flops: float | None  # instructions x 512: a labelled estimate, never a count
    names: tuple[str, ...] = ()  # the matrix kernels' distinct names, by instructions
    # their share of every tensor-pipe instruction the export counts (None: not exported)
    instruction_share: float | None = None

    @property
    def estimate_label(self) -> str:
        return (
            f"estimate: {FLOP_PER_TENSOR_INSTRUCTION} FLOP per tensor-pipe instruction, as "
            "ncu's hierarchical tensor roofline section assumes; not in the counted total"
        )


def matrix_evidence(family: pl.Expr) -> pl.Expr:
    """Matrix work on tensor cores, as evidence: an MMA sub-metric (HMMA instructions), a
    tensor-core kernel family by name (xmma, wgmma, hmma, imma, gmma, tensorop, ...), or a
    GEMM, convolution or attention kernel whose tensor pipe was busy a material share of
    its cycles. A GEMM's name alone is not: cuBLAS's fp32 `gemmSN_*` kernels issue their
    FP16 arithmetic (HFMA2) on the pipe GA100, Volta and Turing share with the tensor cores."""
    name = pl.col("kernel_name").fill_null("")
    matrix_family = family.is_in(list(MATRIX_FAMILIES)) & ~name.str.contains(NOT_MATRIX_NAME)
    return (
        (pl.col("tensor_hmma_inst").fill_null(0) > 0)
        | name.str.contains(TENSOR_NAME)
        | (matrix_family & (pl.col("tensor_active_pct").fill_null(0) >= MATERIAL_ACTIVE_PCT))
    )


def families(metrics: pl.DataFrame) -> pl.Expr:
    """Each row's kernel family (analysis.kernels), as an expression over the frame."""
    names = metrics["kernel_name"].fill_null("").unique().to_list()
    by_name = {kernel: family_of(kernel) for kernel in names}
    return (
        pl.col("kernel_name")
        .fill_null("")
        .replace_strict(list(by_name), list(by_name.values()), return_dtype=pl.String)
    )


@dataclass(frozen=True)
class Fp16Pipe:
    """Tensor-pipe instructions of kernels with no matrix-work evidence, and how many of
    them the FP16 thread instructions account for (one HFMA2/HADD2/HMUL2 warp instruction
    is 32 thread instructions)."""

    kernels: int
    instructions: float
    fp16_warp_instructions: float
    example: str


FP16_INST = ("fp16_add_inst", "fp16_mul_inst", "fp16_fma_inst")


def fp16_on_tensor_pipe(metrics: pl.DataFrame) -> Fp16Pipe | None:
    """Kernels whose tensor-pipe instructions are FP16 arithmetic, not matrix work: no
    matrix-work evidence, and FP16 thread instructions ÷ 32 of the same order (on the SAM
    export's `gemmSN_NN_kernel`, 196,608 / 32 = 6,144, its tensor-pipe count exactly)."""
    if metrics.is_empty() or "tensor_pipe_inst" not in metrics.columns:
        return None
    fp16 = pl.sum_horizontal([pl.col(c).fill_null(0) for c in FP16_INST])
    rows = metrics.filter(
        (pl.col("tensor_pipe_inst").fill_null(0) > 0)
        & ~matrix_evidence(families(metrics))
        & (fp16 > 0)
    )
    if rows.is_empty():
        return None
    return Fp16Pipe(
        kernels=rows.height,
        instructions=float(rows["tensor_pipe_inst"].sum()),
        fp16_warp_instructions=float(rows.select(fp16.sum()).item()) / 32,
        example=str(rows["kernel_name"][0] or ""),
    )


def _tensor_flops_counted(metrics: pl.DataFrame) -> bool:
    columns = [f"flops_{p}" for p in FLOP_TERMS if p.startswith("tensor_")]
    counted = metrics.select(pl.sum_horizontal([pl.col(c).fill_null(0) for c in columns]).sum())
    return bool(counted.item() and counted.item() > 0)


def tensor_evidence(metrics: pl.DataFrame) -> TensorEvidence | None:
    """Evidence of tensor-core work the FLOP count misses; None when there is none (or the
    direct tensor counters counted it)."""
    if metrics.is_empty() or _tensor_flops_counted(metrics):
        return None
    signals = ("tensor_pipe_inst", "tensor_hmma_inst", "tensor_active_pct")
    name = pl.col("kernel_name").fill_null("")
    direct = [pl.col(f"flops_{p}") for p in FLOP_TERMS if p.startswith("tensor_")]
    counted_zero = pl.any_horizontal([c.is_not_null() for c in direct])
    # A tensor-core kernel name is evidence on its own only where no tensor counter was
    # collected for the kernel; a collected zero says the tensor cores did not run.
    active = pl.any_horizontal([pl.col(c).fill_null(0) > 0 for c in signals]) | (
        name.str.contains(TENSOR_NAME) & pl.all_horizontal([pl.col(c).is_null() for c in signals])
    )
    family = families(metrics)
    cuda_core = pl.sum_horizontal(
        [pl.col(f"flops_{p}").fill_null(0) for p in FLOP_TERMS if not p.startswith("tensor_")]
    )
    simt = cuda_core >= pl.col("tensor_pipe_inst").fill_null(0) * FLOP_PER_TENSOR_INSTRUCTION
    plausible = matrix_evidence(family) & ~(simt & (pl.col("tensor_pipe_inst").fill_null(0) > 0))
    uncounted = active & ~counted_zero  # no tensor FLOPs anywhere: a collected counter is 0
    matrix = metrics.filter(uncounted & plausible)
    others = metrics.filter(uncounted & ~plausible).height
    if matrix.is_empty():
        return None
    inst = matrix["tensor_pipe_inst"]
    instructions = float(inst.sum()) if inst.null_count() < matrix.height else None
    pct = matrix["tensor_active_pct"]
    every = float(metrics["tensor_pipe_inst"].fill_null(0).sum())
    by_name = (
        matrix.group_by("kernel_name")
        .agg(pl.col("tensor_pipe_inst").fill_null(0).sum().alias("inst"), pl.len().alias("n"))
        .sort(["inst", "n", "kernel_name"], descending=[True, True, False])
    )
    return TensorEvidence(
        kernels=matrix.height,
        instructions=instructions,
        max_active_pct=float(pct.max()) if pct.null_count() < matrix.height else None,  # type: ignore[arg-type]
        example=str(matrix["kernel_name"][0] or ""),
        other_kernels=others,
        estimate_flops=(
            instructions * FLOP_PER_TENSOR_INSTRUCTION if instructions is not None else None
        ),
        names=tuple(str(n or "") for n in by_name["kernel_name"]),
        instruction_share=instructions / every if instructions is not None and every else None,
    )
