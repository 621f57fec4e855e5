"""Results kept between builds under the content of their inputs.

A report at 1,000 runs redraws its aggregate pages after every run added, though most of
what they compute (a group's experiment page, a pair's bootstrap, a set's chart) saw no new
input. `remembered(name, function, *args)` returns `function(*args)`, computed once per
content of `args` and code: kept as the store's `memo` entries (generator/store) in the
store of the build running (`store.storing_in`, which the build enters); outside a build,
nothing is kept.

Only pure functions may be remembered: the result must depend on the arguments and the code
alone. Arguments are compared by value (`content_bytes`), never by identity.
"""

from __future__ import annotations

import io
import pickle
from array import array
from collections.abc import Callable
from typing import Any, TypeVar

import polars as pl
from pydantic import BaseModel

from generator.store import active_store

T = TypeVar("T")


class _ContentPickler(pickle.Pickler):
    """Bytes that depend on the values alone, in any process. A pickle's memo says which
    equal values are one object, and a frame's pickle (Arrow IPC) how it is laid out: both
    differ between equal values reached in different ways (an export parsed from its CSV or
    read from a cache)."""

    def __init__(self, buffer: io.BytesIO) -> None:
        super().__init__(buffer, protocol=5)
        self.fast = True  # no memo (the values hold no cycles)

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, pl.DataFrame):
            return ("frame", frame_content(obj))
        # A set pickles in its iteration order, which string hashing varies per process
        # (PYTHONHASHSEED), and a pydantic model pickles the set of fields it was given.
        if isinstance(obj, set | frozenset):
            return ("set", sorted(content_bytes(item) for item in obj))
        if isinstance(obj, BaseModel):
            return ("model", type(obj).__qualname__, obj.model_dump_json())
        return None


def frame_content(frame: pl.DataFrame) -> bytes:
    """A frame's schema and values as bytes that equal frames share and unequal ones do not
    (-0.0 and 0.0, NaN and null apart): Arrow IPC in its oldest layout, where a string
    column is offsets and bytes (the newest lays out equal strings in several ways, one for
    a frame parsed from CSV, another for the same frame built in memory). 40 us at 1,000 rows,
    against 115 us for the frame's JSON and 500 us for an IPC file. A column of Python
    objects, which IPC cannot hold, by the repr of its rows."""
    if any(dtype == pl.Object for dtype in frame.schema.values()):
        return repr(frame.schema).encode() + repr(frame.rows()).encode()
    buffer = io.BytesIO()
    frame.write_ipc_stream(buffer, compat_level=pl.CompatLevel.oldest())
    return buffer.getvalue()


def content_bytes(value: object) -> bytes:
    """`value` as bytes that equal values share (a frame by its schema and rows)."""
    buffer = io.BytesIO()
    _ContentPickler(buffer).dump(value)
    return buffer.getvalue()


class _Floats(bytes):
    """A list of floats' values, 8 bytes each (-0.0 and 0.0, NaN and null apart as in a
    frame's content)."""


def _floats_as_bytes(arg: Any) -> Any:
    """A list of floats (a bootstrap's samples: hundreds per argument) as one value: pickled
    float by float, each one passed through `_ContentPickler.persistent_id`, the keys of a
    rebuild's 112 remembered calls cost 0.1 s at 1,000 runs."""
    if isinstance(arg, list) and arg and all(type(value) is float for value in arg):
        return _Floats(array("d", arg).tobytes())
    return arg


def remembered(name: str, function: Callable[..., T], *args: Any) -> T:
    """`function(*args)`, read back when this code computed it for equal arguments before.
    `name` tells apart functions that take equal arguments."""
    store = active_store()
    if store is None:
        return function(*args)
    arguments = content_bytes(tuple(_floats_as_bytes(arg) for arg in args))
    return store.get_or_make("memo", [name, arguments], lambda: function(*args))
