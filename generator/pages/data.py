"""The tables behind each generated page, offered for download (see downloads.py)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import polars as pl

from generator.analysis.replication import Replication
from generator.analysis.roofline import Totals
from generator.analysis.views import MeasurementView
from generator.catalog import Device
from generator.findings import Finding
from generator.records.ceilings import MeasuredCeilings
from generator.records.peaks import PEAK_KEYS


def catalog_frame(devices: tuple[Device, ...]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "id": d.id,
                "name": d.name,
                "vendor": d.vendor,
                "kind": d.kind,
                "architecture": d.architecture,
                "compute_capability": d.compute_capability,
                "memory_bytes": d.memory_bytes,
                "memory_type": d.memory_type or None,
                "fp32_cores_per_sm": d.fp32_cores_per_sm,
                "bandwidth_bytes_per_s": d.bandwidth_bytes_per_s,
                **{f"peak_{k}_flops_per_s": d.peak(k) for k in PEAK_KEYS},
                "price_usd_per_hour_low": d.price_usd_per_hour[0] if d.price_usd_per_hour else None,
                "price_usd_per_hour_high": d.price_usd_per_hour[1]
                if d.price_usd_per_hour
                else None,
                "derived": ", ".join(d.derived),
                "source": d.source,
                "notes": d.notes,
            }
            for d in devices
        ],
        infer_schema_length=None,
    )


def ceilings_frame(ceilings: list[MeasuredCeilings]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "device_name": c.device_name,
                **{f"gemm_{p}_flops_per_s": v for p, v in c.gemm_flops_per_s.items()},
                "copy_bytes_per_s": c.copy_bytes_per_s,
                "triad_bytes_per_s": c.triad_bytes_per_s,
                "measured_at": c.measured_at,
            }
            for c in ceilings
        ],
        infer_schema_length=None,
    )


def findings_frame(
    views: list[MeasurementView], run_findings: dict[str, tuple[Finding, ...]]
) -> pl.DataFrame:
    rows = [{"source": v.slug, **asdict(f)} for v in views for f in v.findings]
    rows += [{"source": run, **asdict(f)} for run, found in run_findings.items() for f in found]
    schema = dict.fromkeys(("source", "id", "severity", "title", "evidence", "fix"), pl.String)
    return pl.DataFrame(rows, schema=schema)


def _totals_row(name: str, totals: Totals) -> dict[str, Any]:
    return {
        "range": name,
        "kernels": totals.kernels,
        "flops": totals.flops,
        "dram_bytes": totals.dram_bytes,
        "time_s": totals.time_s,
        "arithmetic_intensity": totals.arithmetic_intensity,
        "attained_flops_per_s": totals.attained_flops_per_s,
        "sm_pct": totals.sm_pct,
        "dram_pct": totals.dram_pct,
    }


def measurement_frames(view: MeasurementView) -> dict[str, pl.DataFrame]:
    totals = [_totals_row("(step)", view.step)] + [
        _totals_row(name, t) for name, t in view.ranges.items()
    ]
    return {"kernels": view.kernels, "totals": pl.DataFrame(totals, infer_schema_length=None)}


def steps_frame(views: list[MeasurementView]) -> pl.DataFrame:
    """One row per ncu-profiled step: what it is and its totals."""
    rows = [
        {
            "page": v.slug,
            "title": v.title,
            "device": v.match.device.name if v.match.device else None,
            "model": v.model,
            "batch": v.batch,
            "phase": v.phase,
            **{k: val for k, val in _totals_row("(step)", v.step).items() if k != "range"},
        }
        for v in views
    ]
    return pl.DataFrame(rows, infer_schema_length=None)


def replication_frame(results: list[Replication]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "id": r.row.id,
                "seed": r.row.seed,
                "where": r.row.where,
                "quantity": r.row.quantity,
                "configuration": r.row.configuration,
                "published": r.row.published,
                "unit": r.row.unit,
                "ours": r.derived,
                "published_over_ours": r.ratio,
                "cause": r.row.cause,
                "check": r.status,
                "ours_from": r.source,
                "citation": r.row.citation,
            }
            for r in results
        ],
        infer_schema_length=None,
    )
