"""One extra step under torch.profiler: the op table per phase (`ops.csv`).

Ops are assigned to the phase whose marked range contains their start time, which also
catches backward ops that autograd runs on its own thread (a parent-based assignment
would lose them, the way per-thread NVTX ranges lose them under ncu)."""

from __future__ import annotations

from typing import Any

import torch
from torch.autograd.profiler import record_function
from torch.profiler import ProfilerActivity, profile

from generator.measure.step import PHASE_LABEL, Workload, inference_guard


def profile_step(workload: Workload) -> list[dict[str, Any]]:
    activities = [ProfilerActivity.CPU]
    if workload.config.device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    actions = workload.phases()
    with (
        inference_guard(workload.config),
        profile(activities=activities, record_shapes=True) as profiler,
    ):
        for name, action in actions:
            with record_function(PHASE_LABEL + name):
                action()
        if workload.config.device == "cuda":
            torch.cuda.synchronize()
    return aggregate(profiler.events())


def aggregate(events: Any) -> list[dict[str, Any]]:
    windows = [
        (event.name.removeprefix(PHASE_LABEL), event.time_range.start, event.time_range.end)
        for event in events
        if event.name.startswith(PHASE_LABEL)
    ]
    table: dict[tuple[str, str, str], dict[str, Any]] = {}
    for event in events:
        if event.name.startswith(PHASE_LABEL):
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
