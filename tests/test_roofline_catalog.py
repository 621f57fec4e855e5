from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from generator.analysis.roofline import Totals
from generator.catalog import find_device, load_catalog
from generator.catalog.matching import match_device
from generator.errors import UserError
from generator.records.peaks import PEAK_KEYS
from tests.helpers import datasheet_bound

SEED_DEVICES = ["T4", "L4", "Tesla V100-SXM2-16GB", "A100 40GB SXM", "A100 80GB SXM", "A100 PCIe", "A100 80GB PCIe",
                "H100 SXM", "H100 PCIe", "H200", "RTX 4080 Laptop", "RTX 5070", "RTX 5090", "B200",
                "TPU v4", "TPU7x", "Grace CPU"]  # fmt: skip


def step(flops: float, dram: float, time: float, precision: str = "fp32") -> Totals:
    return Totals(
        kernels=1, flops=flops, flops_by_precision={precision: flops}, dram_bytes=dram,
        l2_bytes=None, l1_bytes=None, time_s=time, sm_pct=None, dram_pct=None,
        tensor_pipe_inst=None,
    )  # fmt: skip


@pytest.mark.parametrize("name", SEED_DEVICES)
def test_every_seed_device_is_in_the_catalog_with_a_source(name: str) -> None:
    device = find_device(name)
    assert device.source.startswith("https://")
    assert device.bandwidth_bytes_per_s > 0
    assert device.peaks_flops_per_s


def test_catalog_peaks_are_dense_not_sparsity_figures() -> None:
    # Product pages print these "with sparsity" figures; the catalog must hold half of each.
    sparse = {"h100-sxm": ("bf16_tensor", 1979e12), "a100-40gb-sxm": ("bf16_tensor", 624e12),
              "l4": ("fp16_tensor", 242e12), "h100-pcie": ("fp8_tensor", 3026e12)}  # fmt: skip
    for device_id, (key, with_sparsity) in sparse.items():
        assert find_device(device_id).peak(key) == pytest.approx(with_sparsity / 2, rel=2e-3)


def test_catalog_units_are_base_units() -> None:
    l4 = find_device("l4")
    assert l4.peak("fp32") == 30.3e12
    assert l4.bandwidth_bytes_per_s == 300e9
    assert all(set(d.peaks_flops_per_s) <= set(PEAK_KEYS) for d in load_catalog())


def test_find_device_is_lenient_about_vendor_words_and_case() -> None:
    assert find_device("NVIDIA GeForce RTX 5090").id == "rtx-5090"
    assert find_device("h100 sxm").id == "h100-sxm"
    with pytest.raises(UserError) as caught:
        find_device("Voodoo 2")
    assert caught.value.what == "unknown device 'Voodoo 2'"
    assert caught.value.fix is not None and "l4" in caught.value.fix


@pytest.mark.parametrize("cc", ["7.5", "8.6", "8.7", "8.9", "10.0"])
def test_a_compute_capability_alone_never_names_a_device(cc: str) -> None:
    # 8.7 and 10.0 have one catalog device each, but other products share them.
    match = match_device(pl.DataFrame({"cc": [cc, cc], "device_name": [None, None]}), None)
    assert match.device is None
    assert match.candidates
    assert f"compute capability {cc} is " in match.note
    assert "pass --device" in match.note


def test_compute_capability_candidates_and_names() -> None:
    ambiguous = match_device(pl.DataFrame({"cc": ["8.9"], "device_name": [None]}), None)
    assert ambiguous.candidates == ("l4", "rtx-4080-laptop", "rtx-4090", "rtx-4090-d", "l40s")
    by_name = match_device(
        pl.DataFrame({"cc": ["8.6"], "device_name": ["NVIDIA GeForce RTX 3090"]}), None
    )
    assert by_name.device is not None and by_name.device.id == "rtx-3090"
    assert by_name.how == "device name in the export"
    named = match_device(pl.DataFrame({"cc": ["8.9"], "device_name": [None]}), "L4")
    assert named.device is not None and named.how == "named"


def test_bound_and_efficiency_on_the_l4_step() -> None:
    total = step(4_928_393_620, 709_948_840, 7.37625e-3)
    bound = datasheet_bound(total, find_device("l4"))
    assert bound is not None
    assert bound.ridge_ai == pytest.approx(30.3e12 / 300e9)
    assert bound.bound == "memory"
    roof = total.arithmetic_intensity * 300e9  # type: ignore[operator]
    assert bound.efficiency == pytest.approx(total.attained_flops_per_s / roof)  # type: ignore[operator]
    assert bound.efficiency == pytest.approx(0.3208, abs=1e-4)


def test_compute_bound_uses_the_peak() -> None:
    total = step(flops=1e12, dram=1e9, time=0.1)  # AI 1000 > ridge 101
    bound = datasheet_bound(total, find_device("l4"))
    assert bound is not None and bound.bound == "compute"
    assert bound.efficiency == pytest.approx(1e13 / 30.3e12)


def test_bf16_tensor_work_runs_against_the_tensor_peak_not_fp32() -> None:
    total = step(flops=1e12, dram=1e8, time=0.01, precision="tensor_bf16")
    bound = datasheet_bound(total, find_device("h100-sxm"))
    assert bound is not None and bound.peak_flops_per_s == 989.5e12


def test_no_bound_when_the_device_lacks_that_precision() -> None:
    assert datasheet_bound(step(1e9, 1e8, 1e-3, "fp64"), find_device("rtx-5090")) is None


def test_catalog_errors_name_the_key(tmp_path: Path) -> None:
    text = (Path(__file__).parents[1] / "generator/catalog/hardware.toml").read_text(
        encoding="utf-8"
    )
    bad = tmp_path / "hardware.toml"
    bad.write_text(text.replace("fp32 = 8.1", "fp32 = -8.1", 1), encoding="utf-8")
    with pytest.raises(UserError) as caught:
        load_catalog(bad)
    assert caught.value.key == "device[0].peak_tflops.fp32"
    bad.write_text(text.replace("tdp_w = 70", "tdp_watts = 70", 1), encoding="utf-8")
    with pytest.raises(UserError) as caught:
        load_catalog(bad)
    assert caught.value.key == "device[0].tdp_w"


def test_gpus_that_public_traces_name_are_in_the_catalog() -> None:
    """HTA's, TraceLens's and other public traces name these GPUs in deviceProperties."""
    from generator.catalog import lookup_device

    h800 = lookup_device("NVIDIA H800")
    assert h800 is not None and h800.id == "h800-sxm"
    assert h800.peaks_flops_per_s["bf16_tensor"] == 989.5e12  # the H100's dense rate
    assert h800.peaks_flops_per_s["fp64"] == 1.0e12  # cut for export
    d = lookup_device("NVIDIA GeForce RTX 4090 D")
    assert d is not None and d.id == "rtx-4090-d" and d.sm_count == 114
    assert d.peaks_flops_per_s["fp32"] == pytest.approx(2 * 14_592 * 2.52e9, rel=1e-3)
    dgxs = lookup_device("Tesla V100-DGXS-32GB")
    assert dgxs is not None and dgxs.bandwidth_bytes_per_s == 900e9
    assert dgxs.peaks_flops_per_s["fp16_tensor"] == 125e12
