"""An ncu export from file to findings: read it, analyse it, check it. `summarize` and
`import` print its summary; the report's kernel pages are built from `check_export`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from generator.analysis.export_analysis import ExportAnalysis, analyze_export
from generator.analysis.roofline import Bound, Totals
from generator.catalog.matching import DeviceMatch
from generator.findings import export_findings
from generator.formatting import number, percent, seconds, si
from generator.ingest import read_ncu_csv
from generator.ingest.cache import DEFAULT_CACHE, cached_read
from generator.ingest.ncu_csv import IN_MEMORY_FACTOR, NcuExport, default_memory_budget
from generator.records.finding import Finding, finding_lines, findings_json
from generator.store import Store
from generator.summaries.device_text import device_text


class ExportTotals(TypedDict):
    """The export's part of the `summarize --json` object: its totals, device and bound
    (base units; null where the file lacks the metrics)."""

    kernels: int
    flops: float | None
    flops_by_precision: dict[str, float]
    dram_bytes: float | None
    l2_bytes: float | None
    l1_bytes: float | None
    time_s: float | None
    attained_flops_per_s: float | None
    arithmetic_intensity: float | None
    sm_pct: float | None
    dram_pct: float | None
    kernels_by_range: dict[str, int]
    device: dict[str, str | None]
    device_name: str | None
    device_match: str | None
    device_candidates: list[str]
    device_note: str | None
    bound: str | None
    efficiency: float | None
    dominant_precision: str | None
    peak_flops_per_s: float | None
    bandwidth_bytes_per_s: float | None
    ridge_arithmetic_intensity: float | None
    tensor_pipe_inst: float | None
    incomplete_metrics: dict[str, int]


@dataclass(frozen=True)
class CheckedExport:
    analysis: ExportAnalysis
    findings: tuple[Finding, ...]


def check_export(
    export: NcuExport,
    device: str | None,
    phase: str | None,
    analytic_training_flops: float | None = None,
    analytic_forward_flops: float | None = None,
    analytic_backward_flops: float | None = None,
) -> CheckedExport:
    """The export's analysis and every finding about it (the analytic counts, when the model
    is known, check its ranges and step)."""
    analysis = analyze_export(export, device)
    findings = export_findings(
        analysis,
        phase,
        analytic_training_flops=analytic_training_flops,
        analytic_forward_flops=analytic_forward_flops,
        analytic_backward_flops=analytic_backward_flops,
    )
    return CheckedExport(analysis, tuple(findings))


def summarize_file(
    path: Path,
    device: str | None,
    phase: str | None = None,
    memory_budget: int | None = None,
    cache_dir: Path = DEFAULT_CACHE,
) -> dict[str, Any]:
    """A CSV too large for memory is parsed once through the streaming path and its parse
    cached (keyed by content hash and parser version); small files are just read."""
    return summarize_export(read_export(path, memory_budget, cache_dir), device, phase)


def summarize_export(export: NcuExport, device: str | None, phase: str | None) -> dict[str, Any]:
    """The `summarize --json` object of an export already read."""
    path = export.path
    checked = check_export(export, device, phase)
    analysis = checked.analysis
    return {
        "file": str(path),
        "layout": export.layout,
        "ingest_notes": list(export.notes),
        "tensor_flops_estimate": analysis.tensor.estimate_flops if analysis.tensor else None,
        **summary_dict(analysis.step, analysis.ranges, analysis.match, analysis.bound),
        "findings": findings_json(checked.findings),
    }


def read_export(
    path: Path, memory_budget: int | None = None, cache_dir: Path = DEFAULT_CACHE
) -> NcuExport:
    """A CSV export, or a binary report (told apart by content) read into the same tables."""
    from generator.ingest.formats import NCU_REPORT, sniff
    from generator.ingest.ncu_rep import read_ncu_rep

    if sniff(path) is NCU_REPORT:
        return read_ncu_rep(path)[0]
    budget = default_memory_budget() if memory_budget is None else memory_budget
    if path.is_file() and path.stat().st_size * IN_MEMORY_FACTOR > budget:
        return cached_read(path, Store(cache_dir), budget)
    return read_ncu_csv(path, budget)


def summary_dict(
    total: Totals, ranges: dict[str, Totals], match: DeviceMatch, bound: Bound | None
) -> ExportTotals:
    """The `summarize --json` object's totals (base units; null where the file lacks the
    metrics)."""
    return {
        "kernels": total.kernels,
        "flops": total.flops,
        "flops_by_precision": total.flops_by_precision,
        "dram_bytes": total.dram_bytes,
        "l2_bytes": total.l2_bytes,
        "l1_bytes": total.l1_bytes,
        "time_s": total.time_s,
        "attained_flops_per_s": total.attained_flops_per_s,
        "arithmetic_intensity": total.arithmetic_intensity,
        "sm_pct": total.sm_pct,
        "dram_pct": total.dram_pct,
        "kernels_by_range": {name: t.kernels for name, t in ranges.items()},
        "device": match.names(),
        "device_name": match.device.name if match.device else None,
        "device_match": match.how or None,
        "device_candidates": list(match.candidates),
        "device_note": match.note or None,
        "bound": bound.bound if bound else None,
        "efficiency": bound.efficiency if bound else None,
        "dominant_precision": total.dominant_precision,
        "peak_flops_per_s": bound.peak_flops_per_s if bound else None,
        "bandwidth_bytes_per_s": bound.bandwidth_bytes_per_s if bound else None,
        "ridge_arithmetic_intensity": bound.ridge_ai if bound else None,
        "tensor_pipe_inst": total.tensor_pipe_inst,
        "incomplete_metrics": total.incomplete,
    }


def format_summary(summary: dict[str, Any]) -> str:
    by_precision = ", ".join(
        f"{p} {si(v, 'FLOP')}" for p, v in summary["flops_by_precision"].items()
    )
    device = device_text(summary)
    if summary["bound"]:
        bound = (
            f"{summary['bound']}-bound against {summary['dominant_precision']} "
            f"(ridge {number(summary['ridge_arithmetic_intensity'])} FLOP/byte), "
            f"efficiency {percent(100 * summary['efficiency'])}"
        )
    else:
        bound = "n/a (needs FLOPs, DRAM bytes, time and a device with that precision's peak)"
    ranges = ", ".join(f"{name} {count}" for name, count in summary["kernels_by_range"].items())
    lines = [
        f"{summary['file']}  ({summary['layout']} layout, {summary['kernels']} kernels)",
        f"  device             {device}",
        f"  FLOPs              {si(summary['flops'], 'FLOP')}"
        + (f"  ({by_precision})" if by_precision else ""),
        f"  DRAM bytes         {si(summary['dram_bytes'], 'B')}",
        f"  L2 / L1 bytes      {si(summary['l2_bytes'], 'B')} / {si(summary['l1_bytes'], 'B')}",
        f"  time (sum)         {seconds(summary['time_s'])}",
        f"  attained           {si(summary['attained_flops_per_s'], 'FLOP/s')}",
        f"  AI                 {number(summary['arithmetic_intensity'])} FLOP/byte (DRAM)",
        f"  SM% / DRAM%        {percent(summary['sm_pct'])} / {percent(summary['dram_pct'])}"
        "  (time-weighted)",
        f"  bound              {bound}",
        f"  kernels by range   {ranges}",
    ]
    if summary["tensor_flops_estimate"] is not None:
        lines.append(
            f"  tensor (est.)      {si(summary['tensor_flops_estimate'], 'FLOP')}  uncounted "
            "tensor-core work, 512 FLOP per tensor-pipe instruction: an estimate, not in FLOPs"
        )
    for note in summary["ingest_notes"]:
        lines.append(f"  note               {note}")
    if summary["incomplete_metrics"]:
        missing = ", ".join(f"{m} ({n} kernels)" for m, n in summary["incomplete_metrics"].items())
        lines.append(f"  missing (n/a)      {missing}: totals built on them are n/a")
    return "\n".join(lines + finding_lines(summary["findings"]))
