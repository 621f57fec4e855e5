"""Measured latency by layer family (seed 003's Figures 8 and 9) from a run's layers.csv."""

from __future__ import annotations

import polars as pl
import pytest

from generator.analysis.layer_families import family_latency, family_table


def _layers(rows: list[tuple[str, str, str, float | None]]) -> pl.DataFrame:
    return pl.DataFrame(
        rows, schema=["layer", "family", "phase", "time_s"], orient="row"
    ).with_columns(pl.col("time_s").cast(pl.Float64))


def test_times_summed_per_family_with_their_shares() -> None:
    layers = _layers(
        [
            ("features.0", "conv", "forward", 3e-3),
            ("features.3", "conv", "forward", 1e-3),
            ("classifier.1", "linear", "forward", 1e-3),
            ("features.1", "activation", "forward", None),  # not timed: left out
        ]
    )
    latency = family_latency("H100, inference, batch 1", layers)
    assert latency is not None
    assert latency.times == pytest.approx({"conv": 4e-3, "linear": 1e-3})
    assert latency.cell("conv") == "80 % (4 ms)"
    assert latency.cell("norm") == "–"


def test_the_table_puts_the_largest_share_first_and_a_cell_per_run() -> None:
    cpu = family_latency(
        "CPU", _layers([("a", "conv", "forward", 1.0), ("b", "linear", "forward", 3.0)])
    )
    gpu = family_latency(
        "GPU", _layers([("a", "conv", "forward", 3.0), ("b", "pool", "forward", 1.0)])
    )
    assert cpu is not None and gpu is not None
    table = family_table([cpu, gpu])
    assert [row[0] for row in table] == ["conv", "linear", "pool"]  # 75 %, 75 %, 25 %
    assert table[1] == ["linear", "75 % (3 s)", "–"]


def test_no_timed_layer_is_no_latency() -> None:
    assert family_latency("x", _layers([("a", "conv", "forward", None)])) is None
    assert family_latency("x", pl.DataFrame()) is None
