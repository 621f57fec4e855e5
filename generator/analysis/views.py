"""What a measurement page shows of one export: its analysis, its device, its findings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from generator.analysis.multirank import MultiRank
from generator.analysis.nsys_analysis import NsysAnalysis
from generator.analysis.roofline import Bound, Totals
from generator.analysis.roofs import Roof
from generator.analysis.tensor_work import TensorEvidence
from generator.analysis.trace_analysis import TraceAnalysis
from generator.catalog.matching import DeviceMatch
from generator.records.finding import Finding
from generator.records.import_source import Source


@dataclass(frozen=True)
class MeasurementView:
    """Everything a measurement page shows."""

    slug: str
    title: str
    origin: str
    citation: str
    model: str
    workload: str
    batch: int | None
    phase: str
    precision: str
    notes: str
    license: str
    csv_path: str
    kernels: pl.DataFrame  # from roofline.kernel_metrics
    step: Totals
    ranges: dict[str, Totals]
    match: DeviceMatch
    bound: Bound | None
    chart: dict[str, Any]
    findings: tuple[Finding, ...] = ()
    analytic: dict[str, Any] | None = None  # a row of measurements/complexity/imported.csv
    tensor: TensorEvidence | None = None  # tensor-core work seen but not counted
    ingest_notes: tuple[str, ...] = ()  # what the ingest did (ncu_csv.NcuExport.notes)
    # the page's roof (roofs.roof_for): a measured run's, of its device and precision; an
    # import's, of its device and the precision dominating its FLOPs. `bound` is against it.
    roof: Roof | None = None
    roofs: tuple[Roof, ...] = ()  # what its chart draws: each counted precision's, and `roof`


@dataclass(frozen=True)
class TraceView:
    """Everything a trace page shows: an imported torch.profiler trace, or the profiled step
    of a measured run (with its per-layer join)."""

    slug: str
    title: str
    kind: str  # "imported" or "run"
    origin: str  # the URL (imported) or the run folder
    citation: str
    phase: str
    analysis: TraceAnalysis
    layers: pl.DataFrame | None = None  # layers.csv of a measured run
    counted_flops: float | None = None  # ncu's counted FLOPs of the same work, when imported
    forward_range_s: float | None = None  # the profiled step's forward range (runs)
    findings: tuple[Finding, ...] = ()  # findings.trace_findings of the analysis
    roof: Roof | None = None  # a measured run's: its device's and precision's (roofs.roof_for)


@dataclass(frozen=True)
class CaptureView:
    """Everything a multi-rank capture's page shows: its source, every rank's steps on one
    roof, and its findings."""

    slug: str
    source: Source
    capture: MultiRank
    device_name: str  # the catalog device's name, or the measured ceilings' machine
    findings: tuple[Finding, ...] = ()


@dataclass(frozen=True)
class NsysView:
    """Everything an Nsight Systems capture's page shows."""

    slug: str
    source: Source
    analysis: NsysAnalysis
    device_name: str
    findings: tuple[Finding, ...] = ()
    missing: tuple[str, ...] = ()  # what its files cannot tell (summaries.nsys.missing)
