"""Derived CPU datasheet peaks (catalog/cpu_peak.py) and the catalog's CPU entries: the
project's EPYC VM matches the name its runs record and has a derived peak."""

from __future__ import annotations

import pytest

from generator.analysis.roofs import PREFERRED, roof_for
from generator.catalog import device_label, load_catalog, lookup_device
from generator.catalog.cpu_peak import DerivedPeak, combined, derive_cpu_peak, vector_bits
from generator.records.ceilings import MeasuredCeilings

EPYC = "AMD EPYC (2 threads)"
EPYC_FLAGS = {"fma", "avx2", "avx512f", "avx512_bf16"}  # this VM's /proc/cpuinfo, in part


def test_vector_width_comes_from_the_flags() -> None:
    assert vector_bits(EPYC_FLAGS) == 512
    assert vector_bits({"avx2", "fma"}) == 256
    assert vector_bits({"asimd"}) == 128
    assert vector_bits({"sve2", "asimd"}, sve_bits=128) == 128
    with pytest.raises(ValueError, match="pass sve_bits"):
        vector_bits({"sve2"})
    with pytest.raises(ValueError, match="no FMA vector extension"):
        vector_bits({"avx"})  # AVX without FMA


def test_the_epyc_vm_peak() -> None:
    peak = derive_cpu_peak(EPYC_FLAGS, cores=2, fma_units=2, clock_hz=2.596e9)
    assert peak.flops_per_s == pytest.approx(332.288e9)
    assert peak.derivation == (
        "2 cores × 2 FMA units × 16 fp32 lanes × 2 FLOP × 2.596 GHz = 332.3 GFLOP/s"
    )
    fp64 = derive_cpu_peak(EPYC_FLAGS, 2, 2, 2.596e9, precision="fp64")
    assert fp64.flops_per_s == pytest.approx(166.144e9)


def test_the_i9_14900hx_peak_is_its_p_and_e_cores() -> None:
    p_cores = derive_cpu_peak({"avx2", "fma"}, 8, 2, 5.8e9)
    e_cores = derive_cpu_peak({"avx2", "fma"}, 16, 1, 4.1e9)
    assert p_cores.flops_per_s == pytest.approx(1484.8e9)  # the seed report's "~1.5 TFLOP/s"
    both = combined([p_cores, e_cores])
    assert both.flops_per_s == pytest.approx(2534.4e9)
    assert both.derivation == (
        "(8 cores × 2 FMA units × 8 fp32 lanes × 2 FLOP × 5.8 GHz) + "
        "(16 cores × 1 FMA units × 8 fp32 lanes × 2 FLOP × 4.1 GHz) = 2,534.4 GFLOP/s"
    )


def test_grace_derived_from_sve2_matches_nvidias_fp64() -> None:
    superchip = derive_cpu_peak({"sve2"}, 144, 4, 3.1e9, precision="fp64", sve_bits=128)
    assert superchip.flops_per_s == pytest.approx(7.1424e12)
    grace = lookup_device("Grace CPU Superchip")
    assert grace is not None and grace.peak("fp64") == pytest.approx(
        superchip.flops_per_s, rel=0.01
    )
    one_die = derive_cpu_peak({"sve2"}, 72, 4, 3.1e9, sve_bits=128)
    assert one_die.flops_per_s == pytest.approx(7.1424e12)
    assert grace.peak("fp32") == pytest.approx(2 * one_die.flops_per_s, rel=0.01)


@pytest.mark.parametrize(
    ("name", "fp32"),
    [
        (EPYC, derive_cpu_peak(EPYC_FLAGS, 2, 2, 2.596e9)),
        ("i9-14900HX", combined([derive_cpu_peak({"avx2", "fma"}, 8, 2, 5.8e9),
                                 derive_cpu_peak({"avx2", "fma"}, 16, 1, 4.1e9)])),
        ("Intel(R) Xeon(R) CPU @ 2.20GHz (2 threads)",
         derive_cpu_peak({"avx2", "fma"}, 1, 2, 2.2e9)),
    ],
)  # fmt: skip
def test_catalog_cpus_hold_their_derived_peaks(name: str, fp32: DerivedPeak) -> None:
    device = lookup_device(name)
    assert device is not None and device.kind == "cpu"
    assert "fp32" in device.derived and "fp64" in device.derived
    assert device.peak("fp32") == pytest.approx(fp32.flops_per_s, rel=1e-3)
    assert device.peak("fp64") == pytest.approx(fp32.flops_per_s / 2, rel=1e-3)
    derivation = fp32.derivation.rsplit(" = ", 1)[0].strip("()")
    assert derivation.split(") + (")[0] in device.notes
    assert device.source.startswith("https://")


def test_the_report_cpu_matches_the_epyc_entry_and_keeps_its_name() -> None:
    device = lookup_device(EPYC)
    assert device is not None and device.id == "amd-epyc-zen5-vm-2vcpu"
    assert device_label(EPYC) == EPYC  # the runs' label is unchanged
    assert "TSC" in device.notes and "hides the real clock" in device.notes
    assert [d.id for d in load_catalog()].count(device.id) == 1


def test_a_cpu_run_keeps_its_measured_roof_and_falls_back_to_the_derived_peak() -> None:
    measured = MeasuredCeilings(EPYC, {"fp32": 4.9e11}, 1.7e10, 2.1e10, "")
    found = roof_for(EPYC, "fp32", PREFERRED, [measured])
    assert found is not None and found.peak_flops_per_s == 4.9e11 and "measured" in found.label
    # the one memory roof: the best of copy and triad
    assert found.bandwidth_bytes_per_s == 2.1e10
    datasheet = roof_for(EPYC, "fp32", PREFERRED, [])
    assert datasheet is not None and datasheet.peak_flops_per_s == pytest.approx(332.3e9)
    assert datasheet.label == "AMD EPYC (2 threads) fp32 datasheet"
