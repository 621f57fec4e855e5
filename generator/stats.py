"""Order statistics, the median's distribution-free interval, the linear trend and the
binomial proportion's interval (pure Python). A step time and its interval are
`analysis.results.estimate`'s, built on these."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from functools import lru_cache
from typing import Any


def quantile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default, type 7)."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@lru_cache(maxsize=4096)  # exact binomial sums over big integers: ~1.5 ms at n = 1,000
def median_ci_ranks(n: int, confidence: float = 0.95) -> tuple[int, int]:
    """0-based ranks (low, high) of the order statistics that bound the median with at least
    `confidence`: the distribution-free interval, from Binomial(n, 1/2) (the number of samples
    below the true median). Exact up to n = 2000, the normal approximation above; below
    n = 6 no pair reaches 95 % and the interval is the whole range."""
    if n < 1:
        raise ValueError("no samples")
    alpha = (1 - confidence) / 2
    if n > 2000:
        low = max(0, math.floor(n / 2 - 0.5 - _z(confidence) * math.sqrt(n) / 2))
        return low, n - 1 - low
    total, below, low = 2**n, 0, 0
    # grow the tail while P(Bin(n, 1/2) <= low) stays within alpha
    while low < n // 2 and (below + math.comb(n, low)) / total <= alpha:
        below += math.comb(n, low)
        low += 1
    low = max(low - 1, 0) if below else 0
    return low, n - 1 - low


def _z(confidence: float) -> float:
    return statistics.NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def median_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """Distribution-free confidence interval of the median: two order statistics, chosen
    from the binomial distribution (no resampling, so it is exact and costs one sort)."""
    ordered = sorted(values)
    low, high = median_ci_ranks(len(ordered), confidence)
    return ordered[low], ordered[high]


def linear_trend(values: Sequence[float]) -> tuple[float, float]:
    """Least-squares slope of time against iteration index (seconds per iteration) and its
    t statistic (slope / standard error; inf for a perfect line, 0 below 3 points)."""
    n = len(values)
    if n < 2:
        return 0.0, 0.0
    mean_x = (n - 1) / 2
    mean_y = statistics.fmean(values)
    sxx = sum((i - mean_x) ** 2 for i in range(n))
    slope = sum((i - mean_x) * (y - mean_y) for i, y in enumerate(values)) / sxx
    if n < 3:
        return slope, 0.0
    residuals = [y - (mean_y + slope * (i - mean_x)) for i, y in enumerate(values)]
    variance = sum(r * r for r in residuals) / (n - 2)
    if variance == 0:
        return slope, math.inf if slope else 0.0
    return slope, slope / math.sqrt(variance / sxx)


def _at_least(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), summed exactly."""
    return math.fsum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def _bisect(increasing: Any, target: float) -> float:
    """The p in [0, 1] where the increasing function reaches `target`, to 1e-12."""
    low, high = 0.0, 1.0
    while high - low > 1e-12:
        middle = (low + high) / 2
        low, high = (middle, high) if increasing(middle) < target else (low, middle)
    return (low + high) / 2


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a binomial proportion, `k` successes of `n`:
    the p whose upper tail P(X >= k) is alpha/2 (the beta quantile B(alpha/2; k, n - k + 1))
    and whose lower tail P(X <= k) is alpha/2 (B(1 - alpha/2; k + 1, n - k)), each found by
    bisection on the exact binomial sum (no scipy); 0 and 1 at the ends."""
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n >= 1, not k={k}, n={n}")
    alpha = (1 - confidence) / 2
    low = 0.0 if k == 0 else _bisect(lambda p: _at_least(k, n, p), alpha)
    high = 1.0 if k == n else _bisect(lambda p: _at_least(k + 1, n, p), 1 - alpha)
    return low, high
