"""Roofline-bound step time of every measured workload on every catalog device:
max(FLOPs / peak, bytes / bandwidth), beside the time measured where it was measured, and
cost per step and per epoch where the catalog cites a rental price."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import polars as pl

from generator.analysis.roofline import PEAK_FOR_PRECISION
from generator.analysis.views import MeasurementView, TraceView
from generator.catalog import Device
from generator.records.ceilings import MeasuredCeilings

# Training-set sizes, for cost per epoch (steps = ceil(samples / batch)).
EPOCH_SAMPLES = {"cifar10": 50_000, "cifar100": 50_000, "mnist": 60_000, "imagenet": 1_281_167}
RUN_PRECISION_PEAK = {"fp32": "fp32", "tf32": "tf32_tensor", "bf16-amp": "bf16_tensor",
                      "fp16-amp": "fp16_tensor"}  # fmt: skip


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
    measured_bound_s: float | None  # the bound on the device it was measured on
    caveat: str = ""  # error findings that make the counts incomplete


def bound_seconds(flops: float, nbytes: float, peak: float, bandwidth: float) -> float:
    return max(flops / peak, nbytes / bandwidth)


def workloads(
    views: list[MeasurementView],
    runs: pl.DataFrame,
    ceilings: list[MeasuredCeilings],
    datasets: dict[str, str],
) -> list[Workload]:
    """Imported exports with counted FLOPs and DRAM bytes, and every ok run with modelled ones.
    datasets: imported folder -> dataset name (from its source.toml)."""
    found = []
    for view in views:
        step, device = view.step, view.match.device
        if step.flops is None or not step.dram_bytes:
            continue
        precision = step.dominant_precision or "fp32"
        key = PEAK_FOR_PRECISION[precision]
        bound = None
        peak = device.peak(key) if device else None
        if device and peak:
            bound = bound_seconds(step.flops, step.dram_bytes, peak, device.bandwidth_bytes_per_s)
        found.append(
            Workload(
                view.title, "ncu", step.flops, step.dram_bytes, key, datasets.get(view.slug),
                view.batch, view.phase == "train_step", device.name if device else "unknown",
                step.time_s, bound,
                "; ".join(
                    dict.fromkeys(f"finding {f.id}" for f in view.findings if f.severity == "error")
                ),
            )
        )  # fmt: skip
    roofs = {c.device_name: c for c in ceilings}
    ok = runs.filter(
        (pl.col("status") == "ok") & pl.col("modelled_flops").is_not_null()
        & pl.col("modelled_bytes").is_not_null()
    )  # fmt: skip
    for row in ok.to_dicts():
        measured = roofs.get(row["device_name"])
        gemm = measured.gemm_flops_per_s.get("fp32") if measured else None
        bound = None
        if measured and gemm and measured.triad_bytes_per_s:
            bound = bound_seconds(
                row["modelled_flops"], row["modelled_bytes"], gemm, measured.triad_bytes_per_s
            )
        found.append(
            Workload(
                row["run_id"], "modelled", row["modelled_flops"], row["modelled_bytes"],
                RUN_PRECISION_PEAK.get(row["precision"], "fp32"), row["dataset"], row["batch"],
                row["phase"] == "train_step", row["device_name"], row["median_s"], bound,
            )
        )  # fmt: skip
    return found


def _seconds(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and value > 0 else None


def trace_workloads(traces: list[TraceView]) -> list[Workload]:
    """Imported traces' steps: FLOPs and minimal bytes from shapes, over the counted ops."""
    found = []
    for trace in traces:
        total, device = trace.analysis.total, trace.analysis.match.device
        flops, nbytes = total["flops"], total["bytes"]
        if not isinstance(flops, float) or not isinstance(nbytes, float) or not flops or not nbytes:
            continue
        key = str(total["path"] or "fp32")
        peak = device.peak(key) if device else None
        bound = (
            bound_seconds(flops, nbytes, peak, device.bandwidth_bytes_per_s)
            if device and peak
            else None
        )
        uncounted = [
            f for f in trace.analysis.findings if f.id in ("uncounted-ops", "missing-shapes")
        ]
        found.append(
            Workload(
                trace.title, "trace", flops, nbytes, key, None, None, trace.phase == "train_step",
                device.name if device else "unknown", _seconds(total["counted_time_s"]),
                bound, "; ".join(f"finding {f.id}" for f in uncounted),
            )
        )  # fmt: skip
    return found


def device_table(items: list[Workload], devices: tuple[Device, ...]) -> pl.DataFrame:
    """One row per workload and catalog device: the bound, what limits it, and cost."""
    rows: list[dict[str, Any]] = []
    for w in items:
        for device in devices:
            peak = device.peak(w.peak_key)
            bound = (
                bound_seconds(w.flops, w.bytes, peak, device.bandwidth_bytes_per_s)
                if peak
                else None
            )
            limit = None
            if peak and bound is not None:
                limit = (
                    "compute"
                    if w.flops / peak >= w.bytes / device.bandwidth_bytes_per_s
                    else "memory"
                )
            price = device.price_usd_per_hour
            steps = (
                math.ceil(EPOCH_SAMPLES[w.dataset] / w.batch)
                if w.train and w.dataset in EPOCH_SAMPLES and w.batch
                else None
            )
            rows.append(
                {
                    "workload": w.label,
                    "how": w.how,
                    "peak": w.peak_key,
                    "device": device.name,
                    "device_id": device.id,
                    "bound_s": bound,
                    "limited_by": limit,
                    "cost_low_usd_per_step": bound * price[0] / 3600 if price and bound else None,
                    "cost_high_usd_per_step": bound * price[1] / 3600 if price and bound else None,
                    "steps_per_epoch": steps,
                }
            )
    return pl.DataFrame(
        rows,
        schema={
            "workload": pl.String, "how": pl.String, "peak": pl.String, "device": pl.String,
            "device_id": pl.String, "bound_s": pl.Float64, "limited_by": pl.String,
            "cost_low_usd_per_step": pl.Float64, "cost_high_usd_per_step": pl.Float64,
            "steps_per_epoch": pl.Int64,
        },
    )  # fmt: skip
