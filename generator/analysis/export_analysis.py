"""One export's kernel table on the roofline: per-kernel metrics, the step and range
totals, the device it ran on and the bound. The checks of it are `findings/`' job, and
`summaries/export.py` runs both."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from generator.analysis.roofline import (
    Bound,
    Totals,
    bound_against,
    kernel_metrics,
    range_totals,
    totals,
)
from generator.analysis.roofs import DATASHEET, roof_for
from generator.analysis.tensor_work import TensorEvidence, tensor_evidence
from generator.catalog.matching import DeviceMatch, match_device
from generator.ingest import NcuExport


@dataclass(frozen=True)
class ExportAnalysis:
    metrics: pl.DataFrame  # kernel table with FLOPs, bytes, time, AI, attained
    step: Totals
    ranges: dict[str, Totals]
    match: DeviceMatch
    bound: Bound | None
    tensor: TensorEvidence | None  # tensor-core work seen but not counted
    ingest_notes: tuple[str, ...] = ()


def analyze_export(export: NcuExport, device: str | None) -> ExportAnalysis:
    metrics = kernel_metrics(export.kernels)
    step = totals(metrics)
    match = match_device(export.kernels, device)
    # An export on its own sits under its device's datasheet roof: its checks ask whether a
    # count is physically possible. The site places a page's step under the page's roof.
    precision = step.dominant_precision
    roof = (
        roof_for(match.device.name, precision, DATASHEET, catalog=(match.device,))
        if match.device and precision
        else None
    )
    return ExportAnalysis(
        metrics,
        step,
        range_totals(metrics),
        match,
        bound_against(step, roof),
        tensor_evidence(metrics),
        export.notes,
    )
