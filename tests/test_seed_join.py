"""Seed 000's time-weighted SM % and DRAM %, as its public script joins kernels to times."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from generator.analysis.replication import replicate
from generator.analysis.roofline import kernel_metrics, totals
from generator.analysis.seed_join import seed_joined_pct
from generator.catalog import load_catalog
from generator.ingest import read_ncu_csv
from generator.records.literature import read_literature
from tests.helpers import REPO

CATALOG = {d.id: d for d in load_catalog()}
A1 = "l4-resnet18-train-step-b64"
HEADER = (
    "id,seed,where,quantity,configuration,published,unit,derive,cause,citation,"
    "device,workload,precision,read_from,note\n"
)


@pytest.fixture(scope="module")
def a1() -> pl.DataFrame:
    export = read_ncu_csv(REPO / "measurements" / "imported" / A1 / "ncu.csv")
    return kernel_metrics(export.kernels)


def test_the_join_weights_identical_launches_by_all_their_times() -> None:
    """Two launches of one kernel (same name, block, grid) at 10 % for 1 s and 50 % for 3 s,
    and another kernel at 20 % for 4 s: the script pairs each twin with both times."""
    frame = pl.DataFrame(
        {
            "kernel_name": ["k", "k", "other"],
            "block_size": ["(8, 8, 1)"] * 3,
            "grid_size": ["(2, 1, 1)"] * 3,
            "dram_pct": [10.0, 50.0, 20.0],
            "time_s": [1.0, 3.0, 4.0],
        }
    )
    own = (10 * 1 + 50 * 3 + 20 * 4) / 8  # each launch by its own time: 30 %
    joined = ((10 + 50) * (1 + 3) + 20 * 4) / (2 * (1 + 3) + 4)  # 26.67 %
    assert seed_joined_pct(frame, "dram_pct") == pytest.approx(joined)
    other_grid = frame.with_columns(grid_size=pl.Series(["(2, 1, 1)", "(4, 1, 1)", "(2, 1, 1)"]))
    assert seed_joined_pct(other_grid, "dram_pct") == pytest.approx(own)  # no twins
    assert seed_joined_pct(frame.drop("kernel_name", "block_size", "grid_size"), "dram_pct") is None


def test_the_join_reproduces_the_published_a1_percentages_exactly(a1: pl.DataFrame) -> None:
    """The report's §IV.ii table 2 prints 13.647 % and 23.164 % for A-1: its own script on its
    own export; each of the 98 launches weighted once by its own time gives 13.70 and 32.14."""
    assert round(seed_joined_pct(a1, "sm_pct") or 0.0, 3) == 13.647
    assert round(seed_joined_pct(a1, "dram_pct") or 0.0, 3) == 23.164
    step = totals(a1)
    assert step.seed_joined == {
        "sm_pct": pytest.approx(13.647, abs=5e-4),
        "dram_pct": pytest.approx(23.164, abs=5e-4),
    }
    assert step.sm_pct == pytest.approx(13.705, abs=1e-3)
    assert step.dram_pct == pytest.approx(32.140, abs=1e-3)


def test_the_a1_rows_name_the_join_as_the_seeds_error(a1: pl.DataFrame) -> None:
    rows = read_literature(REPO / "measurements", set(CATALOG))
    mine = [r for r in rows if r.id in ("000-a1-sm", "000-a1-drampct")]
    got = {r.row.id: r for r in replicate(mine, CATALOG, {}, {A1: totals(a1)})}
    dram, sm = got["000-a1-drampct"], got["000-a1-sm"]
    assert dram.row.cause == sm.row.cause == "aggregation_join"
    assert dram.status == sm.status == "consistent"
    assert dram.derived == pytest.approx(23.164, abs=5e-4)
    assert "Each launch weighted once by its own time gives 32.14 %" in dram.explanation
    assert "×0.7207 of it" in dram.explanation


def test_a_join_that_does_not_give_the_published_value_fails(
    a1: pl.DataFrame, tmp_path: Path
) -> None:
    (tmp_path / "literature").mkdir()
    (tmp_path / "literature" / "seeds.csv").write_text(
        HEADER + f"d,000,T,DRAM %,A-1,32.14,%,imported:{A1}:dram_pct_seed_matching,"
        "aggregation_join,c,,,,,\n",
        encoding="utf-8",
    )
    (row,) = replicate(read_literature(tmp_path, set(CATALOG)), CATALOG, {}, {A1: totals(a1)})
    assert row.status == "not consistent"
