"""A seeded percentile bootstrap of Spearman's ρ over a handful of points (does latency follow
FLOPs). (A ratio of two step times is no bootstrap: it is the results' one ratio interval,
`analysis.interval.Interval.ratio`.)

It runs in Polars, every resample at once (one sample of indices, one grouped aggregation),
so thousands of resamples cost milliseconds and the site needs no numpy. The seed is fixed:
the same data give the same interval, so the page is deterministic."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from generator.memo import remembered

RESAMPLES = 2000
SEED = 17  # issue 17: the seeds' analyses
MIN_POINTS = 3  # Spearman over fewer distinct points says nothing
# Below five points a resample with three distinct ones is mostly a reordering of the data
# (three points: always the same ρ), so the percentiles would look certain: no interval.
MIN_INTERVAL_POINTS = 5


@dataclass(frozen=True)
class Interval:
    """A statistic on the data and its percentile bootstrap 95 % interval, with how many
    resamples were usable (a resample whose statistic is undefined is skipped)."""

    value: float
    low: float
    high: float
    used: int
    resamples: int

    def excludes(self, value: float) -> bool:
        """True when the interval lies wholly on one side of `value` (0 for ρ, 1 for a
        ratio): only then does the sign or the direction hold."""
        return self.low > value or self.high < value


def _percentiles(values: pl.Series) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles, linear interpolation (numpy's default)."""
    low = values.quantile(0.025, interpolation="linear")
    high = values.quantile(0.975, interpolation="linear")
    assert low is not None and high is not None
    return float(low), float(high)


def spearman(
    x: Sequence[float],
    y: Sequence[float],
    seed: int = SEED,
    resamples: int = RESAMPLES,
) -> Interval | None:
    """Spearman's ρ of y against x (Polars, average ranks for ties) and its bootstrap
    interval, resampling the points (pairs) with replacement. A resample with fewer than
    three distinct points, or with constant ranks on either side (ρ undefined), is skipped;
    `used` says how many remained (0, and no interval, below MIN_INTERVAL_POINTS points).
    None when ρ itself is undefined or the points are fewer than three. Kept between builds
    (generator/memo): one run added changes the points of one set or two of the twenty at
    1,000 runs, and the twenty cost 0.11 s."""
    return remembered("spearman", _spearman, list(x), list(y), seed, resamples)


def _spearman(x: list[float], y: list[float], seed: int, resamples: int) -> Interval | None:
    n = len(x)
    if n != len(y):
        raise ValueError(f"{n} x values but {len(y)} y values")
    points = pl.DataFrame({"x": x, "y": y}, schema={"x": pl.Float64, "y": pl.Float64})
    value = points.select(pl.corr("x", "y", method="spearman")).item()
    if n < MIN_POINTS or value is None or math.isnan(value):
        return None
    if n < MIN_INTERVAL_POINTS:
        return Interval(float(value), math.nan, math.nan, 0, 0)
    index = pl.Series("point", range(n), dtype=pl.UInt32).sample(
        n * resamples, with_replacement=True, seed=seed
    )
    rho = (
        points.select(pl.all().gather(index))
        .with_columns(point=index, resample=pl.int_range(n * resamples) // n)
        .group_by("resample")
        .agg(
            rho=pl.corr("x", "y", method="spearman"),
            distinct=pl.col("point").n_unique(),
        )
        .filter(
            (pl.col("distinct") >= MIN_POINTS)
            & pl.col("rho").is_not_null()
            & pl.col("rho").is_not_nan()
        )["rho"]
    )
    if rho.is_empty():
        return Interval(float(value), math.nan, math.nan, 0, resamples)
    low, high = _percentiles(rho)
    return Interval(float(value), low, high, rho.len(), resamples)
