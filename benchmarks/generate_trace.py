"""Large torch.profiler traces, made deterministically from a real one.

The real control trace (an A100 training run: 6 ProfilerSteps, 40k ops, 8.6k kernels) is cut
into one block of events per ProfilerStep: the CPU-side events that start inside the step's
window, and the GPU events (kernels, memcpy, memset) and flow arrows whose correlation id
belongs to a launch in it, so every kernel stays with its launch. Blocks are then written one
after the other, cycling through the steps, until the file reaches the requested size. Copy
`c` of a step is shifted by `c` times the source's whole time span, its `correlation` /
`External id` / flow ids and autograd `Sequence number`s are offset past every id of the
earlier copies, and its step is renamed `ProfilerStep#<next number>`: each kernel still joins
to exactly one launch, each step is distinct. The events outside every step (the profiler's
metadata, its warm-up and tail) are written once, unchanged.

The file is laid out as Kineto writes it (the metadata first, one event per line), so a
line-oriented reader such as HTA's rank detection sees what it sees in a real trace.
"""

from __future__ import annotations

import bisect
import gzip
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.generate import REPO, source_label

DEFAULT_TRACE_SOURCE = REPO / "tests" / "data" / "traces" / "hta__trace_diff_control__a100.json.gz"
GPU_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset"}
LAUNCH_CATEGORIES = {"cuda_runtime", "cuda_driver"}
ID_ARGS = ("correlation", "External id")
STEP_PREFIX = "ProfilerStep#"
LAYOUT_VERSION = 1  # bump when the layout changes: stale generated files are rewritten


@dataclass(frozen=True)
class Blocks:
    header: dict[str, Any]  # every top-level key but traceEvents, in the source's order
    outside: list[dict[str, Any]]  # events in no step: written once
    steps: list[list[dict[str, Any]]]  # one block per ProfilerStep, in time order
    step_numbers: list[int]
    period_us: float  # the source's whole span: copy c is shifted by c times this
    id_span: int  # past every correlation / External id / flow id
    sequence_span: int  # past every autograd sequence number


def _load(source: Path) -> dict[str, Any]:
    raw = source.read_bytes()
    if raw.startswith(b"\x1f\x8b"):
        raw = gzip.decompress(raw)
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise SystemExit(f"{source}: expected a JSON object with traceEvents")
    return data


def split_steps(source: Path = DEFAULT_TRACE_SOURCE) -> Blocks:
    data = _load(source)
    events: list[dict[str, Any]] = data["traceEvents"]
    header = {k: v for k, v in data.items() if k != "traceEvents"}
    steps = sorted(
        (
            e
            for e in events
            if e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith(STEP_PREFIX)
        ),
        key=lambda e: float(e["ts"]),
    )
    if not steps:
        raise SystemExit(f"{source}: no {STEP_PREFIX} ranges to replicate")
    starts = [float(s["ts"]) for s in steps]
    last_end = float(steps[-1]["ts"]) + float(steps[-1]["dur"])

    def step_at(ts: Any) -> int | None:
        if not isinstance(ts, int | float) or ts < starts[0] or ts >= last_end:
            return None
        return bisect.bisect_right(starts, ts) - 1

    # Launches decide where their kernels (and flow arrows) go.
    by_correlation: dict[int, int | None] = {}
    for e in events:
        args = e.get("args") or {}
        if e.get("cat") in LAUNCH_CATEGORIES and isinstance(args.get("correlation"), int):
            by_correlation[args["correlation"]] = step_at(e.get("ts"))
    outside: list[dict[str, Any]] = []
    blocks: list[list[dict[str, Any]]] = [[] for _ in steps]
    ids = [0]
    sequences = [0]
    for e in events:
        args = e.get("args") or {}
        for key in ID_ARGS:
            if isinstance(args.get(key), int):
                ids.append(args[key])
        if isinstance(e.get("id"), int):
            ids.append(e["id"])
        if isinstance(args.get("Sequence number"), int):
            sequences.append(args["Sequence number"])
        if e.get("cat") in GPU_CATEGORIES and isinstance(args.get("correlation"), int):
            index = by_correlation.get(args["correlation"], step_at(e.get("ts")))
        elif e.get("ph") in ("s", "f") and isinstance(e.get("id"), int):
            index = by_correlation.get(e["id"], step_at(e.get("ts")))
        elif e.get("ph") == "M":
            index = None
        else:
            index = step_at(e.get("ts"))
        (outside if index is None else blocks[index]).append(e)
    times = [
        (float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0)))
        for e in events
        if isinstance(e.get("ts"), int | float)
    ]
    period = max(end for _, end in times) - min(start for start, _ in times) + 1000.0
    return Blocks(
        header=header,
        outside=outside,
        steps=blocks,
        step_numbers=[int(s["name"][len(STEP_PREFIX) :]) for s in steps],
        period_us=float(int(period)),
        id_span=max(ids) + 1,
        sequence_span=max(sequences) + 1,
    )


def shifted(
    event: dict[str, Any], copy: int, blocks: Blocks, step_name: str | None
) -> dict[str, Any]:
    """`event` as it appears in copy `copy` (copy 0 is the source itself, renamed)."""
    out = dict(event)
    if copy:
        if isinstance(out.get("ts"), int | float):
            out["ts"] = out["ts"] + copy * blocks.period_us
            if isinstance(event["ts"], int):
                out["ts"] = int(out["ts"])
        if isinstance(out.get("id"), int):
            out["id"] = out["id"] + copy * blocks.id_span
        args = event.get("args")
        if isinstance(args, dict):
            args = dict(args)
            for key in ID_ARGS:
                if isinstance(args.get(key), int):
                    args[key] = args[key] + copy * blocks.id_span
            if isinstance(args.get("Sequence number"), int):
                args["Sequence number"] = args["Sequence number"] + copy * blocks.sequence_span
            out["args"] = args
    if (
        step_name is not None
        and out.get("cat") == "user_annotation"
        and str(out.get("name", "")).startswith(STEP_PREFIX)
    ):
        out["name"] = step_name
    return out


def _lines(events: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(e) for e in events]


def generate_trace(
    target: Path, size_bytes: int, source: Path = DEFAULT_TRACE_SOURCE
) -> dict[str, Any]:
    """Write a trace of at least `size_bytes` (at least one step) to `target`; return what it
    holds. Reused when `target` already holds that size from that source."""
    stamp = target.parent / (target.name + ".stamp")
    label = f"{size_bytes} {source_label(source)} v{LAYOUT_VERSION}"
    if target.exists() and stamp.exists():
        recorded = json.loads(stamp.read_text())
        if recorded.get("label") == label:
            return dict(recorded["content"])
    blocks = split_steps(source)
    head = "{\n" + "".join(
        f"  {json.dumps(k)}: {json.dumps(v)},\n" for k, v in blocks.header.items()
    )
    head += '  "traceEvents": [\n'
    tail = "\n  ]\n}\n"
    outside = _lines(blocks.outside)
    written = len(head) + len(tail) + sum(len(line) + 4 for line in outside)
    chunks: list[list[str]] = [outside]
    steps = 0
    kernels = sum(1 for e in blocks.outside if e.get("cat") == "kernel")
    first = blocks.step_numbers[0]
    while written < size_bytes or steps == 0:
        copy, index = divmod(steps, len(blocks.steps))
        name = f"{STEP_PREFIX}{first + steps}"
        block = blocks.steps[index]
        lines = _lines([shifted(e, copy, blocks, name) for e in block])
        kernels += sum(1 for e in block if e.get("cat") == "kernel")
        written += sum(len(line) + 4 for line in lines)
        chunks.append(lines)
        steps += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(target.name + ".tmp")
    with temp.open("w", encoding="utf-8") as out:
        out.write(head)
        out.write(",\n".join("  " + line for chunk in chunks for line in chunk))
        out.write(tail)
    os.replace(temp, target)
    content = {
        "steps": steps,
        "kernels": kernels,
        "events": sum(len(chunk) for chunk in chunks),
        "bytes": target.stat().st_size,
    }
    stamp.write_text(json.dumps({"label": label, "content": content}) + "\n")
    return content
