"""SIGTERM (a Slurm time limit, a lease ending, `kill`) stops `measure` like Ctrl-C, but
never between a block's return and its keeping: a block the runner returned is written to
the pending store (records/pending.py) before the stop takes effect. A block still running
is abandoned at once (its worker ends), so a stop never waits for a whole block."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

# what signal.signal takes and returns
Handler = Callable[[int, FrameType | None], Any] | int | None


class Stopped(KeyboardInterrupt):
    """SIGTERM: stop like Ctrl-C."""


class _Hold:
    depth = 0
    deferred: int | None = None


def stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    """The SIGTERM handler: raise Stopped, or once the held section ends."""
    if _Hold.depth:
        _Hold.deferred = signum
        return
    raise Stopped(f"stopped by signal {signum}")


@contextlib.contextmanager
def keeping() -> Iterator[None]:
    """A returned block's recording and keeping: a SIGTERM arriving inside waits for it."""
    _Hold.depth += 1
    try:
        yield
    finally:
        _Hold.depth -= 1
        if not _Hold.depth and _Hold.deferred is not None:
            signum, _Hold.deferred = _Hold.deferred, None
            raise Stopped(f"stopped by signal {signum}")


def install() -> Handler:
    """Install the handler; return the previous one."""
    _Hold.deferred = None
    return signal.signal(signal.SIGTERM, stop_on_sigterm)
