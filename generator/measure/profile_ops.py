"""One extra step under torch.profiler: the op table per phase (`ops.csv`) and the trace
itself (`trace.json.gz`, shapes recorded, every module call a named range).

Ops are assigned to the phase whose marked range contains their start time, which also
catches backward ops that autograd runs on its own thread (a parent-based assignment
would lose them, the way per-thread NVTX ranges lose them under ncu)."""

from __future__ import annotations

import gzip
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

import torch
from torch.autograd.profiler import record_function
from torch.profiler import ProfilerActivity, profile, schedule

from generator.ingest.trace.labels import LAYER_PREFIX, STEP_PREFIX
from generator.measure.layer_ranges import layer_ranges
from generator.measure.step import PHASE_LABEL, Workload, inference_guard
from generator.records.run_parts import OpRow


def profile_step(workload: Workload, trace_path: Path | None = None) -> list[OpRow]:
    """Profile one step; write its gzipped Chrome trace to `trace_path` when given."""
    activities = [ProfilerActivity.CPU]
    if workload.config.device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    actions = workload.phases()
    # one step, profiled whole: the warmup the profiler asks for is the timed steps before it
    warnings.filterwarnings("ignore", message="Profiler won't be using warmup")
    with (
        inference_guard(workload.config),
        # one active step: the profiler itself marks it ProfilerStep#0
        profile(
            activities=activities,
            record_shapes=True,
            schedule=schedule(wait=0, warmup=0, active=1, repeat=1),
        ) as profiler,
        layer_ranges(workload.model),
    ):
        for name, action in actions:
            with record_function(PHASE_LABEL + name):
                action()
        if workload.config.device == "cuda":
            torch.cuda.synchronize()
        # no profiler.step(): leaving the block closes ProfilerStep#0 and keeps its events
    if trace_path is not None:
        _export(profiler, trace_path)
    return aggregate(profiler.events())


def _export(profiler: Any, trace_path: Path) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        plain = Path(scratch) / "trace.json"
        profiler.export_chrome_trace(str(plain))
        with plain.open("rb") as source, gzip.open(trace_path, "wb", compresslevel=6) as target:
            shutil.copyfileobj(source, target)


def aggregate(events: Any) -> list[OpRow]:
    windows = [
        (event.name.removeprefix(PHASE_LABEL), event.time_range.start, event.time_range.end)
        for event in events
        if event.name.startswith(PHASE_LABEL)
    ]
    table: dict[tuple[str, str, str], OpRow] = {}
    for event in events:
        if event.name.startswith(PHASE_LABEL) or event.name.startswith((LAYER_PREFIX, STEP_PREFIX)):
            continue
        start = event.time_range.start
        phase = next((name for name, lo, hi in windows if lo <= start <= hi), "other")
        shapes = str(event.input_shapes) if event.input_shapes else ""
        key = (phase, event.name, shapes)
        row = table.setdefault(
            key,
            {
                "phase": phase,
                "op": event.name,
                "input_shapes": shapes,
                "calls": 0,
                "self_time_s": 0.0,
                "total_time_s": 0.0,
                "self_device_time_s": 0.0,
            },
        )
        row["calls"] += 1
        row["self_time_s"] += event.self_cpu_time_total / 1e6
        row["total_time_s"] += event.cpu_time_total / 1e6
        row["self_device_time_s"] += getattr(event, "self_device_time_total", 0.0) / 1e6
    for row in table.values():  # microsecond sums: drop float noise below a nanosecond
        for column in ("self_time_s", "total_time_s", "self_device_time_s"):
            row[column] = round(row[column], 9)
    order = {name: index for index, name in enumerate((*(w[0] for w in windows), "other"))}
    return sorted(table.values(), key=lambda r: (order.get(r["phase"], 99), -r["self_time_s"]))
