"""The fastest a measured workload's step could run on every catalog device, beside the time
measured where it was measured, and its cost where the catalog cites a rental price.

The floor is max(roofline floor, launch floor): the roofline floor is max(FLOPs / peak,
bytes / bandwidth); on a GPU, a step launched kernel by kernel from the host (PyTorch eager,
no CUDA graph) also cannot finish before its kernels have been launched, kernels ×
LAUNCH_LATENCY_S."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import polars as pl

from generator.analysis.per_workload import one_per_workload
from generator.analysis.results import Result
from generator.analysis.roofs import DATASHEET, PREFERRED, peak_key, roof_for
from generator.analysis.view_verdicts import trace_roof
from generator.analysis.views import MeasurementView, TraceView
from generator.catalog import Device
from generator.records.ceilings import MeasuredCeilings

# Host-side time to launch one kernel. PyTorch's Holistic Trace Analysis documents the CPU
# side of a launch as "usually between 5-20 microseconds"; the floor takes the low end. The
# profiled steps of the H100 runs here agree (launch_calls_measured: median about 9 µs).
LAUNCH_LATENCY_US = 5
LAUNCH_LATENCY_S = LAUNCH_LATENCY_US / 1e6
LAUNCH_LATENCY_SOURCE = (
    "https://github.com/facebookresearch/HolisticTraceAnalysis/blob/main/docs/source/"
    "features/cuda_kernel_launch_stats.rst"
)
# Training-set sizes, for cost per epoch (steps = ceil(samples / batch)).
EPOCH_SAMPLES = {"cifar10": 50_000, "cifar100": 50_000, "mnist": 60_000, "imagenet": 1_281_167}
EPOCH_NAMES = {
    "cifar10": "CIFAR-10's 50,000 training images",
    "cifar100": "CIFAR-100's 50,000 training images",
    "mnist": "MNIST's 60,000 training images",
    "imagenet": "ImageNet-1k's 1,281,167 training images",
}
COMPUTE, MEMORY, LAUNCH = "compute", "memory", "launch overhead"


@dataclass(frozen=True)
class Workload:
    label: str
    how: str  # "ncu" (counted), "modelled" (analytic FLOPs and bytes) or "trace" (from shapes)
    flops: float
    bytes: float
    peak_key: str
    dataset: str | None
    batch: int | None
    train: bool
    measured_device: str
    measured_s: float | None
    measured_bound_s: float | None  # the roofline floor on the device it was measured on
    caveat: str = ""  # error findings that make the counts incomplete
    kernels: float | None = None  # kernel launches per step, where known
    kernels_how: str = ""  # where the kernel count comes from, in words
    measured_on_gpu: bool = False
    runs: int = 1  # the ok runs pooled into a modelled workload (labelled by the first)


def bound_seconds(flops: float, nbytes: float, peak: float, bandwidth: float) -> float:
    return max(flops / peak, nbytes / bandwidth)


def launch_seconds(kernels: float) -> float:
    """The launch floor: kernels × LAUNCH_LATENCY_S (in µs first: no float noise in 7e-05)."""
    return kernels * LAUNCH_LATENCY_US / 1e6


def floor_seconds(
    flops: float, nbytes: float, peak: float, bandwidth: float, kernels: float | None
) -> tuple[float, str]:
    """max(roofline floor, launch floor) and what sets it: compute, memory or launch
    overhead (kernels None: no launch floor, as on a CPU)."""
    terms = [(flops / peak, COMPUTE), (nbytes / bandwidth, MEMORY)]
    if kernels:
        terms.append((launch_seconds(kernels), LAUNCH))
    return max(terms, key=lambda term: term[0])


def measured_floor(w: Workload) -> tuple[float | None, str | None]:
    """The floor on the device that measured the workload, with what sets it."""
    if w.measured_bound_s is None:
        return None, None
    launch = launch_seconds(w.kernels) if w.kernels and w.measured_on_gpu else 0.0
    if launch > w.measured_bound_s:
        return launch, LAUNCH
    return w.measured_bound_s, "roofline"


def workloads(
    views: list[MeasurementView],
    runs: pl.DataFrame,
    results: Mapping[str, Result],
    ceilings: list[MeasuredCeilings],
    datasets: dict[str, str],
) -> list[Workload]:
    """Imported exports with counted FLOPs and DRAM bytes, and every workload of ok runs with
    modelled ones: one per workload (its lowest run id), not one per run, since runs of a
    workload share their result (`results`: workload -> result) and a thousand repeats of
    one configuration are one row. datasets: imported folder -> dataset name (source.toml)."""
    found = []
    for view in views:
        step, device = view.step, view.match.device
        if step.flops is None or not step.dram_bytes:
            continue
        key = peak_key(step.dominant_precision or "fp32")
        # the kernel page's roof (its verdict's): the step's floor on its own device
        under, bound = view.roof, None
        if under is not None:
            bound = bound_seconds(
                step.flops, step.dram_bytes, under.peak_flops_per_s, under.bandwidth_bytes_per_s
            )
        errors = dict.fromkeys(f"finding {f.id}" for f in view.findings if f.severity == "error")
        found.append(
            Workload(
                view.title, "ncu", step.flops, step.dram_bytes, key, datasets.get(view.slug),
                view.batch, view.phase == "train_step", device.name if device else "unknown",
                step.time_s, bound, "; ".join(errors), float(step.kernels),
                "counted: the kernels in the export", True,
            )
        )  # fmt: skip
    ok = runs.filter(
        (pl.col("status") == "ok") & pl.col("modelled_flops").is_not_null()
        & pl.col("modelled_bytes").is_not_null()
    )  # fmt: skip
    for row in one_per_workload(ok, results).to_dicts():
        result = results[row["workload"]]
        key = peak_key(row["precision"])
        # The run's roof by the one rule (roofs.roof_for): measured, else datasheet.
        under = roof_for(row["device_label"], key, PREFERRED, ceilings)
        bound = None
        if under is not None:
            bound = bound_seconds(
                row["modelled_flops"], row["modelled_bytes"], under.peak_flops_per_s,
                under.bandwidth_bytes_per_s,
            )  # fmt: skip
        found.append(
            Workload(
                row["run_id"], "modelled", row["modelled_flops"], row["modelled_bytes"],
                key, row["dataset"], row["batch"],
                row["phase"] == "train_step", row["device_label"], result.step.value, bound,
                measured_on_gpu=row["device"] == "cuda", runs=len(result.runs),
            )
        )  # fmt: skip
    return found


def _seconds(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and value > 0 else None


def kernels_per_step(trace: TraceView) -> float | None:
    analysis = trace.analysis
    if not analysis.attribution.on_gpu or not analysis.kernels:
        return None
    return analysis.kernels / max(1, len(analysis.attribution.steps))


def trace_workloads(traces: list[TraceView]) -> list[Workload]:
    """Imported traces' steps: FLOPs and minimal bytes from shapes, over the counted ops."""
    found = []
    for trace in traces:
        total, device = trace.analysis.total, trace.analysis.match.device
        flops, nbytes = total["flops"], total["bytes"]
        if not isinstance(flops, float) or not isinstance(nbytes, float) or not flops or not nbytes:
            continue
        key = str(total["path"] or "fp32")
        under = trace_roof(trace.analysis)  # the trace page's (its verdict's) roof
        bound = (
            bound_seconds(flops, nbytes, under.peak_flops_per_s, under.bandwidth_bytes_per_s)
            if under
            else None
        )
        uncounted = [f for f in trace.findings if f.id in ("uncounted-ops", "missing-shapes")]
        kernels = kernels_per_step(trace)
        found.append(
            Workload(
                trace.title, "trace", flops, nbytes, key, None, None, trace.phase == "train_step",
                device.name if device else "unknown", _seconds(total["counted_time_s"]),
                bound, "; ".join(f"finding {f.id}" for f in uncounted), kernels,
                "measured: the kernels in the trace's step" if kernels else "",
                device is not None and device.kind == "gpu",
            )
        )  # fmt: skip
    return found


def _layer_estimate(trace: TraceView, train: bool) -> float | None:
    """At least one kernel per layer and phase that does arithmetic (the run's layers.csv),
    plus one for the optimizer step of a training step."""
    layers = trace.layers
    if layers is None or layers.is_empty() or "flops" not in layers.columns:
        return None
    count = layers.filter(pl.col("flops") > 0).height
    return float(count + (1 if train else 0)) if count else None


def with_launch_counts(
    items: list[Workload], traces: list[TraceView], runs: pl.DataFrame
) -> list[Workload]:
    """Each modelled run's kernels per step, from what the data has: the profiled step of a
    GPU run of the same configuration (its own runs first, then the same precision), else of the same model,
    dataset and phase at another batch (the fewest kernels: launches barely depend on the
    batch), else an estimate from the run's own layer count (_layer_estimate)."""
    config = {
        row["run_id"]: (row["model"], row["dataset"], row["batch"], row["phase"], row["precision"])
        for row in runs.to_dicts()
    }
    members: dict[str, list[str]] = {}
    for row in runs.sort("run_id").to_dicts():
        members.setdefault(row.get("workload") or row["run_id"], []).append(row["run_id"])
    siblings = {run_id: ids for ids in members.values() for run_id in ids}
    gpu: list[tuple[tuple[Any, ...], float, str]] = []
    # a run's trace by its run id (its slug is "run-<id>"; its title is the run's label)
    by_run = {t.slug.removeprefix("run-"): t for t in traces if t.kind == "run"}
    for run_id, trace in sorted(by_run.items()):
        kernels = kernels_per_step(trace)
        if kernels and run_id in config:
            gpu.append((config[run_id], kernels, run_id))
    out = []
    for w in items:
        key = config.get(w.label)
        if w.how != "modelled" or w.kernels is not None or key is None:
            out.append(w)
            continue
        same = [g for g in gpu if g[0][:4] == key[:4]]
        other = [g for g in gpu if (g[0][0], g[0][1], g[0][3]) == (key[0], key[1], key[3])]
        if same:
            own_runs = set(siblings.get(w.label, [w.label]))  # its own profile first
            config_, kernels, run_id = min(
                same, key=lambda g: (g[2] not in own_runs, g[0][4] != key[4], g[1], g[2])
            )
            how = f"measured: the profiled step of GPU run {run_id}"
            if config_[4] != key[4]:
                how += f" ({config_[4]})"
        elif other:
            config_, kernels, run_id = min(other, key=lambda g: (g[1], g[2]))
            how = f"measured: the profiled step of GPU run {run_id} (batch {config_[2]})"
        else:
            # any profiled run of the workload (its label is its first run, maybe unprofiled)
            own = next((by_run[r] for r in siblings.get(w.label, [w.label]) if r in by_run), None)
            estimate = _layer_estimate(own, w.train) if own else None
            if estimate is None:
                out.append(w)
                continue
            kernels = estimate
            how = "estimate: one kernel per layer and phase with FLOPs (+1 optimizer step)"
        out.append(replace(w, kernels=kernels, kernels_how=how))
    return out


def launch_calls_measured(traces: list[TraceView]) -> tuple[float, int] | None:
    """Median host time of a kernel-launch call (µs) over every GPU trace here, and how many
    calls: the data's own check on LAUNCH_LATENCY_S (times taken under the profiler)."""
    durations = pl.Series(
        [duration for trace in traces for duration in trace.analysis.work.launch_calls_us],
        dtype=pl.Float64,
    )  # Polars' median, the same number (250,000 calls at 1,000 runs: 9 ms, statistics' 24 ms)
    median = durations.median()
    return (float(median), len(durations)) if durations.len() else None  # type: ignore[arg-type]


def device_table(items: list[Workload], devices: tuple[Device, ...]) -> pl.DataFrame:
    """One row per workload and catalog device: the floor, what sets it, and cost per 1,000
    steps and per epoch where the catalog cites a price."""
    rows: list[dict[str, Any]] = []
    for w in items:
        steps = (
            math.ceil(EPOCH_SAMPLES[w.dataset] / w.batch)
            if w.train and w.dataset in EPOCH_SAMPLES and w.batch
            else None
        )
        for device in devices:
            # every catalog device on its datasheet (roofs.roof_for): one source for all
            roof = roof_for(device.name, w.peak_key, DATASHEET, catalog=(device,))
            peak = roof.peak_flops_per_s if roof else None
            bandwidth = roof.bandwidth_bytes_per_s if roof else 0.0
            kernels = w.kernels if device.kind == "gpu" else None
            floor, limit = (
                floor_seconds(w.flops, w.bytes, peak, bandwidth, kernels) if peak else (None, None)
            )
            price = device.price_usd_per_hour
            low = floor * price[0] / 3600 if price and floor else None
            high = floor * price[1] / 3600 if price and floor else None
            rows.append(
                {
                    "workload": w.label,
                    "how": w.how,
                    "peak": w.peak_key,
                    "device": device.name,
                    "device_id": device.id,
                    "bound_s": floor,
                    "roofline_s": bound_seconds(w.flops, w.bytes, peak, bandwidth)
                    if peak
                    else None,
                    "launch_s": launch_seconds(kernels) if kernels and peak else None,
                    "kernels": kernels,
                    "limited_by": limit,
                    "usd_per_1000_steps_low": low * 1000 if low is not None else None,
                    "usd_per_1000_steps_high": high * 1000 if high is not None else None,
                    "steps_per_epoch": steps,
                    "usd_per_epoch_low": low * steps if low is not None and steps else None,
                    "usd_per_epoch_high": high * steps if high is not None and steps else None,
                    "epoch": EPOCH_NAMES.get(w.dataset or "") if steps else None,
                }
            )  # fmt: skip
    return pl.DataFrame(
        rows,
        schema={
            "workload": pl.String, "how": pl.String, "peak": pl.String, "device": pl.String,
            "device_id": pl.String, "bound_s": pl.Float64, "roofline_s": pl.Float64,
            "launch_s": pl.Float64, "kernels": pl.Float64, "limited_by": pl.String,
            "usd_per_1000_steps_low": pl.Float64, "usd_per_1000_steps_high": pl.Float64,
            "steps_per_epoch": pl.Int64, "usd_per_epoch_low": pl.Float64,
            "usd_per_epoch_high": pl.Float64, "epoch": pl.String,
        },
    )  # fmt: skip
