"""torch.compile inside a block: compile the model, share inductor's cache between the
blocks of a configuration, and time the compile apart from the steps.

- **What is compiled.** The model, in place (`nn.Module.compile`, so its modules keep their
  names): its forward and, in a training step, the backward that AOTAutograd derives from it.
  The loss and the optimizer step stay eager, so the phases (forward, loss, backward,
  optimizer) are still timed apart; `PHASES_NOTE` says what each phase then holds.
- **Compile time.** A compiled model compiles on its first call (the forward) and on its
  first backward: the first step's time less the median of the warm-up steps after it is the
  compile time (`compile_s`). A recompile later in the warm-up is counted, and one during
  the timed steps is reported (`recompiles_during_timing`, the finding `recompiled`).
- **The cache.** Each block is a fresh process that compiles again: inductor's on-disk
  caches (the FX graph cache and AOTAutograd's cache) live in `TORCHINDUCTOR_CACHE_DIR`,
  one folder per configuration for one `measure` call, so the first block compiles cold
  and the rest load what it wrote. Each block records dynamo's and inductor's cache
  counters (hits, misses) so the run says what was cached.
"""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass, field
from typing import Any

from torch import nn

from generator.records.run_modes import EAGER
from generator.records.run_parts import BlockCompile

CACHE_ENV = "TORCHINDUCTOR_CACHE_DIR"
PHASES_NOTE = (
    "forward: the compiled forward graph; backward: the compiled backward graph; loss and "
    "optimizer_step: eager"
)
# dynamo/inductor counters recorded per block (torch._dynamo.utils.counters[group][name])
CACHE_COUNTERS = {
    "inductor": ("fxgraph_cache_hit", "fxgraph_cache_miss", "fxgraph_cache_bypass"),
    "aot_autograd": ("autograd_cache_hit", "autograd_cache_miss", "autograd_cache_bypass"),
}


def compile_arguments(mode: str) -> dict[str, Any]:
    """torch.compile's arguments for a compile mode of experiments.toml."""
    if mode == "compile":
        return {}
    if mode == "cudagraphs":
        return {"backend": "cudagraphs"}
    return {"mode": mode}  # max-autotune-no-cudagraphs, reduce-overhead


def compile_model(model: nn.Module, mode: str) -> None:
    """Compile `model` in place (nothing for eager); it compiles on its first call."""
    if mode != EAGER:
        model.compile(**compile_arguments(mode))


def use_cache(cache_dir: str | None) -> None:
    """Point inductor's on-disk caches at `cache_dir` (before anything compiles)."""
    if cache_dir is not None:
        os.environ[CACHE_ENV] = cache_dir


def _counters() -> dict[str, dict[str, int]]:
    from torch._dynamo.utils import counters

    groups = ("stats", "frames", "graph_break", *CACHE_COUNTERS)
    return {group: dict(counters[group]) for group in groups}


def _graphs(snapshot: dict[str, dict[str, int]]) -> int:
    """Graphs dynamo compiled so far (a recompile adds one)."""
    return int(snapshot["stats"].get("unique_graphs", 0))


@dataclass
class CompileWatch:
    """Dynamo's counters around a block's first step, its warm-up and its timed steps."""

    mode: str
    start: dict[str, dict[str, int]] = field(default_factory=dict)
    warm: dict[str, dict[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.start = _counters()

    def warmed_up(self) -> None:
        """Call after the warm-up, before the timed steps."""
        self.warm = _counters()

    def record(self, first_step_s: float, warm_steps_s: list[float]) -> BlockCompile:
        """The block's compile record, after its timed steps."""
        end = _counters()
        warm_s = statistics.median(warm_steps_s) if warm_steps_s else 0.0
        return compile_record(self.mode, first_step_s, warm_s, self.start, self.warm, end)


def compile_record(
    mode: str,
    first_step_s: float,
    warm_step_s: float,
    start: dict[str, dict[str, int]],
    warm: dict[str, dict[str, int]],
    end: dict[str, dict[str, int]],
) -> BlockCompile:
    """What one block says of compiling: its time, its graphs, its cache hits and misses."""
    cache = {
        name: end.get(group, {}).get(name, 0) - start.get(group, {}).get(name, 0)
        for group, names in CACHE_COUNTERS.items()
        for name in names
    }
    return {
        "mode": mode,
        "first_step_s": first_step_s,
        "warm_step_s": warm_step_s,
        "compile_s": max(first_step_s - warm_step_s, 0.0),
        "graphs": _graphs(warm) - _graphs(start),
        "recompiles_in_warmup": max(_graphs(warm) - _graphs(start) - 1, 0),
        "recompiles_during_timing": _graphs(end) - _graphs(warm),
        "graph_breaks": sum(end.get("graph_break", {}).values())
        - sum(start.get("graph_break", {}).values()),
        "cache": {name: count for name, count in cache.items() if count},
    }
