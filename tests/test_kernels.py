"""Kernel name → family, on the names real exports contain."""

from __future__ import annotations

import pytest

from generator.analysis.kernels import FAMILIES, family_of, family_shares
from generator.analysis.roofline import kernel_metrics
from generator.ingest import read_ncu_csv
from tests.helpers import REPO

L4 = REPO / "measurements" / "imported" / "l4-resnet18-train-step-b64" / "ncu.csv"
BERT = REPO / "measurements" / "imported" / "a100-bert-attention" / "ncu.csv"

NAMES = {
    # from the L4 ResNet-18 and A100 BERT exports
    "ampere_sgemm_32x32_sliced1x4_tn": "gemm",
    "void splitKreduce_kernel<(int)32, (int)16, int, float, float, float, float>(...)": "gemm",
    "void implicit_convolve_sgemm<float, float, (int)128, (int)5, (int)5>(int, int)": "conv fprop",
    "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, (int)32>(cudnnTensorStruct)": "batch/layer norm",
    "void at::native::<unnamed>::multi_tensor_apply_kernel<at::native::<unnamed>::TensorListMetadata<(int)2>>": "optimizer",
    "void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>>": "memory copy",
    "void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>>": "elementwise",
    "void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_impl<at::native::direct_copy_kernel_cuda>": "memory copy",
    "void at::native::<unnamed>::max_pool_forward_nchw<float>(int, const T1 *)": "reduction",
    "void at::native::<unnamed>::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>": "reduction",
    "void <unnamed>::softmax_warp_forward<float, float, float, (int)4>(T2 *)": "softmax",
    # cuDNN backward and algorithm names as seed 001 lists them
    "void cudnn::detail::dgrad_engine<float, 128, 6, 7, 3, 3, 5, false>(int, int)": "conv dgrad",
    "void cudnn::detail::wgrad_alg0_engine<float, 128, 5, 5, 3, 3, 3, false, 512>(int, int)": "conv wgrad",
    "void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(...)": "winograd",
    "void at::native::conv_depthwise2d_forward_kernel<(int)3, float, int>(...)": "depthwise conv",
    "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16": "conv fprop",
    "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>(Params)": "gemm",
    "my_custom_kernel(float*)": "other",
}


@pytest.mark.parametrize("name", sorted(NAMES))
def test_family_of(name: str) -> None:
    assert family_of(name) == NAMES[name]
    assert NAMES[name] in FAMILIES


def test_every_real_kernel_has_a_family() -> None:
    for path in (L4, BERT):
        names = read_ncu_csv(path).kernels["kernel_name"].to_list()
        assert "other" not in {family_of(n) for n in names}, path


def test_family_shares_on_the_l4_step() -> None:
    shares = family_shares(kernel_metrics(read_ncu_csv(L4).kernels))
    rows = {row["family"]: row for row in shares.to_dicts()}
    assert shares["family"].to_list()[:2] == ["conv fprop", "optimizer"]
    assert rows["conv fprop"]["kernels"] == 20
    assert rows["conv fprop"]["time_pct"] == pytest.approx(63.14, abs=0.01)
    assert sum(r["kernels"] for r in rows.values()) == 98
    assert shares["time_pct"].sum() == pytest.approx(100.0)


def test_family_shares_per_range() -> None:
    shares = family_shares(kernel_metrics(read_ncu_csv(L4).kernels), by_range=True)
    backward = shares.filter(shares["nvtx_range"] == "backward")
    assert backward["family"].to_list() == ["memory copy"]  # the one kernel the range caught


@pytest.mark.parametrize(
    "name",
    [
        "ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)",  # RCCL, MI350X
        "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
        "void c10d::allreduce_kernel<float>(float*, int)",
    ],
)
def test_collectives_are_communication(name: str) -> None:
    from generator.analysis.kernels import family_of

    assert family_of(name) == "communication"


def test_the_share_of_kernel_time_the_counters_place_on_the_roofline() -> None:
    """Issue 66: a kernel page gave kernel counts, not how much of the time they cover."""
    import polars as pl

    from generator.analysis.kernels import counted_share
    from generator.charts.captions import roofline_caption

    kernels = pl.DataFrame({"arithmetic_intensity": [2.0, 0.0, None, 5.0],
                            "attained_flops_per_s": [1e12, 0.0, None, 2e12],
                            "time_s": [3.0, 0.5, 0.5, 1.0]})  # fmt: skip
    assert counted_share(kernels) == (2, 4, 0.8)
    caption = roofline_caption(2, 2, None, 0.8)
    assert caption.endswith("are not shown: the drawn ones hold 80 % of the kernel time.")
