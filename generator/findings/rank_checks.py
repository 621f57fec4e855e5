"""The checks of a multi-rank capture: a rank that is consistently the straggler,
communication that no compute hides, and each rank that could not be used."""

from __future__ import annotations

import statistics
from collections import Counter

import polars as pl

from generator.analysis.multirank import MultiRank
from generator.analysis.thresholds import (
    EXPOSED_COMMUNICATION_SHARE,
    STRAGGLER_LAG_SHARE,
    STRAGGLER_STEP_SHARE,
)
from generator.findings.specs import EXPOSED_COMMUNICATION, RANK_PROBLEM, STRAGGLER_RANK
from generator.formatting import percent, seconds
from generator.records.finding import Finding


def straggler(capture: MultiRank) -> list[Finding]:
    """One rank computing longest in most steps, by a clear margin over the others."""
    lags = capture.stragglers.drop_nulls("lag_share")
    steps = capture.stragglers.height
    if steps < 2 or len(capture.ranks) < 2 or lags.is_empty():
        return []
    rank, slow_steps = Counter(lags["straggler_rank"].to_list()).most_common(1)[0]
    own = lags.filter(pl.col("straggler_rank") == rank)
    lag = statistics.median(own["lag_share"].to_list())
    if slow_steps < max(2, STRAGGLER_STEP_SHARE * steps) or lag < STRAGGLER_LAG_SHARE:
        return []
    waits = capture.steps.filter(pl.col("rank") != rank)
    waited = float(waits["exposed_communication_s"].sum()) / float(waits["step_s"].sum())
    return [
        STRAGGLER_RANK.found(
            f"Rank {rank} is the straggler: it computes longest in {slow_steps} of {steps} steps",
            f"rank {rank} computes {seconds(float(own['compute_s'].median()))} a step, "  # type: ignore[arg-type]
            f"{percent(100 * lag)} more than the median of the other ranks "
            f"({seconds(float(own['others_compute_s'].median()))}); the other ranks spend "  # type: ignore[arg-type]
            f"{percent(100 * waited)} of their step time in communication that no compute "
            "hides, most of it waiting for it",
            f"look at what rank {rank} does that the others do not (its data, its share of "
            "the model, extra work in its loop, a slower device or host); balancing it "
            "shortens every rank's step",
        )
    ]


def exposed_communication(capture: MultiRank) -> list[Finding]:
    steps = capture.steps
    total = float(steps["step_s"].sum())
    exposed = float(steps["exposed_communication_s"].sum())
    if total <= 0 or exposed / total < EXPOSED_COMMUNICATION_SHARE:
        return []
    per_rank = (
        steps.group_by("rank")
        .agg(pl.col("exposed_communication_s").sum() / pl.col("step_s").sum())
        .sort("rank")
    )
    shares = ", ".join(f"rank {r} {percent(100 * s)}" for r, s in per_rank.iter_rows())
    return [
        EXPOSED_COMMUNICATION.found(
            f"{percent(100 * exposed / total)} of the ranks' step time is communication "
            "that no compute hides",
            f"exposed communication (communication − its overlap with compute) per rank: {shares}",
        )
    ]


def rank_problems(capture: MultiRank) -> list[Finding]:
    return [
        RANK_PROBLEM.found(
            f"A rank of the capture could not be used as it is: {problem.file or 'the capture'}",
            problem.what,
            problem.fix or "",
        )
        for problem in capture.problems
    ]


def rank_findings(capture: MultiRank) -> list[Finding]:
    return [*rank_problems(capture), *straggler(capture), *exposed_communication(capture)]
