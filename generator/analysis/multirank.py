"""A multi-rank capture: each rank's trace read and analysed alone, one at a time (a rank's
events are dropped before the next is read, so a capture of many large ranks needs the
memory of its largest rank, not of all), then the ranks compared step by step.

Per rank and step: the time split (`rank_timeline`) and the step's work on the roof
(`trace_analysis`: analytic FLOPs and bytes from the shapes). Across ranks, per step
present on every rank: the straggler, the rank that computed longest, and its lag over the
median of the other ranks. Under synchronous data parallelism every rank's step lasts about as long as the
slowest one's (the others wait in the collective), so step time alone hides a straggler;
compute time shows it, and the wait shows as the other ranks' communication.

A rank that cannot be read, has no rank number, repeats another's or lacks steps the others
have is a problem of that file; it never stops the other ranks being read and shown.
"""

from __future__ import annotations

import gc
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from generator.analysis.rank_timeline import rank_timeline
from generator.analysis.roofs import Roof
from generator.analysis.trace_analysis import analyze_raw
from generator.analysis.trace_roofline import with_bounds
from generator.errors import UserError
from generator.ingest.trace.ranks import RANK_FIX, rank_files, rank_of, world_size_of
from generator.ingest.trace.read import read_trace
from generator.records.ceilings import MeasuredCeilings

# What each rank's steps keep of its roofline (trace_roofline.group_points' columns).
ROOF_COLUMNS = (
    "flops",
    "bytes",
    "counted_time_s",
    "arithmetic_intensity",
    "attained_flops_per_s",
    "path",
    "roof_flops_per_s",
    "bound",
    "efficiency",
)
ROOF_ONLY = ("roof_flops_per_s", "bound", "efficiency")  # what `with_bounds` adds
STEP_SCHEMA = {
    "rank": pl.Int64,
    "step": pl.String,
    "start_s": pl.Float64,
    "step_s": pl.Float64,
    "compute_s": pl.Float64,
    "communication_s": pl.Float64,
    "overlap_s": pl.Float64,
    "idle_s": pl.Float64,
    "exposed_communication_s": pl.Float64,
    "flops": pl.Float64,
    "bytes": pl.Float64,
    "counted_time_s": pl.Float64,
    "arithmetic_intensity": pl.Float64,
    "attained_flops_per_s": pl.Float64,
    "step_flops_per_s": pl.Float64,
    "path": pl.String,
    "roof_flops_per_s": pl.Float64,
    "bound": pl.String,
    "efficiency": pl.Float64,
}
STRAGGLER_SCHEMA = {
    "step": pl.String,
    "straggler_rank": pl.Int64,
    "compute_s": pl.Float64,
    "others_compute_s": pl.Float64,  # the median of the other ranks
    "lag_s": pl.Float64,
    "lag_share": pl.Float64,
    "slowest_step_rank": pl.Int64,
    "slowest_step_s": pl.Float64,
}


@dataclass(frozen=True)
class RankInfo:
    rank: int
    path: Path
    rank_from: str  # "distributedInfo" or "file name"
    on_gpu: bool
    device: str | None  # the matched catalog device's name
    kernels: int
    ops: int


@dataclass(frozen=True)
class MultiRank:
    inputs: tuple[Path, ...]
    ranks: tuple[RankInfo, ...]  # the ranks read, in rank order
    problems: tuple[UserError, ...]  # one per file (or missing rank) that could not be used
    world_size: int | None
    backend: str | None
    roofs: dict[str, Roof]  # the first rank's per path (every rank ran on one kind of device)
    steps: pl.DataFrame  # STEP_SCHEMA: one row per rank and step
    stragglers: pl.DataFrame  # STRAGGLER_SCHEMA: one row per step every rank has

    @property
    def common_steps(self) -> list[str]:
        return self.stragglers["step"].to_list()


@dataclass(frozen=True)
class _Rank:
    info: RankInfo
    steps: pl.DataFrame
    world_size: int | None
    backend: str | None
    roofs: dict[str, Roof]


def _read_rank(path: Path, device: str | None, ceilings: MeasuredCeilings | None) -> _Rank:
    trace = read_trace(path)
    rank, rank_from = rank_of(path, trace.distributed)
    timeline = rank_timeline(trace)
    analysis = analyze_raw(trace, device, ceilings)
    roof_cols = analysis.by_step.select("step", *ROOF_COLUMNS)
    steps = (
        timeline.join(roof_cols, on="step", how="left")
        .with_columns(
            pl.lit(rank, pl.Int64).alias("rank"),
            (pl.col("communication_s") - pl.col("overlap_s")).alias("exposed_communication_s"),
            pl.when(pl.col("step_s") > 0)
            .then(pl.col("flops") / pl.col("step_s"))
            .alias("step_flops_per_s"),
        )
        .select(list(STEP_SCHEMA))
        .cast(STEP_SCHEMA)  # type: ignore[arg-type]
    )
    matched = analysis.match.device
    backend = trace.distributed.get("backend")
    info = RankInfo(
        rank=rank,
        path=path,
        rank_from=rank_from,
        on_gpu=analysis.attribution.on_gpu,
        device=matched.name if matched else None,
        kernels=analysis.kernels,
        ops=analysis.work.ops,
    )
    return _Rank(
        info,
        steps,
        world_size_of(trace.distributed),
        backend if isinstance(backend, str) else None,
        analysis.roofs,
    )


def _missing_steps(rank: _Rank, expected: list[str]) -> UserError | None:
    have = set(rank.steps["step"].to_list())
    missing = [s for s in expected if s not in have]
    if not missing and len(have) == len(expected):
        return None
    extra = sorted(have - set(expected))
    said = []
    if missing:
        said.append(f"lacks {', '.join(missing)}")
    if extra:
        said.append(f"has {', '.join(extra)} that the other ranks lack")
    return UserError(
        f"rank {rank.info.rank} has {len(have)} profiled steps, the other ranks "
        f"{len(expected)}: it {' and '.join(said)}; it is compared on the common steps only",
        file=rank.info.path,
        fix="record every rank with the same torch.profiler schedule (the same wait, warmup "
        "and active steps), and export each rank's trace after the same step",
    )


def common_steps(steps: pl.DataFrame) -> list[str]:
    """The steps every rank has, in the order the first rank ran them."""
    ranks = steps["rank"].n_unique()
    counts = steps.group_by("step").agg(pl.col("rank").n_unique().alias("ranks"))
    every = set(counts.filter(pl.col("ranks") == ranks)["step"].to_list())
    first = steps.filter(pl.col("rank") == steps["rank"].min()).sort("start_s")
    return [s for s in first["step"].to_list() if s in every]


def stragglers_of(steps: pl.DataFrame) -> pl.DataFrame:
    """Per step every rank has: the rank that computed longest, and by how much."""
    rows = []
    for step in common_steps(steps):
        at = steps.filter(pl.col("step") == step)
        slowest = int(at["compute_s"].arg_max() or 0)
        slow = at.row(slowest, named=True)
        others = [c for i, c in enumerate(at["compute_s"].to_list()) if i != slowest]
        median = statistics.median(others) if others else slow["compute_s"]
        longest = at.row(int(at["step_s"].arg_max() or 0), named=True)
        lag = slow["compute_s"] - median
        rows.append(
            {
                "step": step,
                "straggler_rank": slow["rank"],
                "compute_s": slow["compute_s"],
                "others_compute_s": median,
                "lag_s": lag,
                "lag_share": lag / median if median > 0 else None,
                "slowest_step_rank": longest["rank"],
                "slowest_step_s": longest["step_s"],
            }
        )
    return pl.DataFrame(rows, schema=STRAGGLER_SCHEMA)


def analyse_ranks(
    inputs: Sequence[Path],
    device: str | None = None,
    ceilings: MeasuredCeilings | None = None,
    roofs: dict[str, Roof] | None = None,
) -> MultiRank:
    """Every rank of the capture, one at a time; raises UserError only when no rank at all
    can be used (each other problem is kept in `problems`). `roofs`, when given, are the ones
    every step is placed on (else each rank's matched device or `ceilings`)."""
    files = rank_files(inputs)
    problems: list[UserError] = []
    read: dict[int, _Rank] = {}
    for path in files:
        gc.collect()  # the last rank's tables and events, before the next rank is read
        try:
            rank = _read_rank(path, device, ceilings)
        except UserError as err:
            problems.append(err)
            continue
        if rank.info.rank in read:
            first = read[rank.info.rank].info.path
            problems.append(
                UserError(
                    f"rank {rank.info.rank} again (from its {rank.info.rank_from}): "
                    f"{first.name} is rank {rank.info.rank} too; this file is left out",
                    file=path,
                    fix="pass one trace per rank (a folder of one capture, not of two runs)",
                )
            )
            continue
        read[rank.info.rank] = rank
    if not read:
        listed = "\n".join(f"  {p.message}" for p in problems)
        raise UserError(
            f"no rank of the capture could be read:\n{listed}",
            file=", ".join(str(p) for p in inputs),
            fix="fix the files above, then run again",
        )
    ranks = [read[r] for r in sorted(read)]
    sizes = {r.world_size for r in ranks if r.world_size}
    world = max(sizes) if sizes else None
    if world is not None:
        absent = [r for r in range(world) if r not in read]
        if absent:
            where = inputs[0] if len(inputs) == 1 else inputs[0].parent
            problems.append(
                UserError(
                    f"the capture has {world} ranks (distributedInfo.world_size) but no file "
                    f"of rank {', '.join(map(str, absent))}: the ranks shown are "
                    f"{', '.join(str(r.info.rank) for r in ranks)}",
                    file=where,
                    fix="copy every rank's trace into the folder (each rank writes its own "
                    "file); " + RANK_FIX.split(", or")[0],
                )
            )
    counts: dict[tuple[str, ...], int] = {}
    for r in ranks:
        key = tuple(r.steps["step"].to_list())
        counts[key] = counts.get(key, 0) + 1
    # the step list most ranks have (ties: the longest): the one each rank is checked against
    expected = list(max(counts.items(), key=lambda kv: (kv[1], len(kv[0]), kv[0]))[0])
    for r in ranks:
        problem = _missing_steps(r, expected)
        if problem is not None:
            problems.append(problem)
    steps = pl.concat([r.steps for r in ranks])
    if roofs is not None:  # the caller's roofs (the site's), over the ones each rank matched
        steps = with_bounds(steps.drop(ROOF_ONLY), roofs).select(list(STEP_SCHEMA))
    backends = {r.backend for r in ranks if r.backend}
    return MultiRank(
        inputs=tuple(inputs),
        ranks=tuple(r.info for r in ranks),
        problems=tuple(problems),
        world_size=world,
        backend=", ".join(sorted(backends)) or None,
        roofs=ranks[0].roofs if roofs is None else roofs,
        steps=steps,
        stragglers=stragglers_of(steps),
    )
