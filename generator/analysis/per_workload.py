"""One point per workload for the analyses across runs.

Runs of the same workload (same configuration and device, filed in several groups) carry the
same result (analysis/results.py), so counting each run would count one measurement several
times: a Spearman ρ over ten models must see ten points. The blocks of a run's steps, which
the results stage reads, are here too."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import polars as pl


class Pooling(Protocol):
    """What one_per_workload reads of a result (analysis/results.Result, which reads the
    blocks from here: a Protocol, not an import, keeps the two modules out of a cycle)."""

    @property
    def run_ids(self) -> tuple[str, ...]: ...


def one_per_workload(runs: pl.DataFrame, results: Mapping[str, Pooling]) -> pl.DataFrame:
    """The ok runs that a result pools (`results`: workload -> its result), one row per
    workload (its lowest run id: every run of a workload has the same result), in run-id
    order."""
    timed = [run for result in results.values() for run in result.run_ids]
    return (
        runs.filter((pl.col("status") == "ok") & pl.col("run_id").is_in(timed))
        .sort("run_id")
        .unique("workload", keep="first", maintain_order=True)
    )


def in_blocks(frame: pl.DataFrame) -> bool:
    """Whether a run's steps were timed in blocks (steps.csv `block` filled)."""
    return "block" in frame.columns and frame["block"].null_count() < frame.height


def run_blocks(frame: pl.DataFrame, column: str = "step_s") -> list[list[float]]:
    """A run's step times (or `column`'s, a part of the step) per block (its worker processes, steps.csv `block`), in block
    order; a run timed in one process (no `block` column, or empty) is one block. Grouped
    in Python: a run has tens to hundreds of steps, and a Polars query per run was 0.4 s
    of a py-spy profile of a rebuild at 1,000 runs (taken while the test suite ran beside
    it)."""
    if column not in frame.columns:
        return []
    if not in_blocks(frame):
        kept = [t for t in frame[column].cast(pl.Float64).to_list() if t is not None]
        return [kept] if kept else []
    found = blocks_by_number(frame, column)
    return [found[block] for block in sorted(found)]


def blocks_by_number(frame: pl.DataFrame, column: str = "step_s") -> dict[int, list[float]]:
    """A run timed in blocks: its step times (or `column`'s) by block number (unique across
    the `measure` calls that added blocks to it)."""
    found: dict[int, list[float]] = {}
    if column not in frame.columns or not in_blocks(frame):
        return found
    times = frame[column].cast(pl.Float64).to_list()
    for block, time in zip(frame["block"].to_list(), times, strict=True):
        if block is not None and time is not None:
            found.setdefault(int(block), []).append(time)
    return found


def workload_blocks(
    runs: pl.DataFrame, steps: Mapping[str, pl.DataFrame]
) -> dict[str, list[list[float]]]:
    """Workload -> the step times of each independent process that timed it: every block of
    every ok run (a run timed in one process counts as one)."""
    found: dict[str, list[list[float]]] = {}
    ok = runs.filter(pl.col("status") == "ok").sort("run_id")
    for workload, run_id in zip(ok["workload"], ok["run_id"], strict=True):
        frame = steps.get(run_id)
        if frame is not None:
            found.setdefault(workload, []).extend(run_blocks(frame))
    return {workload: blocks for workload, blocks in found.items() if blocks}
