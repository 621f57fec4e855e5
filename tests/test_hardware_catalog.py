"""The catalog's board facts beside its peaks (seed 004's A100 80GB PCIe: memory type, SMs,
FP32 cores per SM and the FP32 peak they multiply out to, the non-tensor BF16 and INT4
rates), and how the Hardware page shows them."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.catalog import find_device, load_catalog
from generator.catalog.derivation import fp32_derivation
from generator.errors import UserError
from generator.pages.hardware import hardware_page

CATALOG_TEXT = (Path(__file__).parents[1] / "generator/catalog/hardware.toml").read_text(
    encoding="utf-8"
)


def test_the_a100_80gb_pcie_states_its_memory_type_and_its_other_precisions() -> None:
    a100 = find_device("a100-80gb-pcie")
    assert a100.memory_type == "HBM2e"
    assert find_device("a100-40gb-sxm").memory_type == "HBM2"
    assert a100.peak("bf16") == 39e12  # CUDA-core BF16: twice FP32
    assert a100.peak("int4_tensor") == 1248e12  # dense; 2,496 with sparsity
    # the peaks the catalog had before stay as they were
    before = {"fp64": 9.7, "fp64_tensor": 19.5, "fp32": 19.5, "fp16": 78.0, "tf32_tensor": 156.0,
              "fp16_tensor": 312.0, "bf16_tensor": 312.0, "int8_tensor": 624.0}  # fmt: skip
    for key, tflops in before.items():
        assert a100.peak(key) == tflops * 1e12, key
    assert "memory_type" not in CATALOG_TEXT.split('id = "l4"')[1].split("[[device]]")[0]
    assert find_device("l4").memory_type == ""  # where the catalog states none


def test_the_fp32_peak_multiplies_out_from_sms_cores_and_the_boost_clock() -> None:
    a100 = find_device("a100-80gb-pcie")
    assert (a100.sm_count, a100.fp32_cores_per_sm, a100.boost_clock_hz) == (108, 64, 1.41e9)
    derivation = fp32_derivation(a100)
    assert derivation is not None and derivation.cores == 6912
    # 2 FLOP per FMA x 6,912 cores x 1.41 GHz, computed here, not read from the code
    assert derivation.flops_per_s == 2 * 108 * 64 * 1.41e9 == pytest.approx(19.49184e12)
    assert round(derivation.flops_per_s / 1e12, 1) == a100.peak("fp32") / 1e12 == 19.5
    assert derivation.sentence() == (
        "FP32 peak = 2 FLOP (one FMA) × 6,912 FP32 cores (108 SMs × 64) × 1.41 GHz boost "
        "= 19.5 TFLOP/s (19.49 unrounded)"
    )
    stated = [d for d in load_catalog() if d.fp32_cores_per_sm]
    assert len(stated) >= 4
    for device in stated:  # every stated derivation reproduces its datasheet peak
        found = fp32_derivation(device)
        assert found is not None
        assert found.flops_per_s == pytest.approx(device.peak("fp32"), rel=0.01), device.id
    assert fp32_derivation(find_device("l4")) is None


def test_the_hardware_page_shows_memory_type_rates_and_derivation() -> None:
    page = hardware_page(load_catalog())
    rows = page.markdown.split("<tr><td><code>a100-80gb-pcie</code></td>")[1].split("</tr>")[0]
    assert "<td>HBM2e</td>" in rows
    assert "<td>39</td>" in rows and "<td>1248</td>" in rows
    assert "<th>BF16</th>" in page.markdown and "<th>INT4 tensor (TOPS)</th>" in page.markdown
    assert "<th>memory type</th>" in page.markdown
    notes = next(
        line for line in page.markdown.splitlines()
        if line.startswith("- **NVIDIA A100 80GB PCIe**")
    )  # fmt: skip
    assert "2 FLOP (one FMA) × 6,912 FP32 cores (108 SMs × 64) × 1.41 GHz boost" in notes
    frame = page.tables["catalog"]
    row = frame.filter(frame["id"] == "a100-80gb-pcie").row(0, named=True)
    assert row["memory_type"] == "HBM2e" and row["fp32_cores_per_sm"] == 64
    assert row["peak_int4_tensor_flops_per_s"] == 1248e12


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ('memory_type = "HBM2"\n', "memory_type = 2\n", "memory_type"),
        ('memory_type = "HBM2"\n', 'memory_type = " "\n', "memory_type"),
        ("fp32_cores_per_sm = 64\n", "fp32_cores_per_sm = 0\n", "fp32_cores_per_sm"),
        ("fp32_cores_per_sm = 64\n", "fp32_cores_per_sm = 64.5\n", "fp32_cores_per_sm"),
    ],
)
def test_a_bad_board_fact_names_its_key(tmp_path: Path, old: str, new: str, key: str) -> None:
    bad = tmp_path / "hardware.toml"
    bad.write_text(CATALOG_TEXT.replace(old, new, 1), encoding="utf-8")
    index = CATALOG_TEXT.split(old, 1)[0].count("[[device]]") - 1
    with pytest.raises(UserError) as caught:
        load_catalog(bad)
    assert caught.value.key == f"device[{index}].{key}"
    assert caught.value.fix
