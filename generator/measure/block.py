"""One block: a fresh worker process builds the configuration, warms it up and times a few
steps (and, for the profile block, runs one step under torch.profiler).

A block starts from nothing each time, so what one process happens to get (memory layout,
allocator and thread-pool state, the clock it started at) varies between blocks and shows
up in the between-block variance instead of hiding in a narrow interval. Workers are forked
from a `forkserver` that has imported torch but run nothing: a block costs ~0.1 s to start
instead of the ~3 s of a new interpreter, and no thread pool or allocator is inherited.
"""

from __future__ import annotations

import json
import multiprocessing
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from generator.config import RunConfig
from generator.records.run_parts import (
    BlockCompile,
    BlockEnergy,
    BlockError,
    BlockMemory,
    ConditionsSample,
    OpRow,
    PrecisionSettings,
)

# A fresh process's first steps are slow (allocator, caches, thread pool, lazy
# initialisation), and a millisecond step is not warm after 3 of them: a block warms up for
# its configuration's `warmup` steps and at least this long (at most WARMUP_MAX_STEPS).
WARMUP_MIN_S = 0.5
WARMUP_MAX_STEPS = 2000
# Modules the forkserver imports once, before any block: what every block would import.
PRELOAD = ["torch", "torchvision", "generator.measure.step", "generator.measure.profile_ops"]


@dataclass(frozen=True)
class BlockRequest:
    config: dict[str, Any]  # RunConfig.as_dict()
    iterations: int  # timed steps (fewer when the time budget runs out first)
    budget_s: float  # timed seconds after which the block stops early (at least 1 step)
    trace_path: str | None = None  # the profile block: one profiled step, no timed ones
    cache_dir: str | None = None  # compiled runs: inductor's cache, shared by their blocks


@dataclass
class BlockResult:
    rows: list[dict[str, float]] = field(default_factory=list)
    settings: PrecisionSettings = field(default_factory=PrecisionSettings)
    conditions: ConditionsSample = field(default_factory=ConditionsSample)
    setup_s: float = 0.0  # build + warm-up, less compiling: a block's cost beyond its steps
    compile: BlockCompile | None = None  # compiled runs: measure.compiled.compile_record
    memory: BlockMemory | None = None  # measure.memory, over the timed steps
    energy: BlockEnergy | None = None  # measure.energy, over the timed steps
    ops: list[OpRow] = field(default_factory=list)
    error: BlockError | None = None  # type, message, traceback

    @classmethod
    def failed(cls, error: BaseException) -> BlockResult:
        return cls(error={
            "type": type(error).__name__,
            "message": str(error),
            "traceback": traceback.format_exception(error)[-12:],
        })  # fmt: skip


BlockRunner = Callable[[BlockRequest], BlockResult]


def run_block(request: BlockRequest) -> BlockResult:
    """The block itself, in the calling process (a worker, or a test)."""
    from generator.measure.compiled import CompileWatch, use_cache
    from generator.measure.conditions import Conditions
    from generator.measure.energy import energy_meter
    from generator.measure.memory import memory_probe
    from generator.measure.profile_ops import profile_step
    from generator.measure.step import apply_precision, build_workload, run_iterations

    config = RunConfig.from_dict(request.config)
    try:
        started = time.perf_counter()
        use_cache(request.cache_dir)
        memory = memory_probe(config.device)
        memory.before_build()
        settings = apply_precision(config.precision, config.device)
        workload = build_workload(config)
        watch = CompileWatch(config.compile) if config.compile != "eager" else None
        warm = run_iterations(workload, max(config.warmup, 2 if watch else 1))
        while len(warm) < WARMUP_MAX_STEPS and time.perf_counter() - started < WARMUP_MIN_S:
            warm += run_iterations(workload, 1)
        compile_s, compiled = 0.0, None
        if watch is not None:
            watch.warmed_up()
            compiled = watch.record(warm[0]["step_s"], [r["step_s"] for r in warm[1:]])
            compile_s = compiled["compile_s"]
        setup_s = time.perf_counter() - started - compile_s
        if request.trace_path is not None:
            ops = profile_step(workload, Path(request.trace_path))
            return BlockResult(settings=settings, setup_s=setup_s, ops=ops)
        conditions = Conditions.for_device(config.device)
        meter = energy_meter(config.device)
        conditions.before_round()
        memory.before_timing()
        meter.before()
        rows: list[dict[str, float]] = []
        while len(rows) < request.iterations and sum(r["step_s"] for r in rows) < request.budget_s:
            rows += run_iterations(workload, 1)
        energy = meter.after(len(rows))
        peak = memory.after_timing()
        sample = conditions.after_round()
        if watch is not None:  # the counters again, now over the timed steps too
            compiled = watch.record(warm[0]["step_s"], [r["step_s"] for r in warm[1:]])
    except Exception as error:  # out of memory, an unsupported op: the caller records it
        return BlockResult.failed(error)
    return BlockResult(rows=rows, settings=settings, conditions=sample, setup_s=setup_s,
                       compile=compiled, memory=peak, energy=energy)  # fmt: skip


def _worker(request: BlockRequest, out: str) -> None:
    Path(out).write_text(json.dumps(asdict(run_block(request))), encoding="utf-8")


class ForkedBlocks:
    """Runs each block in a new process forked from one forkserver (started on first use)."""

    def __init__(self) -> None:
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload(PRELOAD)

    def __call__(self, request: BlockRequest) -> BlockResult:
        with tempfile.TemporaryDirectory(prefix="roofline-block-") as folder:
            out = Path(folder) / "block.json"
            process = self.context.Process(target=_worker, args=(request, str(out)))
            process.start()
            try:
                process.join()
            except BaseException:  # Ctrl-C: the worker got it too; do not leave it running
                process.terminate()
                process.join()
                raise
            if not out.exists():
                return BlockResult(error={
                    "type": "WorkerDied",
                    "message": f"the block's worker process ended with exit code "
                    f"{process.exitcode} before writing its result (killed for memory, or "
                    "a crash in native code)",
                    "traceback": [],
                })  # fmt: skip
            data = json.loads(out.read_text(encoding="utf-8"))
        return BlockResult(**data)
