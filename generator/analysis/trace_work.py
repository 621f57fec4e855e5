"""A profiler trace's work, analysed once and kept: what its roofline is made from, without
the roof.

Reading a trace and attributing its time to ops is most of what a trace costs a build
(~0.2 s a run trace, seconds for a 100 MB one); placing that work on a roof is
milliseconds. So the first part is a `TraceWork` (the work table, one row per kernel or op
self time with its FLOPs and bytes, and the few counts the pages and checks read), which
`measure` and `import` write beside the trace as `trace-analysis.parquet` and the site
reads instead of the trace. The roof is applied at every build (`analysis_of_work`): new
ceilings or a catalog fix never leave a stored number behind.

The file records the trace's digest and `WORK_VERSION`. A file whose digest or version
differs is never read: the trace is analysed again, and the build says how many were out
of date and how to write them anew (`python -m generator trace-work`).
"""

from __future__ import annotations

import io
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from generator.analysis.trace_launch import TraceLaunch, trace_launch
from generator.atomic import write_bytes
from generator.ingest.digests import file_digest
from generator.ingest.trace.attribute import BACKWARD_NODE, Attribution, attribute
from generator.ingest.trace.labels import PHASE_PREFIX
from generator.ingest.trace.read import RawTrace, read_trace

# Bump when the work table or the counts change meaning (a new formula, a new column):
# every stored file is then out of date, and read again from its trace.
# 2: attention masks, destinations, lookups, memory ops, full square; 3: FBGEMM's TBE;
# 4: the host's launch time beside the GPU's busy time per profiled step (trace_launch.py);
# 5: memcpy/memset time (the whole the shares are of), gloo's communication,
# "no shapes recorded"; 6: bool comparisons, reduction outputs, mse_loss, layer norm's
# statistics, SiLU at 4, inductor kernels written over an input, DeepEP's dispatch/combine
# 7: a kernel no op launched named by its family, "(no op: optimizer)"
# 8: bounded costs (a cat's dtype from the ops beside it), counted apart
# 9: "compiled region", a torch.compile region's kernels apart from "no formula"
# 10: FBGEMM's TBE over tables of mixed widths bounded (flops_upper, bytes_upper)
# 11: a tensor list whose shapes were not recorded is "no usable shapes", not a 0-d tensor
WORK_VERSION = 11
WORK_FILE = "trace-analysis.parquet"
WORK_KEY = "roofline-atlas:trace-work"  # the Parquet metadata key of the rest
LAUNCH_CALLS = frozenset({"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel"})


@dataclass(frozen=True)
class TraceWork:
    """A trace's work without its roof: all that the roofline, the pages and the checks
    read of the trace itself."""

    points: pl.DataFrame  # trace_roofline.work_points: one row per work item
    on_gpu: bool
    steps: tuple[str, ...]  # ProfilerStep#N ranges, in time order
    ops: int
    ops_with_shapes: int
    backward_ops: int  # autograd engine nodes: a training step's backward pass
    kernels: dict[str, int]  # kernel name -> launches (the device is matched from the names)
    kernel_devices: dict[int, int]  # GPU index -> kernels that ran on it
    launch_calls_us: tuple[float, ...]  # host time of each kernel-launch call
    forward_range_s: float | None  # the `phase:forward` range, when the trace marks one
    launch: TraceLaunch  # the host's enqueue time beside the GPU's busy time, per step
    device_properties: list[dict[str, Any]]
    record_shapes: bool | None
    distributed: dict[str, Any]
    categories: dict[str, int]
    copies_s: float = 0.0  # memcpy and memset time on the GPU: part of its busy time

    @property
    def kernel_count(self) -> int:
        return sum(self.kernels.values())


def work_of(trace: RawTrace, attribution: Attribution, points: pl.DataFrame) -> TraceWork:
    forward = [
        d for n, d in zip(trace.ranges.name, trace.ranges.dur, strict=True)
        if n == PHASE_PREFIX + "forward"
    ]  # fmt: skip
    return TraceWork(
        points=points,
        on_gpu=attribution.on_gpu,
        steps=attribution.steps,
        ops=len(trace.ops),
        ops_with_shapes=attribution.ops_with_shapes,
        backward_ops=sum(1 for name in trace.ops.name if name.startswith(BACKWARD_NODE)),
        kernels=dict(Counter(trace.kernels.name)),
        kernel_devices=dict(Counter(d for d in trace.kernels.device if d is not None)),
        launch_calls_us=_launch_calls(trace),
        forward_range_s=forward[0] * 1e-6 if forward else None,
        launch=trace_launch(trace),
        device_properties=trace.device_properties,
        record_shapes=trace.record_shapes,
        distributed=trace.distributed,
        categories=trace.categories,
        copies_s=(sum(trace.memcpy.dur) + sum(trace.memset.dur)) * 1e-6,
    )


def _launch_calls(trace: RawTrace) -> tuple[float, ...]:
    launches = zip(trace.launches.name, trace.launches.dur, strict=True)
    return tuple(duration for name, duration in launches if name in LAUNCH_CALLS)


def analyse_work(path: Path) -> TraceWork:
    """Read and attribute one trace (the expensive part)."""
    from generator.analysis.trace_roofline import work_points

    trace = read_trace(path)
    attribution = attribute(trace)
    return work_of(trace, attribution, work_points(attribution))


def _metadata(work: TraceWork, digest: str) -> dict[str, Any]:
    return {
        "version": WORK_VERSION,
        "trace_digest": digest,
        "on_gpu": work.on_gpu,
        "steps": list(work.steps),
        "ops": work.ops,
        "ops_with_shapes": work.ops_with_shapes,
        "backward_ops": work.backward_ops,
        "kernels": work.kernels,
        "kernel_devices": {str(k): v for k, v in work.kernel_devices.items()},
        "launch_calls_us": list(work.launch_calls_us),
        "forward_range_s": work.forward_range_s,
        "launch": work.launch.as_json(),
        "device_properties": work.device_properties,
        "record_shapes": work.record_shapes,
        "distributed": work.distributed,
        "categories": work.categories,
        "copies_s": work.copies_s,
    }


def work_bytes(work: TraceWork, trace: Path) -> bytes:
    """The stored form: the work table as Parquet, the rest as JSON in its metadata, with
    the trace's digest and the version."""
    text = json.dumps(_metadata(work, file_digest(trace)), separators=(",", ":"))
    buffer = io.BytesIO()
    work.points.write_parquet(buffer, metadata={WORK_KEY: text})
    return buffer.getvalue()


def write_work(work: TraceWork, trace: Path, folder: Path) -> Path:
    """`folder/trace-analysis.parquet` for the trace, written atomically."""
    path = folder / WORK_FILE
    write_bytes(path, work_bytes(work, trace))
    return path


def _stored(folder: Path, trace: Path) -> tuple[str, dict[str, Any]]:
    """The stored file's state ('current', 'missing' or why it is out of date) and, when
    readable, its metadata (read once: the footer only)."""
    path = folder / WORK_FILE
    if not path.is_file():
        return "missing", {}
    try:
        meta = json.loads(pl.read_parquet_metadata(path)[WORK_KEY])
    except Exception:  # unreadable, torn, or not ours: computed again, never trusted
        return "unreadable", {}
    if meta.get("version") != WORK_VERSION:
        return f"version {meta.get('version')}, now {WORK_VERSION}", meta
    if meta.get("trace_digest") != file_digest(trace):
        return "the trace changed", meta
    return "current", meta


def stored_state(folder: Path, trace: Path) -> str:
    """'current', 'missing' or why the stored file is out of date (its metadata only)."""
    return _stored(folder, trace)[0]


def read_work(folder: Path, trace: Path) -> TraceWork | None:
    """The stored work of `trace`, or None when there is none that is current."""
    state, meta = _stored(folder, trace)
    if state != "current":
        return None
    return TraceWork(
        points=pl.read_parquet(folder / WORK_FILE),
        on_gpu=bool(meta["on_gpu"]),
        steps=tuple(meta["steps"]),
        ops=int(meta["ops"]),
        ops_with_shapes=int(meta["ops_with_shapes"]),
        backward_ops=int(meta["backward_ops"]),
        kernels={str(k): int(v) for k, v in meta["kernels"].items()},
        kernel_devices={int(k): int(v) for k, v in meta["kernel_devices"].items()},
        launch_calls_us=tuple(float(d) for d in meta["launch_calls_us"]),
        forward_range_s=meta["forward_range_s"],
        launch=TraceLaunch.from_json(meta["launch"]),
        device_properties=meta["device_properties"],
        record_shapes=meta["record_shapes"],
        distributed=meta["distributed"],
        categories={str(k): int(v) for k, v in meta["categories"].items()},
        copies_s=float(meta["copies_s"]),
    )


def work(trace: Path, folder: Path) -> TraceWork:
    """The trace's work: stored beside it when current, else analysed from the trace."""
    return read_work(folder, trace) or analyse_work(trace)
