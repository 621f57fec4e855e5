"""`measure --budget SECONDS`: whole configurations inside a time limit, rather than all of
them cut short.

A GPU lease, a Slurm time limit or a cloud VM's spot window gives a `measure` call a fixed
time. Blocks are kept as they are timed (records/pending.py), but a configuration with too
few blocks is not calibrated, so a budget is planned up front: each configuration's cost
(its minimum blocks, then its profiled step and record) is estimated, the configurations
that fit are chosen in the file's order (the rest are left for a later call, and said so
before anything runs), and the blocks of the chosen ones are shuffled among themselves as
usual. While they run, a configuration that has its minimum blocks gets more only while the
time left covers finishing every configuration still open (`Budget.short`).

Estimates come from what this device measured of the same configuration before (its run
folder or its kept blocks: setup and step time per block), else from the configuration's
own caps: its first wave's blocks may time at most max_seconds / 2 in all (blocks.budget_s),
plus an assumed set-up per block (DEFAULT_SETUP_S). Each estimate says which it is.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from generator.analysis.results import run_estimate
from generator.config import RunConfig
from generator.ingest.steps import STEPS_FILE, read_steps
from generator.records.run import RunRecord

# A block's build and warm-up when nothing was measured of its configuration: a ResNet-18
# block on an H200 took 1.0 to 1.3 s (2026-11-27), a small CPU model's about 0.6 s.
DEFAULT_SETUP_S = 2.0
# A configuration's close: the profiled step (a block of its own, one step under
# torch.profiler, its trace analysed), the analytic counts and the record. Measured on the
# 2-core VM for ResNet-18: 4 to 8 s.
FINISH_S = 10.0
# One Nsight Compute pass over one step (range replay of four phases, or a kernel sample):
# tens of seconds on an H100; an allowance, not a measurement of this machine.
NCU_PASS_S = 60.0


@dataclass(frozen=True)
class Estimate:
    """What one configuration is expected to take: its minimum blocks and its close."""

    run_id: str
    blocks_s: float
    finish_s: float
    source: str  # "measured before" or "from its caps"

    @property
    def total_s(self) -> float:
        return self.blocks_s + self.finish_s


def estimate(
    config: RunConfig,
    run_id: str,
    finish_s: float,
    measured: Sequence[tuple[float, int, float]] = (),
) -> Estimate:
    """`measured`: (setup seconds, timed steps, median step seconds) of earlier blocks of
    this configuration on this device; the minimum blocks cost as many of their average."""
    blocks = config.min_blocks
    if measured:
        per_block = statistics.fmean(setup + steps * step for setup, steps, step in measured)
        return Estimate(run_id, blocks * per_block, finish_s, "measured before")
    capped = blocks * DEFAULT_SETUP_S + config.max_seconds / 2
    return Estimate(run_id, capped, finish_s, "from its caps")


@dataclass(frozen=True)
class Plan:
    """The configurations that fit the budget (in the file's order) and those left out."""

    budget_s: float
    fit: tuple[Estimate, ...]
    left_out: tuple[Estimate, ...]

    @property
    def planned_s(self) -> float:
        return sum(e.total_s for e in self.fit)

    def lines(self) -> list[str]:
        """What the plan says before anything runs."""
        head = (
            f"budget {self.budget_s:.0f} s: {len(self.fit)} of "
            f"{len(self.fit) + len(self.left_out)} configurations fit "
            f"(estimated {self.planned_s:.0f} s)"
        )
        rows = [head]
        for e in self.fit:
            rows.append(f"  fits       {e.run_id}  ~{e.total_s:.0f} s ({e.source})")
        for e in self.left_out:
            rows.append(f"  left out   {e.run_id}  ~{e.total_s:.0f} s ({e.source})")
        if self.left_out:
            rows.append("  the left-out ones run in a later call of the same command")
        return rows


def plan(estimates: Sequence[Estimate], budget_s: float) -> Plan:
    """Whole configurations, greedily in order: each one that still fits is taken (a
    large one left out does not stop a smaller one after it)."""
    fit, left_out, spent = [], [], 0.0
    for one in estimates:
        if spent + one.total_s <= budget_s:
            fit.append(one)
            spent += one.total_s
        else:
            left_out.append(one)
    return Plan(budget_s, tuple(fit), tuple(left_out))


@dataclass
class Budget:
    """The call's time while its waves run. `reserve_s` is set before each judging pass
    (blocks._waves): what finishing the open configurations still needs."""

    seconds: float
    finish_s: float = FINISH_S  # each open configuration's close (Estimate.finish_s)
    clock: Callable[[], float] = time.monotonic
    started: float = field(default=0.0)
    reserve_s: float = 0.0

    def __post_init__(self) -> None:
        self.started = self.started or self.clock()

    def left(self) -> float:
        return self.seconds - (self.clock() - self.started)

    def short(self) -> bool:
        """No time for another wave beyond what finishing the open ones needs."""
        return self.left() < self.reserve_s


def measured_blocks(record: RunRecord | None, folder: Path) -> list[tuple[float, int, float]]:
    """(setup seconds, timed steps, step time) per block of an earlier run record with
    block conditions (run.json's block conditions and timing, the step time its steps.csv
    gives, `results.run_estimate`), else nothing."""
    if record is None or record.timing is None or not record.timing.blocks:
        return []
    if not (folder / STEPS_FILE).is_file():
        return []
    blocks = (record.conditions or {}).get("blocks") or []
    timing = record.timing
    steps = max(1, round(timing.n / (timing.blocks or 1)))
    step_s = run_estimate(read_steps(folder), 0.0).value
    return [(float(b.get("setup_s") or DEFAULT_SETUP_S), steps, step_s) for b in blocks]
