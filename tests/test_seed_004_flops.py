"""Seed 004's worked roofline example (§2.4.2, Kuo and Gurjar's A100 lab report): its
32,504,064 'FLOPs' count each FFMA once. Its 30,968,064 FFMAs are SimpleMLP's forward
multiply-accumulates at batch 128, so they cannot already be doubled; the rows that divide
by the total (the AI of 13, the 4.5 TFLOP/s) say what it is counted right."""

from __future__ import annotations

import pytest

from generator.analysis.replication import IMPOSSIBLE, Replication, replicate
from generator.catalog import load_catalog
from generator.records.complexity_tables import read_tables
from generator.records.literature import read_literature
from generator.site.analyse import _rows_by
from tests.helpers import REPO

MEASUREMENTS = REPO / "measurements"
# The report's §2.4.2 counter values
FFMA, FADD, FMUL = 30_968_064, 763_904, 772_096


@pytest.fixture(scope="module")
def found() -> dict[str, Replication]:
    catalog = {d.id: d for d in load_catalog()}
    rows = read_literature(MEASUREMENTS, set(catalog))
    tables = read_tables(MEASUREMENTS / "complexity")
    analytic = _rows_by(tables.frames.get("literature.csv"), ("model", "dataset", "batch"))
    return {r.row.id: r for r in replicate(rows, catalog, analytic, {})}


@pytest.fixture(scope="module")
def simple_mlp() -> dict[str, float]:
    tables = read_tables(MEASUREMENTS / "complexity")
    counts = _rows_by(tables.frames.get("literature.csv"), ("model", "dataset", "batch"))
    return counts[("simple_mlp", "mnist", 128)]  # type: ignore[no-any-return]


def test_each_ffma_was_counted_once(
    found: dict[str, Replication], simple_mlp: dict[str, float]
) -> None:
    flops = found["004-ex-flops"]
    assert flops.row.published == FFMA + FADD + FMUL  # the report's own sum
    macs = simple_mlp["forward_macs"]
    assert macs == 30_048_256  # 784·256 + 256·128 + 128·10 per sample, × 128
    # one FFMA per multiply-accumulate (3 % over: the counter counts executed instructions);
    # 'already doubled', they would be 15.5 M, half the multiply-accumulates the GEMMs need
    assert FFMA / macs == pytest.approx(1.031, abs=1e-3)
    assert 0.6 * macs > FFMA / 2
    # against the analytic forward FLOPs: about MACs ÷ FLOPs, as MACs reported as FLOPs
    assert flops.row.derive.kind == "analytic" and flops.row.derive.quantity == "forward_flops"
    assert flops.derived == simple_mlp["forward_flops"] == pytest.approx(60.2e6, rel=1e-3)
    assert flops.ratio == pytest.approx(0.540, abs=1e-3)
    assert macs / simple_mlp["forward_flops"] == pytest.approx(0.499, abs=1e-3)
    assert "FFMA figure already doubled" not in flops.row.note  # the old, wrong reading
    assert "each FFMA counted once" in flops.row.note
    assert flops.status == "open" and "next check" in flops.explanation.lower()


def test_the_rows_built_on_it_state_the_intensity_counted_right(
    found: dict[str, Replication],
) -> None:
    bytes_read = found["004-ex-bytes"].row.published
    intensity = (2 * FFMA + FADD + FMUL) / bytes_read
    assert f"{intensity:.1f}" == "25.6"
    ai = found["004-ex-ai"]
    assert ai.status == "consistent"  # 13 is the report's own quotient, rightly divided
    assert "25.6 FLOP/byte" in ai.row.note
    assert "the intensity is 25.6" in found["004-ex-ai-ridge"].row.note
    rate = found["004-ex-rate"]
    assert rate.status == IMPOSSIBLE  # the summed clock, on the report's own FLOPs
    at_boost = (2 * FFMA + FADD + FMUL) / (72_581 / 1.41e9) / 1e12
    assert f"{at_boost:.2f}" == "1.23" and "at most 1.23 TFLOP/s" in rate.row.note
