"""Kernel name → family, as data: the first rule whose pattern matches a name wins.

Names come from cuDNN, cuBLAS, CUTLASS and PyTorch's ATen kernels; the order puts the
specific before the general (a fill is an elementwise kernel by template, but it is a
memory write; a split-K reduce belongs to its GEMM).
"""

from __future__ import annotations

import re

import polars as pl

# Collective communication (NCCL, RCCL and their collectives), in every source of kernel
# names: it waits for other ranks, so no roofline point of its own applies.
# Collectives by kernel family: NCCL/RCCL, the collectives' own names, and expert-parallel
# dispatch/combine (DeepEP's `deep_ep::intranode::dispatch`, `internode_ll::combine`, ...)
COMMUNICATION = (
    r"(?i)nccl|rccl|all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|deep_?ep::"
    r"|(?:intra|inter)node(?:_ll)?::(?:dispatch|combine)"
)

FAMILY_RULES: tuple[tuple[str, str], ...] = (
    ("communication", COMMUNICATION),
    ("optimizer", r"multi_tensor_apply|fused_adam|fused_sgd|adam_|sgd_|lamb_|_foreach_"),
    ("winograd", r"winograd"),
    # cuDNN's FFT convolution: the transforms, the filter flip and the pointwise products.
    ("fft conv", r"fft2d_|fft_conv|flip_filter|regular_fft|vector_fft"),
    ("depthwise conv", r"depthwise|conv_depthwise|dwconv"),
    ("conv wgrad", r"wgrad|bwd_filter|backward_weight|convolve_wgrad|computeWgrad"),
    ("conv dgrad", r"dgrad|bwd_data|backward_input|convolve_dgrad"),
    (
        "conv fprop",
        r"implicit_convolve|convolve_sgemm|fprop|conv2d|conv_fw|cudnn.*conv|implicit_gemm",
    ),
    ("attention", r"flash_fwd|flash_bwd|fmha|attention|sdpa|_mha_|mha_fwd|mha_bwd"),
    # Cijk_: the GEMMs of AMD's Tensile and hipBLASLt (C[i,j,k] = A x B, by its indices)
    ("gemm", r"gemm|splitKreduce|cutlass|cublas|matmul|_mma|xmma|hmma|^Cijk_|hipblaslt|rocblas"),
    (
        "batch/layer norm",
        r"bn_fw|bn_bw|batch_norm|batchnorm|layer_norm|layernorm|group_norm|welford",
    ),
    ("softmax", r"softmax"),
    ("memory copy", r"copy|memcpy|memset|FillFunctor|fill_kernel|CatArray|cat_|transpose"),
    ("reduction", r"reduce|nll_loss|cross_entropy|max_pool|avg_pool|adaptive_avg|pool"),
    ("elementwise", r"elementwise|pointwise|activation|relu|threshold|clamp|dropout"),
)
FAMILIES: tuple[str, ...] = (*(family for family, _ in FAMILY_RULES), "other")
_COMPILED = tuple((family, re.compile(pattern, re.IGNORECASE)) for family, pattern in FAMILY_RULES)


def family_of(name: str | None) -> str:
    for family, pattern in _COMPILED:
        if name and pattern.search(name):
            return family
    return "other"


def with_families(metrics: pl.DataFrame) -> pl.DataFrame:
    """The kernel table with a `family` column (each distinct name classified once)."""
    names = metrics["kernel_name"].fill_null("").unique().to_list()
    mapping = {name: family_of(name) for name in names}
    return metrics.with_columns(
        pl.col("kernel_name")
        .fill_null("")
        .replace_strict(list(mapping), list(mapping.values()), return_dtype=pl.String)
        .alias("family")
    )


def family_shares(metrics: pl.DataFrame, by_range: bool = False) -> pl.DataFrame:
    """Kernels, time and its share, FLOPs and DRAM bytes per family (and NVTX range),
    largest time first. Sums are strict: a family with a kernel lacking time has null time."""
    keys = ["nvtx_range", "family"] if by_range else ["family"]
    frame = with_families(metrics)
    if by_range:
        frame = frame.with_columns(pl.col("nvtx_range").fill_null("(no range)"))
    total_time = frame["time_s"].sum()

    def strict(column: str) -> pl.Expr:
        return pl.when(pl.col(column).null_count() == 0).then(pl.col(column).sum())

    return (
        frame.group_by(keys)
        .agg(
            pl.len().alias("kernels"),
            strict("time_s").alias("time_s"),
            strict("flops").alias("flops"),
            strict("dram_total_bytes").alias("dram_bytes"),
        )
        .with_columns(
            (100 * pl.col("time_s") / total_time if total_time else pl.lit(None, pl.Float64)).alias(
                "time_pct"
            )
        )
        .sort(["time_s", *keys], descending=[True, *([False] * len(keys))], nulls_last=True)
    )


def counted_share(metrics: pl.DataFrame) -> tuple[int, int, float | None]:
    """(kernels whose FLOPs and bytes the counters gave, all kernels, their share of the
    kernel time): the kernels a roofline can place, and how much of the step they are."""
    placed = (pl.col("arithmetic_intensity") > 0) & (pl.col("attained_flops_per_s") > 0)
    counted = metrics.filter(placed)
    total = float(metrics["time_s"].sum()) if "time_s" in metrics.columns else 0.0
    share = float(counted["time_s"].sum()) / total if total else None
    return counted.height, metrics.height, share
