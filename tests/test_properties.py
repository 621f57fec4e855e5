"""Property tests (hypothesis) for the ingest and roofline math."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.analysis.roofline import kernel_metrics, totals
from generator.catalog import find_device
from generator.findings import above_roof
from generator.ingest import read_ncu_csv
from generator.ingest.units import parse_unit
from tests.helpers import datasheet_bound, fp32_kernel, write_long

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PREFIXES = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}

# Integer counts keep every sum exact in float64 (all values stay far below 2**53).
kernel_values = st.tuples(
    st.integers(0, 10**9),  # fadd
    st.integers(0, 10**9),  # fmul
    st.integers(0, 10**9),  # ffma
    st.integers(0, 10**10),  # DRAM read bytes
    st.integers(1, 10**8),  # time in ns
)


def export_of(kernels: list[tuple[int, int, int, int, int]], order: list[int]) -> Path:
    rows = []
    for index, (fadd, fmul, ffma, dram, time) in enumerate(kernels):
        rows.extend(
            fp32_kernel(
                index,
                fadd=str(fadd),
                fmul=str(fmul),
                ffma=str(ffma),
                dram_read=("byte", str(dram)),
                time=("nsecond", str(time)),
            )
        )
    shuffled = [rows[i] for i in order] if order else rows
    folder = Path(tempfile.mkdtemp(prefix="ra-prop-"))
    return write_long(folder / "export.csv", shuffled)


def step_of(path: Path) -> tuple[float | None, float | None, float | None]:
    total = totals(kernel_metrics(read_ncu_csv(path).kernels))
    return total.flops, total.dram_bytes, total.time_s


@SETTINGS
@given(st.integers(0, 10**6), st.sampled_from(sorted(PREFIXES)))
def test_unit_scaling_is_exact(value: int, prefix: str) -> None:
    unit = parse_unit(f"{prefix}byte")
    assert unit is not None and unit.base == "byte"
    assert value * unit.factor == value * PREFIXES[prefix]
    # the same quantity written in two units reads the same
    coarse = fp32_kernel(0, dram_read=(f"{prefix}byte", str(value)))
    fine = fp32_kernel(0, dram_read=("byte", str(value * PREFIXES[prefix])))
    folder = Path(tempfile.mkdtemp(prefix="ra-unit-"))
    a = read_ncu_csv(write_long(folder / "a.csv", coarse)).kernels["dram_read_bytes"][0]
    b = read_ncu_csv(write_long(folder / "b.csv", fine)).kernels["dram_read_bytes"][0]
    assert a == b == value * PREFIXES[prefix]


@SETTINGS
@given(st.lists(kernel_values, min_size=1, max_size=8), st.randoms(use_true_random=False))
def test_permuting_rows_changes_nothing(kernels: list, rng) -> None:  # type: ignore[no-untyped-def]
    rows = len(kernels) * 6
    order = list(range(rows))
    rng.shuffle(order)
    assert step_of(export_of(kernels, order)) == step_of(export_of(kernels, []))


@SETTINGS
@given(st.lists(kernel_values, min_size=2, max_size=8), st.data())
def test_splitting_a_file_sums_to_the_same_step(kernels: list, data) -> None:  # type: ignore[no-untyped-def]
    cut = data.draw(st.integers(1, len(kernels) - 1))
    whole = step_of(export_of(kernels, []))
    first = step_of(export_of(kernels[:cut], []))
    second = step_of(export_of(kernels[cut:], []))
    flops, dram, time = (a + b for a, b in zip(first, second, strict=True))  # type: ignore[operator]
    assert (whole[0], whole[1]) == (flops, dram)  # integer counts: exact
    # ns -> s multiplies by 1e-9, which is inexact in binary: equal to the last bits only
    assert whole[2] == pytest.approx(time, rel=1e-12)


@SETTINGS
@given(
    st.integers(10**6, 10**12),  # fp32 FLOPs (as fma: 2 per instruction)
    st.integers(10**3, 10**10),  # DRAM bytes
    st.floats(1.0, 100.0),  # how much slower than the roof the kernel runs
)
def test_consistent_data_stays_under_the_roof(flops: int, dram: int, slack: float) -> None:
    device = find_device("l4")
    peak = device.peak("fp32")
    assert peak is not None
    fastest = max(flops / peak, dram / device.bandwidth_bytes_per_s)
    time_ns = max(1, int(fastest * slack * 1e9) + 1)
    rows = fp32_kernel(
        0, ffma=str(flops // 2), dram_read=("byte", str(dram)), time=("nsecond", str(time_ns))
    )
    folder = Path(tempfile.mkdtemp(prefix="ra-roof-"))
    metrics = kernel_metrics(read_ncu_csv(write_long(folder / "k.csv", rows)).kernels)
    total = totals(metrics)
    bound = datasheet_bound(total, device)
    assert bound is not None and bound.efficiency <= 1.0
    assert above_roof(metrics, device, bound) == []
