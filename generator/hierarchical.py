"""Intervals that include the noise between processes, not only between iterations.

A configuration is timed in blocks: each block is a fresh worker process with its own warm-up
and `n` timed steps (measure.blocks). Two levels of noise then show up separately: the
iterations of one block scatter around that block's level (within-block variance), and the
blocks' levels scatter around the configuration's long-run level (between-block variance:
memory layout, allocator and thread-pool state, clocks, neighbours on the host). An interval
from pooled iterations sees only the first; over a few hundred iterations it shrinks to ±1 %
while two processes an hour apart differ by 20 % (Georges et al., OOPSLA 2007; Kalibera and
Jones, ISMM 2013).

The estimate here is the (geometric) mean of the block medians (a median per block keeps a stray slow
step from moving a block), and its interval is the random-effects one: the block medians are
m independent draws, so a t interval over them (m - 1 degrees of freedom) holds whatever the
split of variance between the levels. The interval the report states is the wider
*re-measurement* interval, the 95 % prediction interval for the estimate of another
invocation of the same design: the one a reader who measures again should land in. A third
level, what changes between invocations hours apart beyond what one invocation's spread of
blocks already samples, enters as `session_cv` when it is known (records.calibration).

Pure Python: the report recomputes every interval from steps.csv with these functions."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

CONFIDENCE = 0.95
METHOD = "blocks: t interval over block medians (random effects)"


# Two-sided 95 % Student-t critical values for 1..10 degrees of freedom (printed tables);
# beyond, Hill's expansion is within 1e-4 of them.
_T95 = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281)


def t_quantile(df: int, confidence: float = CONFIDENCE) -> float:
    """Two-sided Student-t critical value with `df` degrees of freedom: the printed table up
    to 10 at 95 %, else Hill's (1970, algorithm 396) expansion around the normal quantile."""
    if df < 1:
        raise ValueError("a t interval needs at least two blocks")
    if confidence == CONFIDENCE and df <= len(_T95):
        return _T95[df - 1]
    p = 1 - (1 - confidence) / 2
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        q = 2 * p - 1
        return q * math.sqrt(2 / (1 - q * q))
    z = statistics.NormalDist().inv_cdf(p)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


@dataclass(frozen=True)
class Levels:
    """How a run timed in blocks varies at each level: what its pages show beside the
    interval (`BlockEstimate.levels`), computed from steps.csv with the interval."""

    blocks: int
    samples: int
    iterations_per_block: float  # mean timed steps per block
    block_median_cv: float  # sd of the block medians' logarithms: what the intervals rest on
    within_block_cv: float  # steps around their block's level (pooled, ANOVA)
    between_block_cv: float  # the blocks' true levels around the long-run one (>= 0, ANOVA)


@dataclass(frozen=True)
class BlockEstimate:
    """A configuration's step time from its blocks, with the variation at each level.

    Step times vary by multiples (a slower clock slows every step by a factor), so the
    arithmetic is on logarithms: the estimate is the geometric mean of the block medians,
    intervals are factors around it (never below zero, whatever the spread), and the level
    variations are coefficients of variation (sd of the logarithms)."""

    estimate_s: float  # geometric mean of the block medians
    ci95_s: tuple[float, float]  # where the long-run level is (confidence interval)
    remeasure95_s: tuple[float, float]  # where another invocation's estimate falls
    blocks: int
    samples: int
    iterations_per_block: float  # mean timed steps per block
    block_median_cv: float  # sd of the block medians' logarithms: what the intervals rest on
    within_block_cv: float  # steps around their block's level (pooled, ANOVA)
    between_block_cv: float  # the blocks' true levels around the long-run one (>= 0, ANOVA)
    session_cv: float  # the third level used in the re-measurement interval (0: none known)

    @property
    def levels(self) -> Levels:
        """The level variations alone."""
        return Levels(self.blocks, self.samples, self.iterations_per_block,
                      self.block_median_cv, self.within_block_cv, self.between_block_cv)  # fmt: skip


def block_estimate(
    blocks: Sequence[Sequence[float]], session_cv: float = 0.0, other_blocks: int | None = None
) -> BlockEstimate:
    """The estimate and both intervals from the step times of each block (at least two
    blocks with at least one positive step each). `other_blocks`: the size of the
    re-measurement the prediction interval is for (default: as many blocks as this one)."""
    kept = [[math.log(x) for x in block if x > 0] for block in blocks]
    kept = [block for block in kept if block]
    m = len(kept)
    if m < 2:
        raise ValueError("a between-block interval needs at least two blocks")
    medians = [statistics.median(block) for block in kept]
    centre = statistics.fmean(medians)
    sd = statistics.stdev(medians)
    t = t_quantile(m - 1)
    half = t * sd / math.sqrt(m)
    other = other_blocks or m
    design = sd**2 * (1 / m + 1 / other)  # estimated from m blocks: m - 1 degrees of freedom
    variance = design + 2 * session_cv**2  # the session level taken as known
    # Welch-Satterthwaite: the t of the share that is estimated (m - 1 df alone, no session)
    df = int(min(1000.0, variance**2 / (design**2 / (m - 1)))) if design > 0 else 1000
    predict = t_quantile(max(m - 1, df)) * math.sqrt(variance)
    within, between = level_variances(kept)
    return BlockEstimate(
        estimate_s=math.exp(centre),
        ci95_s=(math.exp(centre - half), math.exp(centre + half)),
        remeasure95_s=(math.exp(centre - predict), math.exp(centre + predict)),
        blocks=m,
        samples=sum(len(block) for block in kept),
        iterations_per_block=statistics.fmean(len(block) for block in kept),
        block_median_cv=sd,
        within_block_cv=math.sqrt(within),
        between_block_cv=math.sqrt(between),
        session_cv=session_cv,
    )


def level_variances(blocks: Sequence[Sequence[float]]) -> tuple[float, float]:
    """(within, between) variance components by one-way ANOVA (method of moments): within is
    the pooled variance of steps around their block mean, between is what the spread of the
    block means has beyond within / n (floored at 0)."""
    sizes = [len(block) for block in blocks]
    means = [statistics.fmean(block) for block in blocks]
    df_within = sum(n - 1 for n in sizes)
    squares = sum(
        sum((x - mean) ** 2 for x in block) for block, mean in zip(blocks, means, strict=True)
    )
    within = squares / df_within if df_within > 0 else 0.0
    if len(blocks) < 2:
        return within, 0.0
    # the effective block size of an unbalanced design: n0 = (N - sum n^2 / N) / (m - 1)
    total = sum(sizes)
    n0 = (total - sum(n * n for n in sizes) / total) / (len(blocks) - 1)
    grand = sum(n * mean for n, mean in zip(sizes, means, strict=True)) / total
    mean_square_between = sum(
        n * (mean - grand) ** 2 for n, mean in zip(sizes, means, strict=True)
    ) / (len(blocks) - 1)
    return within, max(0.0, (mean_square_between - within) / n0) if n0 > 0 else 0.0


def optimal_iterations(
    within_cv: float, between_cv: float, block_cost_s: float, step_s: float,
    low: int, high: int,
) -> int:  # fmt: skip
    """Kalibera and Jones's rule for two levels: the timed steps per block that minimise the
    time to a given precision, sqrt((cost of a block / cost of a step) x (within / between
    variance)), kept within [low, high] (no between-block variation seen: as many as
    allowed)."""
    if between_cv <= 0 or step_s <= 0:
        return high
    best = math.sqrt((block_cost_s / step_s) * (within_cv / between_cv) ** 2)
    return max(low, min(high, math.ceil(best)))


def blocks_needed(estimate: BlockEstimate, target: float, cap: int) -> int:
    """The fewest blocks whose re-measurement interval (the one the report states, with the
    estimate's `session_cv`) would be within ±target of the estimate at the block-median
    spread seen so far (at most `cap`; the cap too where the session level alone is wider).
    t with m - 1 degrees of freedom: exact without a session level, wider with one."""
    sd, session = estimate.block_median_cv, estimate.session_cv
    for m in range(max(2, estimate.blocks), cap + 1):
        spread = math.sqrt(sd**2 * 2 / m + 2 * session**2)
        if math.expm1(t_quantile(m - 1) * spread) <= target:
            return m
    return cap


@dataclass(frozen=True)
class SessionCheck:
    """One re-measurement of a committed estimate in a later invocation: the two estimates
    and the spread of block medians (sd of their logarithms) and blocks each rests on."""

    committed_s: float
    committed_cv: float
    committed_blocks: int
    again_s: float
    again_cv: float
    again_blocks: int


def session_cv(checks: Sequence[SessionCheck]) -> float:
    """The third level: how far one invocation's level moves from another's beyond what
    their blocks already show (the machine an hour later: clocks, neighbours, the host).

    The log ratio r of a re-measured estimate to the committed one has variance
    v = committed_cv^2 / m1 + again_cv^2 / m2 (each design's own) plus 2 session^2 (each
    invocation its own draw). The checks' own variances differ by 100x (a contended
    SimpleMLP run against a quiet ResNet-18), so they are weighed by them: Paule and
    Mandel's (1982) estimator, the session^2 at which sum r^2 / (v + 2 session^2) equals
    the number of checks (their standardised ratios then have unit variance), floored at
    zero. In unweighted moments the wide checks outweigh the shifts of the precise ones:
    the compiled checks of 2026-11-27 gave 0 by moments, 0.034 by this. The expected ratio
    is held at 1, not estimated: a shift common to every check is between-invocation
    variation too, as far as a reader who measures again is concerned."""
    if not checks:
        return 0.0
    ratios = [math.log(c.again_s / c.committed_s) ** 2 for c in checks]
    own = [c.committed_cv**2 / c.committed_blocks + c.again_cv**2 / c.again_blocks for c in checks]

    def excess(variance: float) -> float:  # decreasing in variance; its root is the estimate
        return sum(
            r / (v + 2 * variance) if v + 2 * variance > 0 else (math.inf if r > 0 else 0.0)
            for r, v in zip(ratios, own, strict=True)
        ) - len(checks)

    if excess(0.0) <= 0:
        return 0.0
    low, high = 0.0, sum(ratios) / (2 * len(checks))  # at high, each term is at most r / mean r
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if excess(middle) > 0 else (low, middle)
    return math.sqrt(high)
