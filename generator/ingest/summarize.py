"""`summarize`: totals, roofline point, bound and findings of ncu exports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generator.analysis.export_analysis import analyze_export
from generator.analysis.roofline import summary_dict
from generator.findings import findings_json
from generator.formatting import number, percent, seconds, si
from generator.ingest import read_ncu_csv
from generator.ingest.cache import DEFAULT_CACHE, cached_read
from generator.ingest.ncu_csv import IN_MEMORY_FACTOR, default_memory_budget


def summarize_file(
    path: Path,
    device: str | None,
    phase: str | None = None,
    memory_budget: int | None = None,
    cache_dir: Path = DEFAULT_CACHE,
) -> dict[str, Any]:
    """A file too large for memory is parsed once through the streaming path and its
    parse cached (keyed by content hash and parser version); small files are just read."""
    budget = default_memory_budget() if memory_budget is None else memory_budget
    if path.is_file() and path.stat().st_size * IN_MEMORY_FACTOR > budget:
        export = cached_read(path, cache_dir, budget)
    else:
        export = read_ncu_csv(path, budget)
    analysis = analyze_export(export, device, phase)
    return {
        "file": str(path),
        "layout": export.layout,
        "ingest_notes": list(export.notes),
        "tensor_flops_estimate": analysis.tensor.estimate_flops if analysis.tensor else None,
        **summary_dict(analysis.step, analysis.ranges, analysis.match, analysis.bound),
        "findings": findings_json(analysis.findings),
    }


def format_summary(summary: dict[str, Any]) -> str:
    by_precision = ", ".join(
        f"{p} {si(v, 'FLOP')}" for p, v in summary["flops_by_precision"].items()
    )
    device = summary["device_name"] or "unknown"
    if summary["device_match"]:
        device += f" ({summary['device_match']})"
    elif summary["device_note"]:
        device += f": {summary['device_note']}"
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
    for finding in summary["findings"]:
        lines.append(f"  {finding['severity']:<8} [{finding['id']}] {finding['title']}")
        lines.append(f"           evidence: {finding['evidence']}")
        lines.append(f"           fix: {finding['fix']}")
    return "\n".join(lines)
