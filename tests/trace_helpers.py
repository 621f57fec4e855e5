"""Small synthetic torch.profiler traces, written the way Kineto writes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REAL_TRACES = Path(__file__).parent / "data" / "traces"


def op(
    name: str, ts: float, dur: float, dims: list[Any] | None = None, **args: Any
) -> dict[str, Any]:
    event_args: dict[str, Any] = dict(args)
    if dims is not None:
        event_args["Input Dims"] = dims
        event_args.setdefault("Input type", ["float" if d else "Scalar" for d in dims])
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur,
            "args": event_args}  # fmt: skip


def user_range(name: str, ts: float, dur: float) -> dict[str, Any]:
    return {"ph": "X", "cat": "user_annotation", "name": name, "pid": 1, "tid": 1, "ts": ts,
            "dur": dur, "args": {}}  # fmt: skip


def launch(ts: float, correlation: int) -> dict[str, Any]:
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
            "ts": ts, "dur": 1, "args": {"correlation": correlation}}  # fmt: skip


def kernel(name: str, ts: float, dur: float, correlation: int) -> dict[str, Any]:
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"correlation": correlation, "device": 0, "stream": 7}}  # fmt: skip


A100_PROPERTIES = [{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "computeMajor": 8,
                    "computeMinor": 0, "warpSize": 32, "numSms": 108}]  # fmt: skip


def write_trace(path: Path, events: list[dict[str, Any]], **top: Any) -> Path:
    path.write_text(json.dumps({"schemaVersion": 1, **top, "traceEvents": events}))
    return path
