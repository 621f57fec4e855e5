"""Seed 000's time-weighted SM % and DRAM %, as its public script computes them.

The script (roofline/parse_ncu_csv.py of taytwkim/nn-perf, read for this module, not copied)
takes the rows of one percentage and the rows of gpu__time_duration from the long ncu export
and merges them on the columns that describe a kernel: name, context, stream, block, grid,
device and CC, not the launch ID. Identical launches (the same kernel with the same shapes)
are therefore paired with every one of their twins' times: a group of n launches with values
m_i and times t_j adds (sum m_i)(sum t_j) to the numerator and n (sum t_j) to the
denominator, where each launch weighted by its own time would add sum m_i t_i and sum t_i.
Applied to the export of the report's experiment A-1 this gives its published 13.647 % and
23.164 % exactly, where each launch weighted once by its own time gives 13.70 % and 32.14 %.
"""

from __future__ import annotations

import polars as pl

# the kernel-table columns the script joins on (its "Kernel Name", "Context", "Stream",
# "Block Size", "Grid Size", "Device", "CC"); it uses those an export has
SEED_JOIN_KEYS = ("kernel_name", "context", "stream", "block_size", "grid_size", "device", "cc")
# the quantities computed this way, and the kernel column each averages
SEED_JOINED = {"sm_pct": "sm_pct", "dram_pct": "dram_pct"}


def seed_joined_pct(metrics: pl.DataFrame, column: str) -> float | None:
    """The time-weighted mean of `column` over the kernels of `metrics` (a frame of
    `roofline.kernel_metrics`) with the report's join; None where no kernel has both."""
    keys = [k for k in SEED_JOIN_KEYS if k in metrics.columns]
    if not keys or column not in metrics.columns or "time_s" not in metrics.columns:
        return None
    values = (
        metrics.filter(pl.col(column).is_not_null())
        .group_by(keys)
        .agg(pl.col(column).sum().alias("value_sum"), pl.len().alias("launches"))
    )
    times = (
        metrics.filter(pl.col("time_s") > 0)
        .group_by(keys)
        .agg(pl.col("time_s").sum().alias("time_sum"))
    )
    # pandas' merge, which the script uses, pairs missing keys with each other
    pairs = values.join(times, on=keys, how="inner", nulls_equal=True)
    weight = float((pairs["launches"] * pairs["time_sum"]).sum())
    if pairs.height == 0 or weight <= 0:
        return None
    return float((pairs["value_sum"] * pairs["time_sum"]).sum()) / weight


def seed_joined(metrics: pl.DataFrame) -> dict[str, float]:
    """Each of SEED_JOINED that the kernels allow."""
    found = {name: seed_joined_pct(metrics, column) for name, column in SEED_JOINED.items()}
    return {name: value for name, value in found.items() if value is not None}
