"""Read a torch.profiler (Kineto) Chrome-trace JSON, plain or gzip, into typed event tables.

Only what the analysis uses is kept: ops (`cpu_op`), user ranges (`user_annotation`, which
include `ProfilerStep#N`), launches (`cuda_runtime` / `cuda_driver`, joined to their
kernels by `correlation`) and GPU activity (`kernel`, `gpu_memcpy`, `gpu_memset`). Every
other event and every unknown field is skipped, so a newer profiler's additions are read
anyway; the older category names (`Operator`, `Runtime`, `Kernel`, ...) are mapped.
"""

from __future__ import annotations

import gc
import gzip
import json
import math
import mmap
import os
import zlib
from array import array
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec
import orjson

from generator.errors import UserError
from generator.ingest.trace.events import (
    EVENT_RECORDS,
    MISSING,
    GeneralEvent,
    Header,
    OpArgs,
    Refused,
    decode_event,
    decode_events,
)

GZIP_MAGIC = b"\x1f\x8b"

# Kineto category (lower-cased) -> our kind. Old names from the PyTorch 1.8-1.9 traces.
CATEGORY_KIND: dict[str, str] = {
    "cpu_op": "op",
    "operator": "op",
    "user_annotation": "range",
    "cuda_runtime": "launch",
    "cuda_driver": "launch",
    "runtime": "launch",
    "kernel": "kernel",
    "gpu_memcpy": "memcpy",
    "memcpy": "memcpy",
    "gpu_memset": "memset",
    "memset": "memset",
}
# Argument names, with the spellings older versions used: events.Arguments.
REQUIRED = ("name", "ts", "dur")


@dataclass
class Events:
    """Column lists per kind; times in microseconds as the trace writes them."""

    name: list[str] = field(default_factory=list)
    pid: list[str] = field(default_factory=list)
    tid: list[str] = field(default_factory=list)
    # times as C doubles (8 bytes each, not a float object): a 100 MB trace has 700k of them
    ts: array[float] = field(default_factory=lambda: array("d"))
    dur: array[float] = field(default_factory=lambda: array("d"))
    correlation: list[int | None] = field(default_factory=list)
    sequence: list[int | None] = field(default_factory=list)
    args: list[OpArgs | None] = field(default_factory=list)
    device: list[int | None] = field(default_factory=list)
    # kernels: grid, block, registers and shared memory (kernels alike in these and their
    # name are the same kernel); None for other events
    config: list[str | None] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.name)


@dataclass
class RawTrace:
    path: Path
    ops: Events
    ranges: Events
    launches: Events
    kernels: Events
    memcpy: Events
    memset: Events
    device_properties: list[dict[str, Any]]
    record_shapes: bool | None  # the trace's own flag, when it writes one
    distributed: dict[str, Any]
    categories: dict[str, int]  # every category seen, with its count (for error messages)

    def without_events(self) -> RawTrace:
        """What the trace says of itself, its event tables empty (what a stored analysis
        and a cached page keep)."""
        empty = Events
        return replace(self, ops=empty(), ranges=empty(), launches=empty(), kernels=empty(),
                       memcpy=empty(), memset=empty())  # fmt: skip


def looks_like_trace(path: Path) -> bool:
    """A Chrome-trace JSON, by content: a gzip stream, or JSON text opening with { or [.
    Broad: it also takes other JSON (rocprofv3's, nsys stats'), which the registry's sniff
    order gives to their own formats first (`ingest/formats.py`)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(512)
    except OSError:
        return False
    if head.startswith(GZIP_MAGIC):
        return True
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return text[:1] in (b"{", b"[")


def _read_bytes(path: Path) -> bytes | mmap.mmap:
    """The trace's JSON text: unzipped when it is a gzip stream, else the file mapped into
    memory (read-only), so that `_Release` can hand back what the reader has read."""
    try:
        with path.open("rb") as handle:
            if handle.read(2) != GZIP_MAGIC:
                handle.seek(0)
                if os.fstat(handle.fileno()).st_size == 0:
                    return b""
                return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            handle.seek(0)
            raw = handle.read()
    except OSError as err:
        raise UserError(f"cannot read the trace: {err.strerror}", file=path) from err
    try:
        return gzip.decompress(raw)
    except (EOFError, OSError, zlib.error) as err:
        raise UserError(
            f"the gzip stream is broken ({err}): the file was cut short or is not gzip",
            file=path,
            fix="copy the trace again; torch.profiler writes it whole when the profiler exits",
        ) from err


class _Release:
    """Hands the pages of a mapped trace file that the reader is done with back to the
    system (they are the file's: read again from it if ever touched), so the text does not
    stay in memory beside the tables built from it. Events lie in the text in the order
    they are read, so the bytes of the events read so far, not counting the text between
    them, are a safe lower bound of how far the reader has come."""

    EVERY = 1 << 22  # bytes read between two releases

    def __init__(self, text: bytes | mmap.mmap) -> None:
        able = isinstance(text, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED")
        self._text = text if able else None
        self._read = 0
        self._released = 0

    def read(self, length: int) -> None:
        self._read += length
        if self._text is None or self._read - self._released < self.EVERY:
            return
        end = self._read - self._read % mmap.PAGESIZE
        assert isinstance(self._text, mmap.mmap)
        self._text.madvise(mmap.MADV_DONTNEED, 0, end)
        self._released = end


def _parse(path: Path, text: bytes | mmap.mmap) -> Any:
    """The JSON document as dicts and lists, or a UserError that says where it is broken."""
    raw = text if isinstance(text, bytes) else text[:]
    try:
        return orjson.loads(raw)  # ~2x the stdlib's speed
    except orjson.JSONDecodeError:
        pass  # NaN, lone surrogates, huge integers: the stdlib reads those, or says why
    try:
        return json.loads(raw)
    except UnicodeDecodeError as err:
        raise UserError("the trace is not UTF-8 JSON text", file=path) from err
    except json.JSONDecodeError as err:
        raise UserError(
            f"invalid JSON: {err.msg}",
            file=path,
            line=err.lineno,
            fix="a truncated trace cannot be read; export it again "
            "(prof.export_chrome_trace(...) or tensorboard_trace_handler)",
        ) from err


def _text(value: Any) -> str:
    """As text; JSON may carry lone surrogates (\\ud800), which are not UTF-8: replaced."""
    text = str(value)
    return text if text.isascii() else text.encode("utf-8", "replace").decode("utf-8")


def _shared(texts: dict[str, str], text: str) -> str:
    return texts.setdefault(text, text)


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    return None


def _bad_event(path: Path, index: int, what: str, key: str) -> UserError:
    return UserError(
        f"traceEvents[{index}] {what}",
        file=path,
        key=f"traceEvents[{index}].{key}",
        fix="this event cannot be placed in time; export the trace again with torch.profiler",
    )


def read_trace(path: Path) -> RawTrace:
    """The trace's event tables. Each event is decoded from its slice of the text into a
    slim typed record (`events.decode_event`: only the fields read here, no dict) and
    turned into columns, record by record, each freed once read; a plain file is mapped and
    its pages handed back as the reader passes them (`_Release`). A 100 MB trace peaks
    under 2x the file, not 6x in dicts. Input the typed decoder refuses (NaN, bytes that
    are not UTF-8, an odd shape) is read again by the general path below, which says what
    is wrong."""
    raw = _read_bytes(path)
    was_enabled = gc.isenabled()
    gc.disable()  # a parse allocates millions of objects and frees none: no cycles to find
    try:
        decoded = decode_events(raw)
        if decoded is not None:
            try:
                return _tables(path, decoded.events, decoded.header, _Release(raw))
            except Refused:
                pass
        return _read_general(path, _parse(path, raw))
    finally:
        if was_enabled:
            gc.enable()


def _read_general(path: Path, data: Any) -> RawTrace:
    """The trace from its parsed JSON document (dicts and lists), whatever its shape."""
    if isinstance(data, list):  # the Chrome trace "array format"
        data = {"traceEvents": data}
    if not isinstance(data, dict) or not isinstance(data.get("traceEvents"), list):
        raise UserError(
            "not a Chrome trace: no traceEvents list",
            file=path,
            key="traceEvents",
            fix="pass the JSON that torch.profiler writes (export_chrome_trace or "
            "tensorboard_trace_handler), or an ncu --csv export",
        )
    events = [GeneralEvent(event) if isinstance(event, dict) else event
              for event in data["traceEvents"]]  # fmt: skip
    events.reverse()
    header = Header(
        device_properties=data.get("deviceProperties"),
        record_shapes=data.get("record_shapes"),
        distributed=data.get("distributedInfo"),
    )
    return _tables(path, events, header)


def _tables(
    path: Path, events: list[Any], header: Header, release: _Release | None = None
) -> RawTrace:
    """Column tables from the events, taken from the end of `events` (which holds them in
    reverse order) so that each is freed as soon as it is read."""
    tables = {kind: Events() for kind in ("op", "range", "launch", "kernel", "memcpy", "memset")}
    categories: dict[str, int] = {}
    texts: dict[str, str] = {}
    shapes: dict[tuple[bytes, ...], OpArgs | None] = {}
    index = -1
    while events:
        event = events.pop()
        index += 1
        if isinstance(event, msgspec.Raw):
            if release is not None:
                release.read(len(event))
            event = decode_event(event)
        if not isinstance(event, EVENT_RECORDS):
            raise _bad_event(path, index, "is not a JSON object", "ph")
        category = event.cat
        if not isinstance(category, str):
            continue  # metadata ('M') and instant events carry no category
        categories[category] = categories.get(category, 0) + 1
        kind = CATEGORY_KIND.get(category.lower())
        if kind is None or event.ph != "X":
            continue
        for key in REQUIRED:
            if getattr(event, key) is MISSING:
                raise _bad_event(path, index, f"({category}) has no '{key}'", key)
        ts, dur = event.ts, event.dur
        if isinstance(ts, str):  # some exporters quote timestamps
            try:
                ts = float(ts)
            except ValueError:
                raise _bad_event(path, index, f"has a non-numeric ts {ts!r}", "ts") from None
        if not isinstance(ts, int | float) or not isinstance(dur, int | float) or dur < 0:
            raise _bad_event(path, index, "has a non-numeric or negative ts/dur", "dur")
        try:
            ts, dur = float(ts), float(dur)
        except OverflowError:  # an integer beyond any float
            raise _bad_event(path, index, "has a ts/dur beyond any time", "dur") from None
        if not (math.isfinite(ts) and math.isfinite(dur)):
            raise _bad_event(path, index, f"has a non-finite ts/dur ({ts}, {dur})", "dur")
        args = event.arguments()
        table = tables[kind]
        # one object per distinct name, pid and tid, not one per event
        table.name.append(_shared(texts, _text(event.name)))
        table.pid.append(_shared(texts, _text(event.pid)))
        table.tid.append(_shared(texts, _text(event.tid)))
        table.ts.append(ts)
        table.dur.append(dur)
        table.correlation.append(_int_or_none(args.correlation))
        table.sequence.append(_int_or_none(args.sequence))
        table.args.append(args.op_args(shapes) if kind == "op" else None)
        table.device.append(_int_or_none(args.device))
        config = args.launch_config() if kind == "kernel" else None
        table.config.append(_shared(texts, config) if config is not None else None)
    if not tables["op"] and not tables["kernel"]:
        seen = ", ".join(f"{c} ({n})" for c, n in sorted(categories.items())) or "none"
        raise UserError(
            f"no op or kernel events: not a torch.profiler trace (categories seen: {seen})",
            file=path,
            key="traceEvents",
            fix="record with torch.profiler.profile(activities=[CPU, CUDA], record_shapes=True)",
        )
    properties, flag = header.device_properties, header.record_shapes
    distributed = header.distributed
    return RawTrace(
        path=path,
        ops=tables["op"],
        ranges=tables["range"],
        launches=tables["launch"],
        kernels=tables["kernel"],
        memcpy=tables["memcpy"],
        memset=tables["memset"],
        device_properties=[p for p in properties if isinstance(p, dict)]
        if isinstance(properties, list)
        else [],
        record_shapes=bool(flag) if isinstance(flag, int | bool) else None,
        distributed=distributed if isinstance(distributed, dict) else {},
        categories=categories,
    )
