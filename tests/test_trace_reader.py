"""The trace reader's two paths: the typed decode (slim records, shapes shared) that reads
every well-formed trace, and the general JSON parse that reads what it refuses. Both must
give the same tables, on real traces and on the odd input the general path exists for."""

from __future__ import annotations

import gc
import json
from dataclasses import fields
from pathlib import Path

import orjson
import pytest

from generator.errors import UserError
from generator.ingest.trace.events import decode_events
from generator.ingest.trace.read import RawTrace, _read_bytes, _read_general, read_trace
from tests.trace_helpers import REAL_TRACES, kernel, launch, op, write_trace

REAL = sorted(p.name for p in REAL_TRACES.glob("*.json.gz"))


def _tables(trace: RawTrace) -> dict[str, object]:
    return {f.name: getattr(trace, f.name) for f in fields(trace) if f.name != "path"}


@pytest.mark.parametrize("name", REAL)
def test_typed_decode_reads_real_traces_as_the_general_parse_does(name: str) -> None:
    path = REAL_TRACES / name
    raw = _read_bytes(path)
    assert decode_events(raw) is not None, "a real trace fell back to the general parse"
    typed = read_trace(path)
    general = _read_general(path, orjson.loads(raw))
    assert _tables(typed) == _tables(general)
    assert len(typed.ops) + len(typed.kernels) > 0


def test_ops_with_the_same_shapes_share_one_record(tmp_path: Path) -> None:
    events = [op("aten::mm", ts=10.0 * i, dur=5.0, dims=[[64, 32], [32, 16]]) for i in range(50)]
    events.append(op("aten::mm", ts=600.0, dur=5.0, dims=[[8, 8], [8, 8]]))
    trace = read_trace(write_trace(tmp_path / "t.json", events))
    assert len(trace.ops) == 51
    assert len({id(a) for a in trace.ops.args}) == 2
    assert trace.ops.args[0] is not None and trace.ops.args[0].dims == [[64, 32], [32, 16]]


def test_input_the_typed_decode_refuses_is_read_by_the_general_parse(tmp_path: Path) -> None:
    """NaN in an unused field and a lone surrogate in a name: not JSON msgspec takes."""
    events = [op("aten::mm", ts=1.0, dur=2.0, dims=[[4, 4], [4, 4]]), kernel("k", 3.0, 1.0, 7)]
    events.append(launch(2.0, 7))
    text = json.dumps({"traceEvents": events, "extra": float("nan")})
    text = text.replace('"name": "k"', '"name": "k\\ud800"')
    path = tmp_path / "odd.json"
    path.write_text(text)
    assert decode_events(path.read_bytes()) is None
    trace = read_trace(path)
    assert len(trace.ops) == 1 and len(trace.kernels) == 1
    assert trace.kernels.name[0] == "k?"


def test_the_garbage_collector_is_left_as_it_was(tmp_path: Path) -> None:
    good = write_trace(tmp_path / "t.json", [op("aten::relu", ts=1.0, dur=1.0)])
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [{"cat": "cpu_op", "ph": "X", "name": "x", "ts": 1}]}')
    assert gc.isenabled()
    read_trace(good)
    assert gc.isenabled()
    with pytest.raises(UserError, match="has no 'dur'"):
        read_trace(bad)
    assert gc.isenabled()
    gc.disable()
    try:
        read_trace(good)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_numbers_beyond_the_typed_decoder_are_read_as_the_stdlib_reads_them(
    tmp_path: Path,
) -> None:
    """An integer past 64 bits in one event's args, and a ts of 1e999: the event is read by
    the stdlib (the first is kept, the second is a UserError naming the event)."""
    big = '{"cat": "cpu_op", "ph": "X", "name": "aten::relu", "ts": 1, "dur": 1, "pid": 1, '
    big += '"tid": 1, "args": {"Sequence number": 123456789012345678901234567890}}'
    path = tmp_path / "big.json"
    path.write_text('{"traceEvents": [' + big + "]}")
    trace = read_trace(path)
    assert trace.ops.sequence == [123456789012345678901234567890]
    path.write_text('{"traceEvents": [' + big.replace('"ts": 1,', '"ts": 1e999,') + "]}")
    with pytest.raises(UserError, match=r"traceEvents\[0\] has a non-finite ts"):
        read_trace(path)


@pytest.mark.parametrize("name", REAL)
def test_a_plain_trace_is_mapped_and_released_as_it_is_read(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain JSON trace is read from a mapping of the file whose pages are handed back
    as the reader passes them (every 4 kB here): the tables are the gzip copy's."""
    import gzip

    from generator.ingest.trace import read

    plain = tmp_path / "trace.json"
    plain.write_bytes(gzip.decompress((REAL_TRACES / name).read_bytes()))
    monkeypatch.setattr(read._Release, "EVERY", 4096)
    assert _tables(read_trace(plain)) == _tables(read_trace(REAL_TRACES / name))
