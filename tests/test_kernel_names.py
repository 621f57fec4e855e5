"""Kernel names decoded into what they state (seed 004's §2.3 by hand, here for every
kernel a page lists), on real names from the committed ncu exports and profiler tables."""

from __future__ import annotations

import csv

import pytest

from generator.analysis.kernel_names import decode, name_says
from tests.helpers import REPO

IMPORTED = REPO / "measurements" / "imported"
H200_RUNS = REPO / "tests" / "data" / "h200" / "runs"


def ncu_names(folder: str) -> list[str]:
    """The distinct kernel names of a committed ncu export, in file order."""
    with (IMPORTED / folder / "ncu.csv").open(newline="", encoding="utf-8") as handle:
        rows = csv.reader(handle)
        column = next(rows).index("Kernel Name")
        return list(dict.fromkeys(row[column] for row in rows if len(row) > column))


def op_names(run: str) -> list[str]:
    """The op and kernel names of a committed torch.profiler table (ops.csv)."""
    with (H200_RUNS / run / "ops.csv").open(newline="", encoding="utf-8") as handle:
        return list(dict.fromkeys(row["op"] for row in csv.DictReader(handle)))


def named(names: list[str], part: str) -> str:
    """The first name that holds `part` (a plain name, or a templated one's function)."""
    return next(n for n in names if part in n)


def test_seed_004s_sgemm_split_k_and_softmax_names() -> None:
    names = ncu_names("a100-bert-attention")
    sgemm = decode(named(names, "ampere_sgemm_32x32_sliced1x4_tn"))
    assert sgemm is not None
    assert (sgemm.library, sgemm.architecture, sgemm.precision) == ("cuBLAS", "Ampere", "FP32")
    assert sgemm.operation == "SGEMM (FP32 GEMM on CUDA cores)"
    assert sgemm.tile.startswith("32×32, sliced 1×4")
    assert sgemm.layout == "tn (A transposed, B not transposed)"
    assert decode(named(names, "ampere_sgemm_128x128_nn")).tile == "128×128"  # type: ignore[union-attr]
    split = decode(named(names, "splitKreduce_kernel"))
    assert split is not None and split.operation.startswith("split-K reduction")
    assert split.precision == "FP32"
    softmax = decode(named(names, "softmax_warp_forward"))
    assert softmax is not None and softmax.library == "PyTorch (ATen)"
    # <float, float, float, (int)5, (bool)0, (bool)0>: rows of up to 2^5, not log-softmax
    assert softmax.operation == "softmax forward, one warp per row of at most 2^5 = 32 elements"


def test_a_relu_is_a_clamp() -> None:
    names = ncu_names("l4-resnet18-train-step-b64")
    clamp = name_says(named(names, "at::native::vectorized_elementwise_kernel<(int)4, at::"
                            "native::<unnamed>::launch_clamp_scalar"))  # fmt: skip
    assert "elementwise, 4 elements per load: clamp by a scalar (clamp_min = ReLU" in clamp
    # the loss's log-softmax over 10 classes: rows of at most 16
    log_softmax = decode(named(names, "<unnamed>::softmax_warp_forward"))
    assert log_softmax is not None and log_softmax.operation.startswith("log-softmax forward")
    ops = op_names("E-resnet18-cifar10-b128-train_step-fp32-cuda-28058cbc")
    assert "aten::clamp_min_" in ops
    assert "clamp_min = ReLU" in name_says("aten::clamp_min_")


def test_xmma_names_state_library_architecture_precision_tile_and_layout() -> None:
    ops = op_names("E-resnet18-cifar10-b128-train_step-tf32-cuda-c6fbe623")
    fprop = decode(named(ops, "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw"))
    assert fprop is not None
    assert (fprop.library, fprop.architecture) == ("cuDNN", "Ampere (sm_80)")
    assert fprop.operation == "convolution forward as an implicit GEMM on tensor cores"
    assert fprop.precision == "TF32 math, FP32 accumulate"
    assert fprop.layout == "NHWC input, KRSC filter, NCHW output"
    assert fprop.tile.count("×") == 2
    gemm = decode(named(ops, "sm80_xmma_gemm_f32f32_tf32f32_f32_nt_n"))
    assert gemm is not None and gemm.library == "cuBLAS"
    assert gemm.layout == "nt (A not transposed, B transposed)"
    bf16 = op_names("E-resnet18-cifar10-b128-train_step-bf16-amp-cuda-5e005f6d")
    hopper = decode(named(bf16, "sm90_xmma_"))
    assert hopper is not None and hopper.architecture == "Hopper (sm_90)"
    assert "tensor cores" in hopper.operation and hopper.precision.startswith("BF16 math")


def test_cutlass_names_flat_and_templated() -> None:
    bf16 = op_names("E-resnet18-cifar10-b128-train_step-bf16-amp-cuda-5e005f6d")
    conv = decode(named(bf16, "cutlass_tensorop_bf16_s16816fprop_optimized_bf16"))
    assert conv is not None and conv.library.startswith("CUTLASS")
    assert conv.operation == (
        "convolution forward as an implicit GEMM on tensor cores (mma m16n8k16)"
    )
    assert conv.precision == "BF16 in, FP32 accumulate, BF16 out"
    assert conv.layout == "NHWC" and "stages" in conv.tile
    fp32 = op_names("E-resnet18-cifar10-b128-train_step-fp32-cuda-28058cbc")
    simt = decode(named(fp32, "cutlass_80_simt_sgemm_"))
    assert simt is not None and simt.operation == "GEMM on CUDA cores (SIMT)"
    assert simt.architecture == "Ampere (sm_80)" and simt.precision == "FP32"
    int8 = decode(ncu_names("a100-cutlass-b2b-int4")[0])
    assert int8 is not None and int8.library == "CUTLASS"
    assert int8.precision == "INT8" and int8.operation == "GEMM on tensor cores"
    assert int8.tile == "128×96×64"


@pytest.mark.parametrize("name", ["vecAdd", "", None, "void gemm_v1<float>(float *)"])
def test_a_name_that_states_nothing_says_so(name: str | None) -> None:
    assert name_says(name) == "–"


def test_kernel_pages_show_what_the_name_says() -> None:
    """The ncu page's top kernels (pinned by the golden kernels page, built from the L4
    ResNet-18 export) and an nsys capture's kernel table carry the column."""
    from generator.catalog import load_catalog
    from generator.pages.nsys_page import nsys_page
    from generator.records.import_source import discover_nsys
    from generator.site.captures import nsys_views

    golden = (REPO / "tests/data/golden/expected/kernels.md").read_text(encoding="utf-8")
    assert "<th>the name says</th>" in golden
    assert "<td>cuDNN · convolution as an implicit SGEMM · FP32</td>" in golden
    captures = [c for c in discover_nsys(REPO / "measurements") if "rtx2080ti" in c.name]
    (view,) = nsys_views(captures, load_catalog())
    page = nsys_page(view).markdown
    assert "<th>family</th><th>the name says</th><th>launches</th>" in page
    # a project's own bf16 GEMV is no cuBLAS kernel: its name states no library
    row = next(r for r in page.split("<tr>") if "bf16_gemv_vec4_row_kernel" in r)
    assert "cuBLAS" not in row and "<td>–</td>" in row


def test_an_fft_convolutions_complex_gemm_and_transforms() -> None:
    """A measured AlexNet run (H100, fp32): cuDNN's FFT convolution, its complex GEMM."""
    path = REPO / "measurements/runs/H-alexnet-imagenet-b64-inference-fp32-cuda-6390d721/ncu.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        rows = csv.reader(handle)
        column = next(rows).index("Kernel Name")
        names = list(dict.fromkeys(row[column] for row in rows if len(row) > column))
    gemm = decode(named(names, "sm80_xmma_gemm_cf32cf32_f32f32_cf32"))
    assert gemm is not None and gemm.precision == "FP32 math, FP32 accumulate"
    assert gemm.operation == "GEMM on CUDA cores (FFMA)"
    transform = decode(named(names, "fft2d_c2r"))
    assert transform is not None and transform.library == "cuDNN"
    assert transform.operation == "inverse FFT (complex to real) of an FFT convolution"
