"""Each measured run's verdict (`step_verdict`): its modelled point, the analytic FLOPs and
minimal bytes of the step over the configuration's pooled timed median, against the ceilings
measured on its machine (GEMM of its precision and triad), or the datasheet roof of its
catalog device where none were measured."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from generator.analysis.device_choice import RUN_PRECISION_GEMM, RUN_PRECISION_PEAK
from generator.analysis.step_verdict import TIMED, Estimate, Roof, StepVerdict, step_verdict
from generator.catalog import device_label, lookup_device
from generator.records.ceilings import MeasuredCeilings


def run_roof(row: dict[str, Any], ceilings: Sequence[MeasuredCeilings]) -> Roof | None:
    name = row["device_name"]
    for measured in ceilings:
        key = RUN_PRECISION_GEMM.get(row["precision"], "")
        gemm = measured.gemm_flops_per_s.get(key)
        if measured.device_name == name and gemm and measured.triad_bytes_per_s:
            label = f"{device_label(name)} measured {key} GEMM and triad"
            return Roof(label, gemm, measured.triad_bytes_per_s)
    device = lookup_device(name)
    key = RUN_PRECISION_PEAK.get(row["precision"], "fp32")
    peak = device.peak(key) if device else None
    if device is None or not peak:
        return None
    return Roof(f"{device.name} {key} datasheet", peak, device.bandwidth_bytes_per_s)


def run_verdict(row: dict[str, Any], ceilings: Sequence[MeasuredCeilings]) -> StepVerdict | None:
    """`row`: a pooled runs row (`pooling.pool_runs`)."""
    if row["status"] != "ok" or row.get("median_s") is None:
        return None
    time = Estimate(row["median_s"], row.get("ci_low_s"), row.get("ci_high_s"))
    return step_verdict(
        row.get("modelled_flops"),
        row.get("modelled_bytes"),
        time,
        run_roof(row, ceilings),
        TIMED,
        "modelled",
    )


def run_verdicts(
    runs: pl.DataFrame, ceilings: Sequence[MeasuredCeilings]
) -> dict[str, StepVerdict]:
    """By run id, for every ok run whose point and roof are known."""
    found = {}
    for row in runs.to_dicts():
        if (verdict := run_verdict(row, ceilings)) is not None:
            found[row["run_id"]] = verdict
    return found
