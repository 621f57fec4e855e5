"""AMD's rocprofv3 JSON output (`rocprofv3 --output-format json`, `<pid>_results.json`,
gzipped or not), read into the Nsight Systems capture's timeline tables.

The file is `{"rocprofiler-sdk-tool": [PROCESS, ...]}`, one object per profiled process.
What is read from each, and only that (every other key may be anything):

- `agents`: the GPUs (`type` 2), named by `product_name` ("AMD Instinct MI350X"), else
  `name` ("gfx950"); each is device `gpu_index` (rocprofv3's own GPU index, the n-th GPU
  agent by `node_id` when the file has none). A process lists every GPU of the node; those
  it ran nothing on are left out;
- `buffer_records.kernel_dispatch`: each dispatch's `start_timestamp`, `end_timestamp` and
  `dispatch_info` (`agent_id.handle`, `kernel_id`), its kernel named through
  `kernel_symbols` (`formatted_kernel_name`, else `kernel_name` without `.kd`);
- `buffer_records.memory_copy`: each copy's times, `bytes`, its direction (the name that
  `strings.buffer_records[kind].operations[operation]` gives, `MEMORY_COPY_HOST_TO_DEVICE`)
  and its GPU (`dst_agent_id`, else `src_agent_id`);
- `buffer_records.hip_api`: each HIP call's times and name (through the same strings);
- `buffer_records.marker_api`: the roctx ranges (`roctxRangePushA` to its pop,
  `roctxRangeStartA` to its stop, and `roctxThreadRangeA`/`roctxProcessRangeA` of newer
  versions), named by their message in `strings.marker_api` (by `correlation_id.internal`);
- `callback_records.counter_collection` (`--pmc`): each dispatch's counter values
  (`records[].counter_id.handle`, `value`), named through the top-level `counters`.

Timestamps are nanoseconds on one clock for GPU and host records, kept here as seconds.
"""

from __future__ import annotations

import gzip
import math
import re
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

import orjson

from generator.errors import UserError
from generator.ingest.nsys.sqlite import Activity, SqliteExport
from generator.ingest.rocprof.records import (
    GZIP_MAGIC,
    HEAD_BYTES,
    PROFILE_FIX,
    RocprofExport,
    append,
    counter_frame,
)

TOOL_KEY = "rocprofiler-sdk-tool"
GPU_AGENT = 2  # rocprofiler_agent_type_t: 1 is a CPU, 2 a GPU
OPENING = re.compile(rb'^\{\s*"rocprofiler-sdk-tool"\s*:')
# MEMORY_COPY_HOST_TO_DEVICE -> the nsys capture's own words for a direction
DIRECTIONS = {
    "HOST_TO_DEVICE": "Host-to-Device",
    "DEVICE_TO_HOST": "Device-to-Host",
    "DEVICE_TO_DEVICE": "Device-to-Device",
    "HOST_TO_HOST": "Host-to-Host",
}
RANGE_OPERATIONS = (
    "roctxRangePushA",
    "roctxRangeStartA",
    "roctxThreadRangeA",
    "roctxProcessRangeA",
)


@dataclass
class _Strings:
    """`strings.buffer_records`: record kind number -> kind name and operation names."""

    kinds: dict[int, tuple[str, tuple[str, ...]]] = field(default_factory=dict)

    def operation(self, kind: object, operation: object) -> str:
        if isinstance(kind, int) and isinstance(operation, int) and kind in self.kinds:
            names = self.kinds[kind][1]
            if 0 <= operation < len(names):
                return names[operation]
        return f"kind {kind} operation {operation}"


def _head(path: Path) -> bytes:
    with path.open("rb") as handle:
        raw = handle.read(HEAD_BYTES)
        if not raw.startswith(GZIP_MAGIC):
            return raw
        handle.seek(0)
        with gzip.GzipFile(fileobj=handle) as unzipped:
            try:
                return unzipped.read(HEAD_BYTES)
            except (EOFError, OSError, zlib.error):
                return b""


def looks_like_rocprofv3(path: Path) -> bool:
    """A rocprofv3 JSON (gzipped or not), by its first bytes only: an object whose first
    key is `rocprofiler-sdk-tool`, as rocprofv3 writes it."""
    try:
        head = _head(path)
    except OSError:
        return False
    return OPENING.match(head.lstrip(b"\xef\xbb\xbf \t\r\n")) is not None


def _is_dict(value: object) -> TypeGuard[dict[str, object]]:
    return isinstance(value, dict)


def _records(value: object, path: Path, key: str) -> list[dict[str, object]]:
    """A list of record objects at `key`; absent is none (rocprofv3 omits what it did not
    trace in some versions)."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(_is_dict(v) for v in value):
        raise _layout(path, key, f"is {type(value).__name__}, not a list of records")
    return value


def _entries(value: object) -> list[dict[str, object]]:
    """The objects of a lookup list (kernel symbols, agents, counters): what is not one is
    skipped, as a name it would give is only a label."""
    return [v for v in value if _is_dict(v)] if isinstance(value, list) else []


def _layout(path: Path, key: str, what: str) -> UserError:
    return UserError(
        f"{key} {what}: not the rocprofv3 JSON layout this reader knows (rocprofv3 of ROCm "
        "6.2 to 7.x)",
        file=path,
        key=key,
        fix="write the JSON with a rocprofv3 of ROCm 6.2 or later (--output-format json), "
        "or pass the kernel trace of its CSV output (--output-format csv)",
    )


def _get(record: Mapping[str, object], *keys: str) -> object:
    value: object = record
    for key in keys:
        if not _is_dict(value):
            return None
        value = value.get(key)
    return value


def _time(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _span(
    record: Mapping[str, object], path: Path, key: str, index: int, origin: int
) -> tuple[float, float]:
    """The record's start and end, in seconds from `origin` (ns): subtracted as integers, so
    that no dispatch loses its nanoseconds to a float of 6e13 ns."""
    start, end = record.get("start_timestamp"), record.get("end_timestamp")
    if not (_time(start) and _time(end)):
        raise _layout(path, f"{key}[{index}]", "has no start_timestamp and end_timestamp")
    assert isinstance(start, int) and isinstance(end, int)
    if end < start:
        raise UserError(
            f"{key}[{index}] ends ({end} ns) before it starts ({start} ns)",
            file=path,
            key=f"{key}[{index}]",
            fix="the file is damaged; " + PROFILE_FIX,
        )
    return (start - origin) * 1e-9, (end - origin) * 1e-9


def _handle(record: Mapping[str, object], *keys: str) -> int | None:
    value = _get(record, *keys, "handle")
    return value if isinstance(value, int) else None


def _kernel_names(process: Mapping[str, object]) -> dict[int, str]:
    names: dict[int, str] = {}
    for symbol in _entries(process.get("kernel_symbols")):
        kernel_id = symbol.get("kernel_id")
        if not isinstance(kernel_id, int):
            continue
        for field_name in ("formatted_kernel_name", "kernel_name", "truncated_kernel_name"):
            text = symbol.get(field_name)
            if isinstance(text, str) and text:
                names[kernel_id] = text.removesuffix(".kd")
                break
    return names


def _strings(process: Mapping[str, object]) -> _Strings:
    out = _Strings()
    kinds = _get(process, "strings", "buffer_records")
    for number, entry in enumerate(kinds if isinstance(kinds, list) else []):
        if _is_dict(entry) and isinstance(entry.get("kind"), str):
            operations = entry.get("operations")
            names = tuple(str(o) for o in operations) if isinstance(operations, list) else ()
            out.kinds[number] = (str(entry["kind"]), names)
    return out


def _gpus(process: Mapping[str, object]) -> dict[int, tuple[int, str]]:
    """Agent handle -> (device number, name), GPUs only, in `node_id` order."""
    agents = [
        a
        for a in _entries(process.get("agents"))
        if a.get("type") == GPU_AGENT and isinstance(_get(a, "id", "handle"), int)
    ]
    agents.sort(key=lambda a: _number(a.get("node_id")))
    out: dict[int, tuple[int, str]] = {}
    for ordinal, agent in enumerate(agents):
        index = agent.get("gpu_index")
        number = index if isinstance(index, int) and index >= 0 else ordinal
        name = next(
            (str(agent[k]) for k in ("product_name", "name") if isinstance(agent.get(k), str)
             and agent[k]),
            "not recorded",
        )  # fmt: skip
        handle = _get(agent, "id", "handle")
        assert isinstance(handle, int)
        out[handle] = (number, name)
    return out


def _messages(process: Mapping[str, object]) -> dict[int, str]:
    """`strings.marker_api`: correlation id -> roctx message, as a list of {key, value}
    (cereal's form of a map) or an object."""
    raw = _get(process, "strings", "marker_api")
    pairs: list[tuple[object, object]] = []
    if _is_dict(raw):
        pairs = list(raw.items())
    elif isinstance(raw, list):
        pairs = [(e.get("key"), e.get("value")) for e in raw if _is_dict(e)]
    out: dict[int, str] = {}
    for key, value in pairs:
        number = int(key) if isinstance(key, str) and key.isdecimal() else key
        if isinstance(number, int) and isinstance(value, str):
            out[number] = value
    return out


def _number(value: object) -> int:
    return value if isinstance(value, int) else 0


def _direction(name: str) -> str:
    bare = name.removeprefix("MEMORY_COPY_")
    return DIRECTIONS.get(bare, bare.replace("_", " ").lower())


def _counters(
    process: Mapping[str, object], path: Path, key: str, kernels: dict[int, str]
) -> Iterator[tuple[str, str, float]]:
    """(kernel, counter, value) for each dispatch and counter: a counter's instances
    (one per dimension: XCD, shader engine, ...) summed, as rocprofv3's CSV does."""
    names: dict[int, str] = {}
    for counter in _entries(process.get("counters")):
        handle = _handle(counter, "id")
        if handle is not None and isinstance(counter.get("name"), str):
            names[handle] = str(counter["name"])
    collected = _get(process, "callback_records", "counter_collection")
    where = f"{key}.callback_records.counter_collection"
    for index, record in enumerate(_records(collected, path, where)):
        kernel_id = _get(record, "dispatch_data", "dispatch_info", "kernel_id")
        values = record.get("records")
        if not isinstance(kernel_id, int) or not isinstance(values, list):
            raise _layout(path, f"{where}[{index}]", "has no dispatch_data or records")
        kernel = kernels.get(kernel_id, f"kernel {kernel_id}")
        sums: dict[str, float] = {}
        for value in values:
            handle = _handle(value, "counter_id") if _is_dict(value) else None
            number = value.get("value") if _is_dict(value) else None
            if handle is None or not isinstance(number, (int, float)):
                continue
            if isinstance(number, float) and not math.isfinite(number):
                continue  # missing, never 0
            name = names.get(handle, f"counter {handle}")
            sums[name] = sums.get(name, 0.0) + float(number)
        for name, total in sums.items():
            yield kernel, name, total


def _process(
    process: object,
    index: int,
    path: Path,
    out: SqliteExport,
    rows: list[tuple[str, str, float]],
    origin: int,
) -> str:
    key = f"{TOOL_KEY}[{index}]"
    if not _is_dict(process):
        raise _layout(path, key, f"is {type(process).__name__}, not a process object")
    strings = _strings(process)
    gpus = _gpus(process)
    for number, name in gpus.values():
        out.gpus.setdefault(number, name)
    kernels = _kernel_names(process)
    buffers = process.get("buffer_records")
    if buffers is not None and not _is_dict(buffers):
        raise _layout(path, f"{key}.buffer_records", "is not an object")
    buffers = buffers or {}
    where = f"{key}.buffer_records.kernel_dispatch"
    for i, record in enumerate(_records(buffers.get("kernel_dispatch"), path, where)):
        start, end = _span(record, path, where, i, origin)
        kernel_id = _get(record, "dispatch_info", "kernel_id")
        agent = _handle(record, "dispatch_info", "agent_id")
        if not isinstance(kernel_id, int) or agent is None:
            raise _layout(path, f"{where}[{i}]", "has no dispatch_info.kernel_id and agent_id")
        append(out.kernels, kernels.get(kernel_id, f"kernel {kernel_id}"), start, end,
                gpus.get(agent, (-1, ""))[0], 0.0, _correlation(record))  # fmt: skip
    where = f"{key}.buffer_records.memory_copy"
    for i, record in enumerate(_records(buffers.get("memory_copy"), path, where)):
        start, end = _span(record, path, where, i, origin)
        size = record.get("bytes")
        device = next(
            (gpus[h][0] for h in (_handle(record, "dst_agent_id"), _handle(record, "src_agent_id"))
             if h in gpus),
            -1,
        )  # fmt: skip
        name = _direction(strings.operation(record.get("kind"), record.get("operation")))
        nbytes = float(size) if isinstance(size, (int, float)) and size >= 0 else 0.0
        append(out.copies, name, start, end, device, nbytes, _correlation(record))
    where = f"{key}.buffer_records.hip_api"
    for i, record in enumerate(_records(buffers.get("hip_api"), path, where)):
        start, end = _span(record, path, where, i, origin)
        name = strings.operation(record.get("kind"), record.get("operation"))
        append(out.api, name, start, end, -1, 0.0, _correlation(record))
    where = f"{key}.buffer_records.marker_api"
    messages = _messages(process)
    for i, record in enumerate(_records(buffers.get("marker_api"), path, where)):
        start, end = _span(record, path, where, i, origin)
        operation = strings.operation(record.get("kind"), record.get("operation"))
        if operation in RANGE_OPERATIONS and end > start:
            link = _correlation(record)
            append(out.ranges, messages.get(link, operation), start, end, -1, 0.0, link)
    rows += _counters(process, path, key, kernels)
    command = _get(process, "metadata", "command")
    return " ".join(str(c) for c in command) if isinstance(command, list) else ""


def _correlation(record: Mapping[str, object]) -> int:
    value = _get(record, "correlation_id", "internal")
    return value if isinstance(value, int) else -1


def _load(path: Path) -> object:
    try:
        raw = path.read_bytes()
        if raw.startswith(GZIP_MAGIC):
            raw = gzip.decompress(raw)
        return orjson.loads(raw)
    except OSError as err:
        raise UserError(f"cannot read the file: {err}", file=path, fix="check the path") from err
    except (EOFError, zlib.error, gzip.BadGzipFile) as err:
        raise UserError(
            f"the gzip stream is broken ({err}): the file was cut short",
            file=path,
            fix="copy the file again; " + PROFILE_FIX,
        ) from err
    except (orjson.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise UserError(
            f"not valid JSON ({err}): the file is cut short or damaged",
            file=path,
            fix=PROFILE_FIX,
        ) from err


def read_rocprofv3(path: Path) -> RocprofExport:
    """The file's GPU kernels and copies, HIP calls and counters. Raises UserError for a
    file cut short or damaged, a layout this reader does not know, or one with no GPU
    work (no kernel dispatch and no memory copy)."""
    document = _load(path)
    processes = document.get(TOOL_KEY) if _is_dict(document) else None
    if not isinstance(processes, list):
        raise _layout(path, TOOL_KEY, "is missing or not a list of processes")
    export = SqliteExport(path, Activity(), Activity(), Activity(), Activity(), Activity(), gpus={})
    rows: list[tuple[str, str, float]] = []
    # one clock for every process: times are kept from the first process's start
    starts = [_number(_get(p, "metadata", "init_time")) for p in processes]
    origin = min((t for t in starts if t > 0), default=0)
    commands = tuple(_process(p, i, path, export, rows, origin) for i, p in enumerate(processes))
    if not export.kernels.name and not export.copies.name:
        raise UserError(
            "the file holds no kernel dispatch and no memory copy (buffer_records."
            "kernel_dispatch and memory_copy are empty): nothing ran on a GPU, or rocprofv3 "
            "traced only API calls",
            file=path,
            key=f"{TOOL_KEY}[].buffer_records.kernel_dispatch",
            fix="profile with kernel tracing on: " + PROFILE_FIX,
        )
    # a process of a multi-GPU job lists every GPU of the node: keep those it used
    used = set(export.kernels.device) | set(export.copies.device)
    gpus = {number: name for number, name in export.gpus.items() if number in used}
    traced = ["kernels"] if export.kernels.name else []
    traced += ["api"] if export.api.name else []
    traced += ["memtime", "memsize"] if export.copies.name else []
    traced += ["nvtx"] if export.ranges.name else []
    final = SqliteExport(
        path, export.kernels, export.copies, export.sets, export.api, export.ranges,
        gpus, tuple(traced),
    )  # fmt: skip
    return RocprofExport(final, counter_frame(rows), tuple(c for c in commands if c))
