"""The trace events as records that hold only what `read.py` reads: a typed decode
(msgspec) straight from the JSON text into slim records, and the same interface over the
dicts of a general JSON parse (for the input the typed decode refuses).

A typed record keeps ~10 fields in slots and no dict: 362k events of a 100 MB trace take
a fraction of what orjson's dicts take (every key of every event, kept), and their records
are not tracked by the garbage collector (`gc=False`), which a parse would otherwise walk
again and again for nothing.
"""

from __future__ import annotations

import json
import mmap
from dataclasses import dataclass
from typing import Any

import msgspec


class Refused(Exception):
    """Text the typed decode cannot read (not UTF-8, a number it does not hold): the
    reader reads the whole trace again with the general parse, which says what is wrong."""


# UnicodeDecodeError and json's errors are ValueErrors
_DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, ValueError)
MISSING: Any = msgspec.UNSET  # a field the event does not have
_ABSENT = msgspec.Raw()  # a Raw field the event does not have


@dataclass(frozen=True)
class OpArgs:
    """What record_shapes wrote for one op: per input its dims, type and concrete value.
    Shared by every op that wrote the same (one object per distinct shape, not per op)."""

    dims: list[Any]
    types: list[str]
    concrete: list[str]


def op_args_of(dims: Any, types: Any, concrete: Any) -> OpArgs | None:
    if not isinstance(dims, list):
        return None
    return OpArgs(
        dims=dims,
        types=[str(t) for t in types] if isinstance(types, list) else [],
        concrete=[str(c) for c in concrete] if isinstance(concrete, list) else [],
    )


def _first(*values: Any) -> Any:
    """The first spelling the trace wrote (older profilers wrote other names)."""
    for value in values:
        if value is not MISSING:
            return value
    return None


def _first_raw(*values: msgspec.Raw) -> msgspec.Raw:
    for value in values:
        if value:
            return value
    return _ABSENT


class Arguments(msgspec.Struct, gc=False):
    """An event's `args`: the keys the analysis reads, in every spelling Kineto used."""

    # the shapes as their JSON text: ops repeat them step after step, so one decode (and one
    # OpArgs) per distinct text serves them all
    dims_1: msgspec.Raw = msgspec.field(name="Input Dims", default=_ABSENT)
    dims_2: msgspec.Raw = msgspec.field(name="Input dims", default=_ABSENT)
    dims_3: msgspec.Raw = msgspec.field(name="input_dims", default=_ABSENT)
    types_1: msgspec.Raw = msgspec.field(name="Input type", default=_ABSENT)
    types_2: msgspec.Raw = msgspec.field(name="Input types", default=_ABSENT)
    types_3: msgspec.Raw = msgspec.field(name="input_type", default=_ABSENT)
    concrete_1: msgspec.Raw = msgspec.field(name="Concrete Inputs", default=_ABSENT)
    sequence_1: Any = msgspec.field(name="Sequence number", default=MISSING)
    sequence_2: Any = msgspec.field(name="Sequence Number", default=MISSING)
    correlation_1: Any = msgspec.field(name="correlation", default=MISSING)
    correlation_2: Any = msgspec.field(name="Correlation", default=MISSING)
    correlation_3: Any = msgspec.field(name="correlation id", default=MISSING)
    device_1: Any = msgspec.field(name="device", default=MISSING)
    # a kernel's launch configuration, as its JSON text (never decoded: only compared)
    grid_1: msgspec.Raw = msgspec.field(name="grid", default=_ABSENT)
    block_1: msgspec.Raw = msgspec.field(name="block", default=_ABSENT)
    registers_1: msgspec.Raw = msgspec.field(name="registers per thread", default=_ABSENT)
    shared_1: msgspec.Raw = msgspec.field(name="shared memory", default=_ABSENT)

    def op_args(self, shared: dict[tuple[bytes, ...], OpArgs | None]) -> OpArgs | None:
        """The op's shapes, decoded once per distinct text (`shared` keeps them)."""
        key = (
            bytes(_first_raw(self.dims_1, self.dims_2, self.dims_3)),
            bytes(_first_raw(self.types_1, self.types_2, self.types_3)),
            bytes(self.concrete_1),
        )
        if key not in shared:
            try:
                dims, types, concrete = (json.loads(text) if text else None for text in key)
            except ValueError as err:  # the skip of the whole text checks no UTF-8
                raise Refused from err
            shared[key] = op_args_of(dims, types, concrete)
        return shared[key]

    @property
    def sequence(self) -> Any:
        return _first(self.sequence_1, self.sequence_2)

    @property
    def correlation(self) -> Any:
        return _first(self.correlation_1, self.correlation_2, self.correlation_3)

    @property
    def device(self) -> Any:
        return _first(self.device_1)

    def launch_config(self) -> str | None:
        """grid, block, registers and shared memory as one text (None: not recorded)."""
        if not self.grid_1 or not self.block_1:
            return None
        parts = (self.grid_1, self.block_1, self.registers_1, self.shared_1)
        # the text without its layout (Kineto indents lists), as _DictArguments writes it
        return "|".join(
            bytes(part).translate(None, b" \n\t\r").decode("utf-8", "replace") for part in parts
        )


NO_ARGUMENTS = Arguments()
# What `args` may be besides an object; only an object is read.
_NotArguments = list[Any] | str | int | float | bool | None


class Event(msgspec.Struct, gc=False):
    cat: Any = None
    ph: Any = "X"
    name: Any = MISSING
    ts: Any = MISSING
    dur: Any = MISSING
    pid: Any = ""
    tid: Any = ""
    args: Arguments | _NotArguments = None

    def arguments(self) -> Arguments:
        return self.args if isinstance(self.args, Arguments) else NO_ARGUMENTS


class _Document(msgspec.Struct, gc=False):
    # Each event as a slice of the text, decoded when the reader comes to it: the records
    # of all events at once would take ~7x the text.
    traceEvents: list[msgspec.Raw]  # the trace's own key names
    deviceProperties: Any = None
    record_shapes: Any = None
    distributedInfo: Any = None


@dataclass(frozen=True)
class Header:
    """What the trace says of itself beside its events."""

    device_properties: Any
    record_shapes: Any
    distributed: Any


@dataclass
class Decoded:
    events: list[msgspec.Raw]  # in reverse order: the reader pops them, freeing each
    header: Header


_DECODER = msgspec.json.Decoder(_Document)
_EVENT = msgspec.json.Decoder(Event | _NotArguments)


def decode_event(raw: msgspec.Raw) -> Any:
    """One event's record (or the non-object value the trace has in its place). A number
    beyond what msgspec holds (an integer past 64 bits, 1e999) is read by the stdlib, as
    the general parse would."""
    try:
        return _EVENT.decode(raw)
    except _DECODE_ERRORS:
        pass
    try:
        value = json.loads(bytes(raw))
    except ValueError as err:  # not UTF-8, NaN where JSON has none: the general parse says
        raise Refused from err
    return GeneralEvent(value) if isinstance(value, dict) else value


def decode_events(raw: bytes | mmap.mmap) -> Decoded | None:
    """The trace's events as records, or None when the text is not a trace object the typed
    decoder takes (invalid JSON, NaN, the array format, traceEvents missing or not a list):
    the general parse reads those and says what is wrong."""
    try:
        document = _DECODER.decode(raw)
    except _DECODE_ERRORS:
        return None
    events = document.traceEvents
    events.reverse()
    header = Header(document.deviceProperties, document.record_shapes, document.distributedInfo)
    return Decoded(events, header)


def _spellings() -> dict[str, tuple[str, ...]]:
    """Each argument's spellings, from `Arguments`' fields (dims_1, dims_2 -> dims)."""
    found: dict[str, tuple[str, ...]] = {}
    for field in msgspec.structs.fields(Arguments):
        key = field.name.rsplit("_", 1)[0]
        found[key] = (*found.get(key, ()), field.encode_name)
    return found


_SPELLINGS = _spellings()


class _DictArguments:
    """`Arguments`' interface over an args dict of the general parse."""

    __slots__ = ("_args",)

    def __init__(self, args: dict[str, Any]) -> None:
        self._args = args

    def _get(self, key: str) -> Any:
        for spelling in _SPELLINGS[key]:
            if spelling in self._args:
                return self._args[spelling]
        return None

    def op_args(self, shared: dict[tuple[bytes, ...], OpArgs | None]) -> OpArgs | None:
        return op_args_of(self._get("dims"), self._get("types"), self._get("concrete"))

    @property
    def sequence(self) -> Any:
        return self._get("sequence")

    @property
    def correlation(self) -> Any:
        return self._get("correlation")

    @property
    def device(self) -> Any:
        return self._get("device")

    def launch_config(self) -> str | None:
        grid, block = self._get("grid"), self._get("block")
        if grid is None or block is None:
            return None
        parts = (grid, block, self._get("registers"), self._get("shared"))
        return "|".join("" if v is None else json.dumps(v, separators=(",", ":")) for v in parts)


class GeneralEvent:
    """`Event`'s interface over one event dict of the general parse."""

    __slots__ = ("_args", "cat", "dur", "name", "ph", "pid", "tid", "ts")

    def __init__(self, event: dict[str, Any]) -> None:
        self.cat = event.get("cat")
        self.ph = event.get("ph", "X")
        self.name = event.get("name", MISSING)
        self.ts = event.get("ts", MISSING)
        self.dur = event.get("dur", MISSING)
        self.pid = event.get("pid", "")
        self.tid = event.get("tid", "")
        args = event.get("args")
        self._args = args if isinstance(args, dict) else {}

    def arguments(self) -> _DictArguments:
        return _DictArguments(self._args)


EVENT_RECORDS = (Event, GeneralEvent)
