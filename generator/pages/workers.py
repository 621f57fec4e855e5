"""One pool of worker processes for a whole build.

The trace pages, the kernel pages and the chart files are each computed in a process per
core. Each stage starting its own pool made every stage pay the processes' start-up again
(a spawned process imports the generator, Polars and Altair: ~1 s of a core, page faults
included); inside `build_workers()` the stages share one pool, started when first used.
Spawned, not forked: a forked JavaScript runtime (vl-convert) or Polars thread pool does not
survive.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing import get_context

_shared: dict[str, ProcessPoolExecutor | bool] = {}  # "pool", or "open" while none started


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


@contextmanager
def build_workers() -> Iterator[None]:
    """Share one pool among the stages run inside; it is shut down on the way out."""
    if _shared:  # nested: the outer build's pool serves
        yield
        return
    _shared["open"] = True
    try:
        yield
    finally:
        pool = _shared.pop("pool", None)
        _shared.clear()
        if isinstance(pool, ProcessPoolExecutor):
            pool.shutdown(cancel_futures=True)


def shared_pool() -> ProcessPoolExecutor | None:
    """The build's pool (started now if it is not yet), or None outside `build_workers`
    or on one core: the caller then starts its own or works in-process."""
    if not _shared or cores() < 2:
        return None
    pool = _shared.get("pool")
    if not isinstance(pool, ProcessPoolExecutor):
        pool = _shared["pool"] = new_pool(cores())
    return pool
