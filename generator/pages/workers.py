"""One pool of worker processes for a whole build.

The trace pages, the kernel pages and the chart files are each computed in a process per
core. Each stage starting its own pool made every stage pay the processes' start-up again
(a spawned process imports the generator, Polars and Altair: ~1 s of a core, page faults
included); a build's `Workers` (in its build context, site/context.py) is one pool the
stages share, started when first used and shut down when the build ends. Spawned, not
forked: a forked JavaScript runtime (vl-convert) or Polars thread pool does not survive.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any, TypeVar

A = TypeVar("A")
R = TypeVar("R")
PARALLEL_FROM = 8  # fewer items than this: a process pool's start-up costs more than it saves


def cores() -> int:
    return os.cpu_count() or 1


NICE = 10  # the workers' niceness, added to the build's


def new_pool(workers: int) -> ProcessPoolExecutor:
    """Workers at a lower priority than the build's own process: what they compute (trace
    pages, chart files) is waited for only later, while the build's process is on the
    critical path. In rebuilds after one more run at 1,000 runs where two workers started
    to draw a handful of charts, the write stage took 1.6 to 2.4 s (four of eighteen
    paired rebuilds), 1.5 to 1.7 s with the workers at a lower priority, and 1.3 to 1.4 s
    where no worker started."""
    return ProcessPoolExecutor(
        workers, mp_context=get_context("spawn"), initializer=_lower_priority
    )


def _lower_priority() -> None:
    if hasattr(os, "nice"):
        os.nice(NICE)


class Workers:
    """A build's pool, started on first use (`pool`), shut down by `close` (or on leaving
    a `with` block). Pickled (into a worker, inside a build context), it holds no pool:
    the worker works in its own process."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"_pool": None}

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def pool(self) -> ProcessPoolExecutor | None:
        """The pool (started now if it is not yet), or None on one core."""
        if cores() < 2:
            return None
        if self._pool is None:
            self._pool = new_pool(cores())
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def map_on_cores(
    function: Callable[[A], R], items: list[A], workers: Workers | None = None
) -> list[R]:
    """`function` over `items`, in a process per core when there are enough of them that
    the processes' start-up (imports: ~1 s) pays; `function` must be picklable. Inside a
    build, in the build's pool (`workers`), else in a pool of its own."""
    count = min(cores(), len(items))
    if len(items) < PARALLEL_FROM or count < 2:
        return [function(item) for item in items]
    if workers is not None and (pool := workers.pool()) is not None:
        return list(pool.map(function, items, chunksize=4))
    with new_pool(count) as own:
        return list(own.map(function, items, chunksize=4))
