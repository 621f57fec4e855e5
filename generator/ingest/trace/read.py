"""Read a torch.profiler (Kineto) Chrome-trace JSON, plain or gzip, into typed event tables.

Only what the analysis uses is kept: ops (`cpu_op`), user ranges (`user_annotation`, which
include `ProfilerStep#N`), launches (`cuda_runtime` / `cuda_driver`, joined to their
kernels by `correlation`) and GPU activity (`kernel`, `gpu_memcpy`, `gpu_memset`). Every
other event and every unknown field is skipped, so a newer profiler's additions are read
anyway; the older category names (`Operator`, `Runtime`, `Kernel`, ...) are mapped.
"""

from __future__ import annotations

import gzip
import json
import math
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from generator.errors import UserError

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
# Argument names as Kineto writes them, with the spellings older versions used.
ARG_NAMES: dict[str, tuple[str, ...]] = {
    "dims": ("Input Dims", "Input dims", "input_dims"),
    "types": ("Input type", "Input types", "input_type"),
    "concrete": ("Concrete Inputs",),
    "sequence": ("Sequence number", "Sequence Number"),
    "fwd_thread": ("Fwd thread id", "Fwd Thread Id"),
    "correlation": ("correlation", "Correlation", "correlation id"),
    "external": ("External id", "External Id", "external id"),
}
REQUIRED = ("name", "ts", "dur")


@dataclass(frozen=True)
class OpArgs:
    """What record_shapes wrote for one op: per input its dims, type and concrete value."""

    dims: list[Any]
    types: list[str]
    concrete: list[str]


@dataclass
class Events:
    """Column lists per kind; times in microseconds as the trace writes them."""

    name: list[str] = field(default_factory=list)
    pid: list[str] = field(default_factory=list)
    tid: list[str] = field(default_factory=list)
    ts: list[float] = field(default_factory=list)
    dur: list[float] = field(default_factory=list)
    correlation: list[int | None] = field(default_factory=list)
    sequence: list[int | None] = field(default_factory=list)
    args: list[OpArgs | None] = field(default_factory=list)
    device: list[int | None] = field(default_factory=list)

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


def looks_like_trace(path: Path) -> bool:
    """A Chrome-trace JSON, by content: a gzip stream, or JSON text opening with { or [."""
    try:
        with path.open("rb") as handle:
            head = handle.read(512)
    except OSError:
        return False
    if head.startswith(GZIP_MAGIC):
        return True
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return text[:1] in (b"{", b"[")


def _load(path: Path) -> Any:
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise UserError(f"cannot read the trace: {err.strerror}", file=path) from err
    if raw.startswith(GZIP_MAGIC):
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error) as err:
            raise UserError(
                f"the gzip stream is broken ({err}): the file was cut short or is not gzip",
                file=path,
                fix="copy the trace again; torch.profiler writes it whole when the profiler exits",
            ) from err
    try:
        return orjson.loads(raw)  # ~2x the stdlib's speed: a trace is megabytes of JSON
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


def _arg(args: dict[str, Any], key: str) -> Any:
    for spelling in ARG_NAMES[key]:
        if spelling in args:
            return args[spelling]
    return None


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


def _op_args(args: dict[str, Any]) -> OpArgs | None:
    dims = _arg(args, "dims")
    if not isinstance(dims, list):
        return None
    types = _arg(args, "types")
    concrete = _arg(args, "concrete")
    return OpArgs(
        dims=dims,
        types=[str(t) for t in types] if isinstance(types, list) else [],
        concrete=[str(c) for c in concrete] if isinstance(concrete, list) else [],
    )


def _bad_event(path: Path, index: int, what: str, key: str) -> UserError:
    return UserError(
        f"traceEvents[{index}] {what}",
        file=path,
        key=f"traceEvents[{index}].{key}",
        fix="this event cannot be placed in time; export the trace again with torch.profiler",
    )


def read_trace(path: Path) -> RawTrace:
    data = _load(path)
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
    tables = {kind: Events() for kind in ("op", "range", "launch", "kernel", "memcpy", "memset")}
    categories: dict[str, int] = {}
    for index, event in enumerate(data["traceEvents"]):
        if not isinstance(event, dict):
            raise _bad_event(path, index, "is not a JSON object", "ph")
        category = event.get("cat")
        if not isinstance(category, str):
            continue  # metadata ('M') and instant events carry no category
        categories[category] = categories.get(category, 0) + 1
        kind = CATEGORY_KIND.get(category.lower())
        if kind is None or event.get("ph", "X") != "X":
            continue
        for key in REQUIRED:
            if key not in event:
                raise _bad_event(path, index, f"({category}) has no '{key}'", key)
        ts, dur = event["ts"], event["dur"]
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
        raw_args = event.get("args")
        args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
        table = tables[kind]
        table.name.append(_text(event["name"]))
        table.pid.append(_text(event.get("pid", "")))
        table.tid.append(_text(event.get("tid", "")))
        table.ts.append(float(ts))
        table.dur.append(float(dur))
        table.correlation.append(_int_or_none(_arg(args, "correlation")))
        table.sequence.append(_int_or_none(_arg(args, "sequence")))
        table.args.append(_op_args(args) if kind == "op" else None)
        table.device.append(_int_or_none(args.get("device")))
    if not tables["op"] and not tables["kernel"]:
        seen = ", ".join(f"{c} ({n})" for c, n in sorted(categories.items())) or "none"
        raise UserError(
            f"no op or kernel events: not a torch.profiler trace (categories seen: {seen})",
            file=path,
            key="traceEvents",
            fix="record with torch.profiler.profile(activities=[CPU, CUDA], record_shapes=True)",
        )
    properties = data.get("deviceProperties")
    flag = data.get("record_shapes")
    distributed = data.get("distributedInfo")
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
