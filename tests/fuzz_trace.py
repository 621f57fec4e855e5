"""Mutation fuzzing of the torch.profiler trace ingest: `nox -s fuzz` (or python -m
tests.fuzz_trace).

Starts from the real traces in tests/data/traces/ (the large A100 control trace cut to an
excerpt of its first step, so each case runs in a fraction of a second) and the trace seeds in
tests/data/fuzz-corpus/, mutates their events as parsed JSON (fields dropped, values of the
wrong type, events deleted, duplicated or shuffled, categories renamed, garbage nested in
args, `Input Dims` corrupted, ids collided, times warped, metadata broken), then sometimes
their text too (truncated, bytes flipped, tokens inserted) and sometimes gzips it (and cuts or
flips the gzip stream). Each result goes through what `summarize` does with a trace: the
summary, its --json form and its text form. One case in RANK_SHARE is a multi-rank capture
instead: one rank of the real two-rank capture (tests/data/traces/gloo_2rank/) mutated, the
other as recorded, through `summarize RANKS_FOLDER`. Every input must either give a summary or raise
UserError: any other exception is a crash, saved to tests/data/fuzz-corpus/crashes/ with a
minimized copy (events and fields removed while the same exception at the same place
persists), and the run fails. Deterministic for a given --seed; bounded by --seconds.
"""

from __future__ import annotations

import gzip
import json
import random
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from generator.errors import UserError
from generator.ingest.trace.op_table import ATTENTION, CONV, FORMULAS, MATMUL
from generator.summaries.multirank import format_multirank_summary, summarize_ranks
from generator.summaries.trace import format_trace_summary, summarize_trace
from tests.fuzz_cli import NOT_CRASHES, fuzz_main

HERE = Path(__file__).resolve().parent
TRACES = HERE / "data" / "traces"
CORPUS = HERE / "data" / "fuzz-corpus"
CRASHES = CORPUS / "crashes"
CONTROL = "hta__trace_diff_control__a100.json.gz"
EXCERPT_EVENTS = 2500  # CPU-side events kept from the control trace's first step
RANKS = TRACES / "gloo_2rank"  # a real two-rank capture: the multi-rank seeds
RANK_SHARE = 0.15  # of the cases: a capture of ranks, one of them mutated

GPU = ("kernel", "gpu_memcpy", "gpu_memset")
CATEGORIES = [
    "cpu_op", "operator", "Operator", "CPU_OP", "user_annotation", "cuda_runtime",
    "cuda_driver", "Runtime", "kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset",
    "Memset", "python_function", "ac2g", "async_cpu_to_gpu", "Trace", "", "ProfilerStep#1",
]  # fmt: skip
PHASES = ["X", "B", "E", "i", "M", "s", "f", "C", "", "x"]
FIELDS = ["name", "cat", "ph", "ts", "dur", "pid", "tid", "args", "id"]
ARGS = [
    "Input Dims", "Input type", "Concrete Inputs", "correlation", "External id",
    "Sequence number", "Fwd thread id", "device", "stream", "Input dims", "input_dims",
    "Input types", "Correlation", "External Id", "Sequence Number", "Call stack",
    "Module Hierarchy", "bytes", "grid", "block",
]  # fmt: skip
TYPES = ["float", "c10::Half", "c10::BFloat16", "double", "int", "long int", "bool",
         "Scalar", "ScalarList", "TensorList", "GenericList", "", "Tensor(a)", "complex<float>",
         "unsigned char", "c10::Float8_e4m3fn", "?"]  # fmt: skip
TEXT_TOKENS = [
    b"NaN", b"Infinity", b"-Infinity", b"1e999", b"-0", b"null", b"\x00", b"\xff", b"{", b"}",
    b"[", b"]", b",", b":", b'"', b'\\"', b"\\u0000", b"\\ud800", b"\xef\xbb\xbf", b"9" * 400,
]  # fmt: skip
OPS = ["aten::mm", "aten::addmm", "aten::bmm", "aten::conv2d", "aten::linear", "aten::matmul",
       "aten::add", "aten::relu", "aten::softmax", "aten::_convolution", "aten::baddbmm",
       "aten::scaled_dot_product_attention", "aten::embedding", "aten::layer_norm",
       "aten::cudnn_convolution", "aten::einsum", "AddmmBackward0", "ProfilerStep#5",
       "## forward ##", "aten::sum", "aten::copy_", "aten::native_batch_norm"]  # fmt: skip

# Every op the ingest has a formula for: shapes are fuzzed under these names.
FORMULA_OPS = sorted(FORMULAS)
SHAPED_OPS = sorted(MATMUL | CONV | ATTENTION)  # the ones that read concrete inputs and ranks
CONCRETE = [
    "", "0", "1", "2", "-1", "True", "False", "None", "0.5", "1e999", "[0, 0]", "[1, 1]",
    "[2, 2]", "[0]", "[-1, -1]", "[1]", "[1, 1, 1]", "['a', 'b']", "[1e999, 1]", "(1, 2)",
    "[True, True, False]", "[[1, 2]]", "10**5", "x", "[" * 200 + "]" * 200, "9" * 5000,
    "[" * 5000 + "]" * 5000,
]  # fmt: skip

Doc = Any  # a parsed trace: usually a dict with traceEvents, sometimes not any more


def _gunzip(raw: bytes) -> bytes:
    return gzip.decompress(raw) if raw.startswith(b"\x1f\x8b") else raw


def control_excerpt(raw: bytes) -> bytes:
    """The control trace's first step, cut to its first EXCERPT_EVENTS CPU-side events and
    the kernels, copies, sets and flows that their launches started."""
    doc = json.loads(raw)
    events = doc["traceEvents"]
    step = min(
        (e for e in events if str(e.get("name", "")).startswith("ProfilerStep#")),
        key=lambda e: e["ts"],
    )
    cpu = sorted(
        (
            e
            for e in events
            if e.get("ph") == "X"
            and e.get("cat") not in GPU
            and step["ts"] <= e.get("ts", -1) < step["ts"] + step["dur"]
        ),
        key=lambda e: e["ts"],
    )[:EXCERPT_EVENTS]
    correlations = {e.get("args", {}).get("correlation") for e in cpu} - {None}
    linked = [
        e
        for e in events
        if (e.get("cat") in GPU and e.get("args", {}).get("correlation") in correlations)
        or (e.get("ph") in ("s", "f") and e.get("id") in correlations)
    ]
    metadata = [e for e in events if e.get("ph") == "M"]
    doc["traceEvents"] = metadata + cpu + linked
    return json.dumps(doc).encode()


def seeds() -> list[tuple[str, bytes]]:
    """(name, plain JSON text) of every seed."""
    found = []
    for path in sorted(TRACES.glob("*.json.gz")):
        raw = _gunzip(path.read_bytes())
        found.append((path.name, control_excerpt(raw) if path.name == CONTROL else raw))
    for path in sorted(CORPUS.glob("*.json")) + sorted(CORPUS.glob("regressions/*.json")):
        data = _gunzip(path.read_bytes())
        try:
            json.loads(data)
        except ValueError:  # a regression of broken bytes (not UTF-8): nothing to mutate
            continue
        found.append((path.name, data))
    return found


# --- garbage ---


def garbage(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(22 if depth < 3 else 16)
    simple: list[Any] = [
        None, "", "12", "1.5", "-3", "abc", "ProfilerStep#x", -1, 0, 1, 2**63, -(2**70),
        1e308, float("nan"), float("inf"), True,
    ]  # fmt: skip
    if choice < len(simple):
        return simple[choice]
    if choice == 16:
        return [garbage(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if choice == 17:
        return {rng.choice(ARGS + FIELDS): garbage(rng, depth + 1) for _ in range(3)}
    if choice == 18:
        return -float("inf")
    if choice == 19:
        value: Any = 0
        for _ in range(rng.randint(1, 150)):  # deep nesting
            value = [value]
        return value
    if choice == 20:
        return "x" * rng.choice((1, 1000, 100_000))
    return rng.choice(["\u00e9\u4e2d", "\x00", "\ud800", "[1, 2]", "{}", "null"])


def _events(doc: Doc) -> list[Any] | None:
    if isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list):
        return list(doc["traceEvents"])
    if isinstance(doc, list):
        return doc
    return None


def _set_events(doc: Doc, events: list[Any]) -> Doc:
    if isinstance(doc, dict):
        doc["traceEvents"] = events
        return doc
    return events


def _pick(events: list[Any], rng: random.Random) -> dict[str, Any] | None:
    """An event, biased to the ones the ingest reads: ops with shapes, launches, kernels."""
    dicts = [e for e in events if isinstance(e, dict)]
    if not dicts:
        return None
    if rng.random() < 0.6:
        wanted = rng.choice(("cpu_op", "cuda_runtime", "kernel", "user_annotation"))
        some = [e for e in dicts if e.get("cat") == wanted]
        if some:
            return rng.choice(some)
    return rng.choice(dicts)


def _args(event: dict[str, Any]) -> dict[str, Any]:
    args = event.get("args")
    if not isinstance(args, dict):
        args = {}
        event["args"] = args
    return args


# --- structural mutations: each takes the events list and returns it ---


def drop_field(events: list[Any], rng: random.Random) -> list[Any]:
    for _ in range(rng.randint(1, 20)):
        event = _pick(events, rng)
        if event is None:
            break
        target = (
            event["args"] if isinstance(event.get("args"), dict) and rng.random() < 0.5 else event
        )
        if target:
            del target[rng.choice(list(target))]
    return events


def retype_field(events: list[Any], rng: random.Random) -> list[Any]:
    for _ in range(rng.randint(1, 10)):
        event = _pick(events, rng)
        if event is None:
            break
        if rng.random() < 0.5:
            event[rng.choice(FIELDS)] = garbage(rng)
        else:
            _args(event)[rng.choice(ARGS)] = garbage(rng)
    return events


def stringify_numbers(events: list[Any], rng: random.Random) -> list[Any]:
    """Every ts/dur/id of some events quoted, as some exporters write them."""
    for event in rng.sample(events, min(len(events), rng.randint(1, 200))):
        if isinstance(event, dict):
            for key in ("ts", "dur", "pid", "tid", "id"):
                if key in event and rng.random() < 0.7:
                    event[key] = str(event[key])
            args = event.get("args")
            if isinstance(args, dict):
                for key in ("correlation", "External id", "Sequence number", "device"):
                    if key in args:
                        args[key] = str(args[key])
    return events


def delete_events(events: list[Any], rng: random.Random) -> list[Any]:
    how = rng.randrange(3)
    if how == 0 and events:  # a slice
        start = rng.randrange(len(events))
        del events[start : start + rng.randint(1, max(1, len(events) // 4))]
        return events
    if how == 1:  # a whole category
        category = rng.choice(CATEGORIES[:12])
        return [e for e in events if not (isinstance(e, dict) and e.get("cat") == category)]
    share = rng.random()
    return [e for e in events if rng.random() > share]


def duplicate_events(events: list[Any], rng: random.Random) -> list[Any]:
    for _ in range(rng.randint(1, 30)):
        if not events:
            break
        event = rng.choice(events)
        copy = json.loads(json.dumps(event))
        events.insert(rng.randrange(len(events) + 1), copy)
    return events


def shuffle_events(events: list[Any], rng: random.Random) -> list[Any]:
    if rng.random() < 0.5:
        rng.shuffle(events)
    elif events:
        start = rng.randrange(len(events))
        window = events[start : start + rng.randint(2, 200)]
        rng.shuffle(window)
        events[start : start + len(window)] = window
    return events


def rename_category(events: list[Any], rng: random.Random) -> list[Any]:
    old, new = rng.choice(CATEGORIES), rng.choice(CATEGORIES)
    everyone = rng.random() < 0.5
    for event in events:
        if not isinstance(event, dict):
            continue
        if (everyone and event.get("cat") == old) or (not everyone and rng.random() < 0.05):
            event["cat"] = new
    return events


def garbage_args(events: list[Any], rng: random.Random) -> list[Any]:
    for _ in range(rng.randint(1, 10)):
        event = _pick(events, rng)
        if event is None:
            break
        if rng.random() < 0.3:
            event["args"] = garbage(rng)
        else:
            args = _args(event)
            for _ in range(rng.randint(1, 4)):
                args[rng.choice([*ARGS, "junk", ""])] = garbage(rng)
    return events


def _corrupt_dims(dims: Any, rng: random.Random) -> Any:
    how = rng.randrange(10)
    if how == 0 or not isinstance(dims, list) or not dims:
        return garbage(rng)
    dims = list(dims)
    index = rng.randrange(len(dims))
    if how == 1:
        dims[index] = garbage(rng)
    elif how == 2:  # a negative, zero or huge extent
        dims[index] = [rng.choice((-1, 0, 2**40, 2**62, 10**200)) for _ in range(rng.randint(0, 5))]
    elif how == 3:
        dims[index] = [rng.choice((1.5, "64", None, [2, 3], True)) for _ in range(3)]
    elif how == 4:
        dims.append([rng.randint(0, 4096) for _ in range(rng.randint(0, 6))])
    elif how == 5:
        del dims[index]
    elif how == 6:  # rank changed
        dims[index] = [rng.randint(1, 512) for _ in range(rng.randint(0, 8))]
    elif how == 7:
        dims = [[] for _ in dims]
    elif how == 8:
        dims[index] = [[rng.randint(1, 8)] * 2] * 2  # a list of lists: a TensorList
    else:
        rng.shuffle(dims)
    return dims


def corrupt_input_dims(events: list[Any], rng: random.Random) -> list[Any]:
    shaped = [
        e
        for e in events
        if isinstance(e, dict)
        and isinstance(e.get("args"), dict)
        and ("Input Dims" in e["args"] or e.get("cat") == "cpu_op")
    ]
    for event in rng.sample(shaped, min(len(shaped), rng.randint(1, 40))):
        args = event["args"]
        what = rng.randrange(5)
        if what <= 1:
            args["Input Dims"] = _corrupt_dims(args.get("Input Dims"), rng)
        elif what == 2:
            types = args.get("Input type")
            if isinstance(types, list) and types and rng.random() < 0.7:
                types = list(types)
                types[rng.randrange(len(types))] = rng.choice(TYPES)
                args["Input type"] = types
            else:
                args["Input type"] = garbage(rng)
        elif what == 3:
            args["Concrete Inputs"] = [rng.choice(CONCRETE) for _ in range(rng.randint(0, 9))]
        else:  # another op's name over these shapes
            event["name"] = rng.choice(OPS)
    return events


def _extent(rng: random.Random) -> int:
    """Mostly a plausible size; sometimes zero, negative, past int32 or past any float."""
    draw = rng.random()
    if draw < 0.02:
        return 10**200
    if draw < 0.08:
        return rng.choice((0, -1, -64))
    if draw < 0.1:
        return 2**31
    return rng.choice((1, 2, 3, 7, 16, 64, 512))


def fuzz_shapes(events: list[Any], rng: random.Random) -> list[Any]:
    """Ops renamed to ones the ingest has a formula for, with shapes, dtypes and concrete
    inputs (stride, padding, masks) that are plausible, degenerate or absurd."""
    ops = [e for e in events if isinstance(e, dict) and e.get("cat") == "cpu_op"]
    for event in rng.sample(ops, min(len(ops), rng.randint(1, 30))):
        inputs = rng.randint(0, 10)
        rank = rng.randint(0, 5)  # mostly one rank for all: what matmul, conv, attention need
        dims: list[Any] = []
        for _ in range(inputs):
            kind = rng.random()
            if kind < 0.75:
                length = rank if rng.random() < 0.7 else rng.randint(0, 5)
                dims.append([_extent(rng) for _ in range(length)])
            elif kind < 0.85:  # a tensor list
                dims.append([[_extent(rng)] * rng.randint(1, 3)] * rng.randint(1, 3))
            elif kind < 0.93:  # a scalar or an empty list
                dims.append([])
            else:
                dims.append(garbage(rng))
        event["name"] = rng.choice(FORMULA_OPS if rng.random() < 0.5 else SHAPED_OPS)
        args = _args(event)
        args["Input Dims"] = dims
        args["Input type"] = [rng.choice(TYPES) for _ in range(inputs)]
        if rng.random() < 0.8:
            args["Concrete Inputs"] = [rng.choice(CONCRETE) for _ in range(inputs)]
    return events


def collide_ids(events: list[Any], rng: random.Random) -> list[Any]:
    """Kernels pointed at other launches, several at one, launches at none."""
    dicts = [e for e in events if isinstance(e, dict) and isinstance(e.get("args"), dict)]
    ids = [e["args"]["correlation"] for e in dicts if "correlation" in e["args"]]
    ids += [rng.choice((0, -1, 2**62))]
    for event in rng.sample(dicts, min(len(dicts), rng.randint(1, 50))):
        key = rng.choice(("correlation", "External id", "Sequence number", "Fwd thread id"))
        event["args"][key] = rng.choice(ids)
    return events


def warp_times(events: list[Any], rng: random.Random) -> list[Any]:
    for _ in range(rng.randint(1, 20)):
        event = _pick(events, rng)
        if event is None:
            break
        key = rng.choice(("ts", "dur"))
        value = event.get(key, 0)
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else 0
        if not -1e300 < number < 1e300:  # a seed may already hold a number past any float
            number = 0
        event[key] = rng.choice(
            (
                -number,
                number * 1000,
                number + rng.randint(-(10**6), 10**6),
                0,
                -1,
                1e18,
                1e308,
                number + 0.5,
                float("nan"),
                float("inf"),
            )
        )
    return events


def rename_steps(events: list[Any], rng: random.Random) -> list[Any]:
    names = ["ProfilerStep#", "ProfilerStep#abc", "ProfilerStep#-1", "ProfilerStep#1",
             "ProfilerStep#99999999999999999999", "profilerstep#2", 7, None, ""]  # fmt: skip
    for event in events:
        named = isinstance(event, dict) and str(event.get("name", "")).startswith("Profiler")
        if named and rng.random() < 0.5:
            event["name"] = rng.choice(names)
    if rng.random() < 0.3 and events:  # a step range over a random span
        ts = rng.choice([e.get("ts", 0) for e in events if isinstance(e, dict)] or [0])
        events.append(
            {"ph": "X", "cat": "user_annotation", "name": rng.choice(names), "pid": 1,
             "tid": 1, "ts": ts, "dur": rng.choice((0, 1, 10**9)), "args": {}}
        )  # fmt: skip
    return events


def change_phase(events: list[Any], rng: random.Random) -> list[Any]:
    for _ in range(rng.randint(1, 30)):
        event = _pick(events, rng)
        if event is None:
            break
        event["ph"] = rng.choice(PHASES)
    return events


def foreign_events(events: list[Any], rng: random.Random) -> list[Any]:
    """Events that are not objects, or objects with nothing in them."""
    for _ in range(rng.randint(1, 3)):
        events.insert(rng.randrange(len(events) + 1), rng.choice((garbage(rng), {}, [], "x", 1)))
    return events


EVENT_MUTATIONS: list[Callable[[list[Any], random.Random], list[Any]]] = [
    drop_field, retype_field, stringify_numbers, delete_events, duplicate_events,
    shuffle_events, rename_category, garbage_args, corrupt_input_dims, corrupt_input_dims,
    fuzz_shapes, fuzz_shapes, collide_ids, warp_times, rename_steps, change_phase, foreign_events,
]  # fmt: skip


def break_metadata(doc: Doc, rng: random.Random) -> Doc:
    if not isinstance(doc, dict):
        return doc
    how = rng.randrange(8)
    if how == 0:
        doc["deviceProperties"] = garbage(rng)
    elif how == 1:
        props = doc.get("deviceProperties")
        if isinstance(props, list) and props and isinstance(props[0], dict):
            props[0][rng.choice(["name", "computeMajor", "computeMinor", "id", "numSms"])] = (
                garbage(rng)
            )
        else:
            doc["deviceProperties"] = [{"id": 0, "name": garbage(rng), "computeMajor": 8}]
    elif how == 2:
        doc["distributedInfo"] = garbage(rng)
    elif how == 3:
        doc["record_shapes"] = garbage(rng)
    elif how == 4:
        doc["traceEvents"] = garbage(rng)
    elif how == 5:  # the Chrome "array format"
        return doc.get("traceEvents", [])
    elif how == 6:
        doc[rng.choice(["schemaVersion", "displayTimeUnit", "baseTimeNanoseconds"])] = garbage(rng)
    else:
        return garbage(rng)
    return doc


def mutate_text(data: bytes, rng: random.Random) -> bytes:
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        position = rng.randrange(len(buffer) + 1)
        how = rng.randrange(4)
        if how == 0:
            buffer = buffer[:position]
        elif how == 1 and buffer:
            buffer[min(position, len(buffer) - 1)] = rng.randrange(256)
        elif how == 2:
            buffer[position:position] = rng.choice(TEXT_TOKENS)
        else:
            del buffer[position : position + rng.randint(1, 64)]
    return bytes(buffer)


def mutate(data: bytes, rng: random.Random) -> bytes:
    doc: Doc = json.loads(data)
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.12:
            doc = break_metadata(doc, rng)
            continue
        events = _events(doc)
        if events is not None:
            doc = _set_events(doc, rng.choice(EVENT_MUTATIONS)(events, rng))
    text = json.dumps(doc).encode()  # NaN / Infinity as Python's json reads them
    if rng.random() < 0.15:
        text = mutate_text(text, rng)
    if rng.random() < 0.25:
        text = gzip.compress(text, compresslevel=1, mtime=0)
        if rng.random() < 0.3:
            text = mutate_text(text, rng)
    return text


def exercise(path: Path) -> None:
    """What `summarize` does with a trace: the summary, then its --json and text forms; a
    folder is a capture of ranks (`summarize RANKS_FOLDER`)."""
    if path.is_dir():
        ranks = summarize_ranks([path], None)
        json.dumps(ranks, allow_nan=False)
        format_multirank_summary(ranks)
        return
    summary = summarize_trace(path, None)
    json.dumps(summary, allow_nan=False)
    format_trace_summary(summary)


def rank_seeds() -> list[bytes]:
    """The plain JSON text of each rank of the real two-rank capture, in rank order."""
    return [_gunzip(path.read_bytes()) for path in sorted(RANKS.glob("rank-*.json.gz"))]


def write_ranks(folder: Path, ranks: list[bytes], rng: random.Random) -> bytes:
    """The capture in `folder` with one rank mutated (sometimes under another file name, or
    missing); returns the mutated rank's bytes."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    chosen = rng.randrange(len(ranks))
    mutated = mutate(ranks[chosen], rng)
    for rank, data in enumerate(ranks):
        if rank != chosen:
            (folder / f"rank-{rank}.json").write_bytes(data)
        elif rng.random() < 0.9:
            name = rng.choice([f"rank-{rank}.json", "worker.json", f"rank_{rank + 7}.json"])
            (folder / name).write_bytes(mutated)
    return mutated


def signature(error: BaseException) -> str:
    """The exception's type and where it was raised: one crash, however often it is hit."""
    frames = traceback.extract_tb(error.__traceback__)
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    return f"{type(error).__name__} at {where}"


def crash_of(path: Path) -> str | None:
    try:
        exercise(path)
    except UserError:
        return None
    except BaseException as error:  # a library's panic too (fuzz_cli.NOT_CRASHES)
        if isinstance(error, NOT_CRASHES):
            raise
        return signature(error)
    return None


def minimize(data: bytes, wanted: str, scratch: Path) -> bytes:
    """Fewer events, fewer fields, the same crash (when the input is still JSON)."""
    try:
        doc = json.loads(_gunzip(data))
    except (ValueError, OSError, EOFError):
        return data

    def still(candidate: Doc) -> bool:
        scratch.write_bytes(json.dumps(candidate).encode())
        return crash_of(scratch) == wanted

    if not still(doc):
        return data
    events = _events(doc)
    if events is not None:
        chunk = max(1, len(events) // 2)
        while chunk >= 1:
            index = 0
            while index < len(events):
                trial = events[:index] + events[index + chunk :]
                if still(_set_events(doc, trial)):
                    events = trial
                else:
                    index += chunk
            chunk //= 2
        doc = _set_events(doc, events)
        for event in events:
            if not isinstance(event, dict):
                continue
            for key in list(event):
                value = event.pop(key)
                if not still(doc):
                    event[key] = value
            args = event.get("args")
            if isinstance(args, dict):
                for key in list(args):
                    value = args.pop(key)
                    if not still(doc):
                        args[key] = value
    if isinstance(doc, dict):
        for key in [k for k in doc if k != "traceEvents"]:
            value = doc.pop(key)
            if not still(doc):
                doc[key] = value
    still(doc)
    return json.dumps(doc).encode()


def fuzz(
    seconds: float, seed: int, max_cases: int | None = None, save: bool = True
) -> tuple[int, dict[str, list[Path]]]:
    """Run until the time (or case) budget is spent; return the cases run and, per crash
    signature, the files it was saved to (the first input, then its minimized form; none
    for a seed of the corpus that crashes as it is)."""
    rng = random.Random(seed)
    crashes: dict[str, list[Path]] = {}
    hits: dict[str, int] = {}
    deadline = time.monotonic() + seconds
    cases = 0
    with tempfile.TemporaryDirectory(prefix="ra-fuzz-trace-") as folder:
        target = Path(folder) / "input.json"
        scratch = Path(folder) / "scratch.json"
        corpus = []
        for name, data in seeds():
            # A regression whose crash is still open is a crash (the run fails), but not a
            # seed: its mutations would only find it again.
            target.write_bytes(data)
            known = crash_of(target)
            if known is None:
                corpus.append((name, data))
            else:
                crashes.setdefault(known, [])
                print(f"crash ({known}): seed {name} still crashes", file=sys.stderr)
        slowest = (0.0, "", 0)
        ranks, capture = rank_seeds(), Path(folder) / "ranks"
        while time.monotonic() < deadline and (max_cases is None or cases < max_cases):
            name, seed_data = rng.choice(corpus)
            if rng.random() < RANK_SHARE:
                name, case = "gloo_2rank", capture
                data = write_ranks(capture, ranks, rng)
            else:
                case = target
                data = mutate(seed_data, rng)
                target.write_bytes(data)
            cases += 1
            started = time.monotonic()
            key = None
            try:
                exercise(case)
            except UserError:
                pass
            except BaseException as error:  # a library's panic too (fuzz_cli.NOT_CRASHES)
                if isinstance(error, NOT_CRASHES):
                    raise
                key = signature(error)
                hits[key] = hits.get(key, 0) + 1
                if key not in crashes:
                    print(f"crash ({key}) from {name}:\n{traceback.format_exc()}", file=sys.stderr)
            slowest = max(slowest, (time.monotonic() - started, name, cases))
            if key is None or key in crashes:
                continue
            crashes[key] = []
            if save:
                CRASHES.mkdir(parents=True, exist_ok=True)
                suffix = ".json.gz" if data.startswith(b"\x1f\x8b") else ".json"
                crash = CRASHES / f"trace-crash-{seed}-{cases}{suffix}"
                crash.write_bytes(data)
                if case.is_dir():  # the mutated rank; the others are the recorded ones
                    crashes[key] = [crash]
                    print(f"saved: {crash} (a rank of {RANKS})", file=sys.stderr)
                    continue
                small = crash.with_name(f"trace-crash-{seed}-{cases}-min.json")
                small.write_bytes(minimize(data, key, scratch))
                crashes[key] = [crash, small]
                print(f"saved: {crash}\n       {small}", file=sys.stderr)
    for key, count in hits.items():
        print(f"crash {key}: hit {count} time(s)", file=sys.stderr)
    print(
        f"slowest input: {slowest[0]:.2f} s (case {slowest[2]}, from {slowest[1]})", file=sys.stderr
    )
    return cases, crashes


def main(argv: list[str] | None = None) -> int:
    return fuzz_main(__doc__ or "", fuzz, "fuzz (traces)", argv, seconds=120.0)


if __name__ == "__main__":
    sys.exit(main())
