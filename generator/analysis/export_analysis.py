"""One export from kernel table to findings: the sequence `summarize` and the report share."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from generator.analysis.roofline import (
    Bound,
    DeviceMatch,
    Totals,
    bound_against,
    kernel_metrics,
    match_device,
    range_totals,
    totals,
)
from generator.analysis.tensor_work import TensorEvidence, tensor_evidence
from generator.findings import Finding, export_findings
from generator.ingest import NcuExport


@dataclass(frozen=True)
class ExportAnalysis:
    metrics: pl.DataFrame  # kernel table with FLOPs, bytes, time, AI, attained
    step: Totals
    ranges: dict[str, Totals]
    match: DeviceMatch
    bound: Bound | None
    findings: tuple[Finding, ...]
    tensor: TensorEvidence | None  # tensor-core work seen but not counted
    ingest_notes: tuple[str, ...] = ()


def analyze_export(
    export: NcuExport,
    device: str | None,
    phase: str | None,
    analytic_training_flops: float | None = None,
    analytic_forward_flops: float | None = None,
    analytic_backward_flops: float | None = None,
) -> ExportAnalysis:
    metrics = kernel_metrics(export.kernels)
    step = totals(metrics)
    ranges = range_totals(metrics)
    match = match_device(export.kernels, device)
    bound = bound_against(step, match.device) if match.device else None
    findings = export_findings(
        metrics,
        step,
        ranges,
        match.device,
        bound,
        phase,
        analytic_training_flops=analytic_training_flops,
        analytic_forward_flops=analytic_forward_flops,
        analytic_backward_flops=analytic_backward_flops,
    )
    return ExportAnalysis(
        metrics,
        step,
        ranges,
        match,
        bound,
        tuple(findings),
        tensor_evidence(metrics),
        export.notes,
    )
