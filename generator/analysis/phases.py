"""Where a training step's time goes: forward, loss, backward and optimizer step.

For each train_step workload, the median time of each part of the step with its 95 %
distribution-free interval (`stats.median_ci`), from every timed iteration of the
workload's ok runs (a workload measured in several groups is one set of samples: their
steps.csv rows concatenated, as pooling does for the whole step).

The backward/forward latency ratio is the ratio of the two medians. Its interval is the
conservative ratio of interval ends, `backward_low / forward_high .. backward_high /
forward_low`: it holds whenever both intervals hold, so it is never narrower than the two
95 % intervals allow (a bootstrap would be narrower, and random). Beside it, the analytic
FLOP ratio `backward_flops / forward_flops` (about 2: gradients of activations and of
weights); their quotient is the backward pass's FLOP rate relative to the forward's.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from generator.formatting import number, percent
from generator.memo import remembered
from generator.stats import median_ci

DEVICE = "device_label"
PARTS = {  # steps.csv column -> the part's name
    "forward_s": "forward",
    "loss_s": "loss",
    "backward_s": "backward",
    "optimizer_step_s": "optimizer step",
}


@dataclass(frozen=True)
class PartTime:
    """One part of the step: its median time and 95 % interval over the samples."""

    part: str
    median_s: float
    low_s: float
    high_s: float


@dataclass(frozen=True)
class Interval:
    value: float
    low: float
    high: float


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

    @property
    def label(self) -> str:
        """'resnet18 b64 (cifar10, fp32)': one bar of the chart."""
        return f"{self.model} b{self.batch} ({self.dataset}, {self.precision})"

    def part(self, name: str) -> PartTime | None:
        return next((p for p in self.parts if p.part == name), None)


def part_time(name: str, samples: list[float]) -> PartTime | None:
    """A part's median and interval; None without samples (an older steps.csv)."""
    if not samples:
        return None
    low, high = median_ci(samples)
    return PartTime(name, statistics.median(samples), low, high)


def ratio(top: PartTime | None, bottom: PartTime | None) -> Interval | None:
    """top / bottom with the conservative interval (ratio of interval ends)."""
    if top is None or bottom is None or bottom.low_s <= 0:
        return None
    return Interval(
        top.median_s / bottom.median_s, top.low_s / bottom.high_s, top.high_s / bottom.low_s
    )


def step_parts(row: dict[str, Any], frames: list[pl.DataFrame], run_ids: list[str]) -> StepParts:
    """One workload's parts from its runs' steps frames (concatenated)."""
    parts = []
    for column, name in PARTS.items():
        samples = [float(v) for f in frames if column in f.columns for v in f[column].drop_nulls()]
        found = part_time(name, samples)
        if found is not None:
            parts.append(found)
    by_name = {p.part: p for p in parts}
    time_ratio = ratio(by_name.get("backward"), by_name.get("forward"))
    forward, backward = row.get("forward_flops"), row.get("backward_flops")
    flop_ratio = backward / forward if forward and backward else None
    rate_ratio = (
        Interval(
            flop_ratio / time_ratio.value, flop_ratio / time_ratio.high, flop_ratio / time_ratio.low
        )
        if flop_ratio and time_ratio
        else None
    )
    return StepParts(
        str(row["model"]), str(row["dataset"]), int(row["batch"]), str(row["precision"]),
        str(row[DEVICE]), str(row["workload"]), tuple(run_ids),
        sum(len(f) for f in frames), tuple(parts), time_ratio, flop_ratio, rate_ratio,
    )  # fmt: skip


def training_parts(runs: pl.DataFrame, steps: Mapping[str, pl.DataFrame]) -> list[StepParts]:
    """Every train_step workload with steps, by device, model, dataset, precision, batch."""
    ok = runs.filter((pl.col("status") == "ok") & (pl.col("phase") == "train_step"))
    found = []
    for _, part in ok.group_by("workload", maintain_order=True):
        run_ids = sorted(r for r in part["run_id"].to_list() if r in steps)
        if not run_ids:
            continue
        frames = [steps[r] for r in run_ids]
        # a workload the new run is not in keeps its parts (generator/memo)
        found.append(remembered("step_parts", step_parts, part.row(0, named=True), frames, run_ids))
    return sorted(found, key=lambda s: (s.device, s.model, s.dataset, s.precision, s.batch))


def describe(item: StepParts) -> str | None:
    """The workload's sentence: backward against forward, in time and in FLOPs."""
    t = item.time_ratio
    if t is None:
        return None
    text = (
        f"On {item.device}, backward takes {number(t.value, 3)}× [{number(t.low, 3)}, "
        f"{number(t.high, 3)}] the forward time for {item.model} at batch {item.batch} "
        f"({item.dataset}, {item.precision})"
    )
    r = item.rate_ratio
    if item.flop_ratio is None or r is None:
        return text + "."
    return (
        f"{text}, against an analytic FLOP ratio of {number(item.flop_ratio, 3)}: the backward "
        f"pass runs at {percent(100 * r.value)} [{percent(100 * r.low)}, "
        f"{percent(100 * r.high)}] of the forward's FLOP rate."
    )
