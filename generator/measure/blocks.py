"""Time the whole matrix in blocks: independent worker processes, in a shuffled order, until
each configuration's interval across blocks is precise enough.

- **One result per configuration.** A configuration that several groups list (ResNet-18 b128
  training on the CPU is in A, B and D) is measured once; every group reads that result
  (`share_configurations`).
- **Interleaved across the matrix.** Blocks run in waves; each wave is every active
  configuration's blocks in a random order (seeded), so drift over the invocation (another
  tenant, heat, a clock change) lands on all configurations alike and shows up in each one's
  between-block variance.
- **Adaptive at each level** (Kalibera and Jones, ISMM 2013). The first wave gives every
  configuration `min_blocks` blocks of `iterations` steps. After each wave, a configuration
  stops when the interval the report will state for it (`results.estimate`, judged by
  `results.precise_enough`: at least `interval.MIN_BLOCKS` blocks) is within ±`ci_target`
  (`stopped_by = "ci"`) or a cap is reached (`max_blocks`, `max_iterations`, `max_seconds` of its blocks' machine time);
  otherwise it gets as many more blocks as the spread of its block medians says it needs,
  each with the steps per block that minimise the time to that precision
  (`hierarchical.optimal_iterations`).
"""

from __future__ import annotations

import math
import random
import statistics
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from generator.analysis.interval import MIN_BLOCKS, Interval
from generator.analysis.results import estimate, precise_enough
from generator.config import RunConfig
from generator.hierarchical import (
    BlockEstimate,
    block_estimate,
    blocks_needed,
    optimal_iterations,
)
from generator.measure.block import BlockRequest, BlockResult, BlockRunner
from generator.measure.budget import Budget
from generator.measure.stopping import keeping
from generator.records.run import workload_key
from generator.records.run_modes import EAGER
from generator.records.run_parts import BlockError

MIN_STEPS_PER_BLOCK = 2  # a block median of one step is one step


@dataclass(frozen=True)
class Shared:
    """One configuration and every group that lists it (the first names its run folder)."""

    config: RunConfig
    groups: tuple[str, ...]


def share_configurations(runs: list[RunConfig], device_name: Callable[[str], str]) -> list[Shared]:
    """The configurations of `runs` with duplicates across groups folded into one, in order
    of first appearance; the first group's settings (warm-up, caps) time it."""
    found: dict[str, tuple[RunConfig, list[str]]] = {}
    for run in runs:
        key = workload_key(run.as_dict(), device_name(run.device))
        if key in found:
            if run.group not in found[key][1]:
                found[key][1].append(run.group)
        else:
            found[key] = (run, [run.group])
    return [Shared(config, tuple(groups)) for config, groups in found.values()]


@dataclass
class BlockState:
    """One configuration across the waves of this invocation."""

    shared: Shared
    prior: list[list[float]] = field(default_factory=list)  # step times of earlier blocks
    blocks: list[BlockResult] = field(default_factory=list)  # this invocation's
    iterations: int = 0  # timed steps per block for the next wave
    spent_s: float = 0.0  # machine time of its blocks: set-up, warm-up and timed steps
    stopped_by: str | None = None  # ci, blocks, budget, max_blocks, iterations, time
    error: BlockError | None = None
    finished: bool = False  # handed to `finish`
    cache_dir: str | None = None  # compiled: inductor's cache, shared by its blocks
    session_cv: float = 0.0  # its device's between-session variation (records.calibration)

    def __post_init__(self) -> None:
        self.iterations = self.iterations or self.config.iterations

    @property
    def config(self) -> RunConfig:
        return self.shared.config

    @property
    def active(self) -> bool:
        return self.error is None and self.stopped_by is None

    def times(self) -> list[list[float]]:
        """Step times per block, earlier invocations' first."""
        return self.prior + [[row["step_s"] for row in block.rows] for block in self.blocks]

    @property
    def samples(self) -> int:
        return sum(len(block) for block in self.times())

    def estimate(self) -> BlockEstimate | None:
        """The level variations that plan the next wave (two blocks or more)."""
        times = self.times()
        return block_estimate(times, session_cv=self.session_cv) if len(times) >= 2 else None

    def step(self) -> Interval:
        """Its step time as the report will state it, by the one rule (`results.estimate`)."""
        return estimate(self.times(), True, self.session_cv)

    def add(self, result: BlockResult) -> None:
        self.blocks.append(result)
        self.spent_s += result.setup_s + sum(row["step_s"] for row in result.rows)

    def block_cost_s(self) -> float:
        """The machine time of one of its blocks so far (set-up, warm-up, timed steps)."""
        return self.spent_s / len(self.blocks) if self.blocks else 0.0

    def budget_s(self) -> float:
        """Timed seconds one block may take: the first waves' blocks share half the
        configuration's time cap, leaving the rest for the blocks the spread asks for."""
        return self.config.max_seconds / (2 * self.config.min_blocks)


def judge(state: BlockState, budget: Budget | None = None) -> int:
    """Set `state.stopped_by` when it needs no more blocks; else return how many more.
    `budget`: the call's time, which stops a configuration that has its minimum blocks
    when what is left must go to finishing the others."""
    config = state.config
    if len(state.blocks) < config.min_blocks:  # every invocation adds at least min_blocks
        return config.min_blocks - len(state.blocks)
    count = len(state.times())
    levels = state.estimate()
    assert levels is not None  # min_blocks >= 2
    if config.ci_target == 0:
        state.stopped_by = "blocks"
    elif precise_enough(state.step(), config.ci_target):
        state.stopped_by = "ci"
    elif budget is not None and budget.short():
        state.stopped_by = "budget"
    elif count >= config.max_blocks:
        state.stopped_by = "max_blocks"
    elif state.samples >= config.max_iterations:
        state.stopped_by = "iterations"
    elif state.spent_s >= config.max_seconds:
        state.stopped_by = "time"
    if state.stopped_by is not None:
        return 0
    setup = statistics.fmean(block.setup_s for block in state.blocks) if state.blocks else 0.0
    state.iterations = optimal_iterations(
        levels.within_block_cv, levels.between_block_cv, setup, levels.estimate_s,
        low=MIN_STEPS_PER_BLOCK, high=max(MIN_STEPS_PER_BLOCK, 3 * config.iterations),
    )  # fmt: skip
    per_block = setup + state.iterations * levels.estimate_s
    affordable = max(1, math.floor((config.max_seconds - state.spent_s) / max(per_block, 1e-9)))
    wanted = max(MIN_BLOCKS, blocks_needed(levels, config.ci_target, config.max_blocks)) - count
    return max(1, min(wanted, affordable, config.max_blocks - count))


def wave_order(wanted: dict[int, int], rng: random.Random) -> list[int]:
    """Every configuration's blocks of one wave (by index), shuffled; no configuration runs
    twice in a row where another can go between."""
    order = [index for index, count in wanted.items() for _ in range(count)]
    rng.shuffle(order)
    for at in range(1, len(order)):
        if order[at] == order[at - 1]:
            swap = next((j for j in range(at + 1, len(order)) if order[j] != order[at]), None)
            if swap is not None:
                order[at], order[swap] = order[swap], order[at]
    return order


def measure_blocks(
    states: list[BlockState],
    runner: BlockRunner,
    finish: Callable[[BlockState], None],
    progress: Callable[[BlockState], None] | None = None,
    seed: int = 0,
    log: Callable[[int, list[int]], None] | None = None,
    kept: Callable[[BlockState, BlockResult], None] | None = None,
    budget: Budget | None = None,
) -> None:
    """Run waves of shuffled blocks until every configuration has stopped or failed;
    `finish` gets each as soon as it has (its profile block and record come next), `kept`
    each block as soon as it is timed (measure keeps it on disk: records/pending.py), and
    `budget` stops the waves of configurations that have their minimum blocks once the
    call's time runs short (`stopped_by = "budget"`)."""
    with tempfile.TemporaryDirectory(prefix="roofline-inductor-") as caches:
        for index, state in enumerate(states):
            if state.config.compile != EAGER:
                state.cache_dir = str(Path(caches) / str(index))
        _waves(states, runner, finish, progress, seed, log, kept, budget)


def _waves(
    states: list[BlockState],
    runner: BlockRunner,
    finish: Callable[[BlockState], None],
    progress: Callable[[BlockState], None] | None,
    seed: int,
    log: Callable[[int, list[int]], None] | None,
    kept: Callable[[BlockState, BlockResult], None] | None = None,
    budget: Budget | None = None,
) -> None:
    rng = random.Random(seed)
    wanted = {index: judge(state, budget) for index, state in enumerate(states)}
    wave = 0
    while wanted:
        order = wave_order(wanted, rng)
        if log:
            log(wave, order)
        for index in order:
            state = states[index]
            if not state.active:
                continue
            request = BlockRequest(
                state.config.as_dict(), state.iterations, state.budget_s(),
                cache_dir=state.cache_dir,
            )  # fmt: skip
            result = runner(request)
            with keeping():  # a SIGTERM now waits until the block is kept
                if result.error is not None:
                    state.error = result.error
                else:
                    state.add(result)
                    if kept:
                        kept(state, result)
            if progress:
                progress(state)
        if budget is not None:  # finishing the open ones comes first
            open_states = [state for state in states if not state.finished]
            budget.reserve_s = sum(
                budget.finish_s + (state.block_cost_s() if state.active else 0.0)
                for state in open_states
            )
        wanted = {}
        for index, state in enumerate(states):
            if state.finished:
                continue
            if state.active:
                more = judge(state, budget)
                if state.active:
                    wanted[index] = more
                    continue
            finish(state)
            state.finished = True
        wave += 1
