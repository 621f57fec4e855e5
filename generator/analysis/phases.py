"""Where a training step's time goes: forward, loss, backward and optimizer step.

For each train_step workload, the time of each part of the step by the results stage's one
rule (`results.estimate`): across the blocks (independent processes) with the calibrated
re-measurement interval where its runs were timed in blocks, within one process for a run
timed in one, and no interval for several runs each timed in one process. The
backward/forward latency ratio and the backward pass's relative FLOP rate use the report's
one ratio interval (`Interval.ratio`, of the weaker kind). Beside them, the analytic FLOP
ratio `backward_flops / forward_flops` (about 2: gradients of activations and of weights);
their quotient is the backward pass's FLOP rate relative to the forward's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import polars as pl

from generator.analysis.interval import Interval
from generator.analysis.per_workload import in_blocks, run_blocks
from generator.analysis.results import Result, estimate
from generator.formatting import number
from generator.ingest.runs import RunRow, run_rows
from generator.memo import remembered

DEVICE: Final = "device_label"
PARTS = {  # steps.csv column -> the part's name
    "forward_s": "forward",
    "loss_s": "loss",
    "backward_s": "backward",
    "optimizer_step_s": "optimizer step",
}


@dataclass(frozen=True)
class PartTime:
    """One part of the step: its time with its interval and kind."""

    part: str
    time: Interval

    @property
    def median_s(self) -> float:
        return self.time.value

    @property
    def low_s(self) -> float | None:
        return self.time.low

    @property
    def high_s(self) -> float | None:
        return self.time.high


@dataclass(frozen=True)
class StepParts:
    """One train_step workload: each part's time, and the backward/forward comparison."""

    model: str
    dataset: str
    batch: int
    precision: str
    device: str
    workload: str
    run_ids: tuple[str, ...]
    samples: int
    parts: tuple[PartTime, ...]
    time_ratio: Interval | None  # backward / forward latency
    flop_ratio: float | None  # backward / forward analytic FLOPs
    rate_ratio: Interval | None  # backward FLOP rate / forward FLOP rate
    compile: str = "eager"  # eager, or the torch.compile mode: a workload of its own

    @property
    def label(self) -> str:
        """'resnet18 b64 (cifar10, fp32)', 'resnet18 b64 (cifar10, fp32, torch.compile
        default)': one bar of the chart, one row of the table, each compile mode apart."""
        mode = "" if self.compile == "eager" else f", torch.compile {self.compile}"
        return f"{self.model} b{self.batch} ({self.dataset}, {self.precision}{mode})"

    def part(self, name: str) -> PartTime | None:
        return next((p for p in self.parts if p.part == name), None)


def part_time(name: str, frames: list[pl.DataFrame], session_cv: float) -> PartTime | None:
    """A part's time from its runs' steps; None without samples (an older steps.csv)."""
    blocks = [b for f in frames if name in f.columns for b in run_blocks(f, name)]
    if not blocks:
        return None
    timed_in_blocks = all(in_blocks(f) for f in frames)
    return PartTime(PARTS[name], estimate(blocks, timed_in_blocks, session_cv))


def step_parts(
    row: RunRow, frames: list[pl.DataFrame], run_ids: list[str], session_cv: float = 0.0
) -> StepParts:
    """One workload's parts from its runs' steps frames."""
    parts = [found for column in PARTS if (found := part_time(column, frames, session_cv))]
    by_name = {p.part: p for p in parts}
    backward, forward = by_name.get("backward"), by_name.get("forward")
    time_ratio = backward.time.ratio(forward.time) if backward and forward else None
    forward_flops, backward_flops = row.get("forward_flops"), row.get("backward_flops")
    flop_ratio = backward_flops / forward_flops if forward_flops and backward_flops else None
    rate_ratio = time_ratio.inverse(flop_ratio) if flop_ratio and time_ratio else None
    return StepParts(
        str(row["model"]), str(row["dataset"]), int(row["batch"]), str(row["precision"]),
        str(row[DEVICE]), str(row["workload"]), tuple(run_ids),
        sum(len(f) for f in frames), tuple(parts), time_ratio, flop_ratio, rate_ratio,
        str(row.get("compile") or "eager"),
    )  # fmt: skip


def training_parts(
    runs: pl.DataFrame,
    steps: Mapping[str, pl.DataFrame],
    results: Mapping[str, Result] | None = None,
) -> list[StepParts]:
    """Every train_step workload with steps, by device, model, dataset, precision, batch;
    `results` give each workload's between-session variation (as its step time's)."""
    ok = runs.filter((pl.col("status") == "ok") & (pl.col("phase") == "train_step"))
    found = []
    for _, part in ok.group_by("workload", maintain_order=True):
        run_ids = sorted(r for r in part["run_id"].to_list() if r in steps)
        if not run_ids:
            continue
        frames = [steps[r] for r in run_ids]
        # a workload the new run is not in keeps its parts (generator/memo)
        first = run_rows(part.head(1))[0]
        result = (results or {}).get(first["workload"])
        session = result.session_cv if result else 0.0
        found.append(remembered("step_parts", step_parts, first, frames, run_ids, session))
    return sorted(
        found, key=lambda s: (s.device, s.model, s.dataset, s.precision, s.batch, s.compile)
    )


def describe(item: StepParts) -> str | None:
    """The workload's sentence: backward against forward, in time and in FLOPs."""
    t = item.time_ratio
    if t is None:
        return None
    text = (
        f"On {item.device}, backward takes {t.times_text()} the forward time for {item.model} "
        f"at batch {item.batch} ({item.label.split(' (', 1)[1]}"
    )
    r = item.rate_ratio
    if item.flop_ratio is None or r is None:
        return text + "."
    return (
        f"{text}, against an analytic FLOP ratio of {number(item.flop_ratio, 3)}: the backward "
        f"pass runs at {r.percent_text()} of the forward's FLOP rate."
    )
