"""An Nsight Systems capture (or a rocprofv3 JSON, read into the same tables) from files to
findings: `summarize` and `import` print its summary (kernel time by name and family, copies
by direction, API calls, NVTX or roctx ranges and, from a timeline, each GPU's utilization),
and `summarize --json` gives it in base units; rocprofv3's `--pmc` counters per kernel too."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from generator.analysis.nsys_analysis import NsysAnalysis, analyse_nsys
from generator.analysis.nsys_phases import ModelWork, phase_table, step_point
from generator.findings.nsys_checks import nsys_findings
from generator.formatting import percent, seconds, short_name, si
from generator.ingest.nsys.capture import NsysCapture, read_nsys
from generator.records.finding import Finding, finding_lines, findings_json

FORMAT = "Nsight Systems capture"
COUNTER_ROWS = 20  # counter rows in the text summary (all are in --json)


def capture_format(capture: NsysCapture) -> str:
    """'Nsight Systems capture' or 'rocprofv3 capture': the tool that wrote the files."""
    return f"{capture.words.tool} capture"


ROWS = 10  # kernels and API calls in the text summary (all are in --json)


def _records(frame: pl.DataFrame | None) -> list[dict[str, Any]]:
    if frame is None:
        return []
    return [
        {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in r.items()}
        for r in frame.iter_rows(named=True)
    ]


def missing(analysis: NsysAnalysis) -> list[str]:
    """What the given files cannot tell, in words."""
    capture = analysis.capture
    words = capture.words
    said = []
    if not analysis.has_timeline:
        said.append(
            "utilization and idle gaps: the stats reports are sums without a timeline "
            "(pass the SQLite export)"
        )
    names = {"kernels": "kernel time", "api": f"{words.api} calls", "memtime": "copy times",
             "memsize": "copy sizes", "nvtx": f"{words.ranges} ranges"}  # fmt: skip
    absent = [names[k] for k in names if k not in capture.reports]
    if absent and capture.form == "rocprofv3 kernel trace CSV":
        said.append(
            f"{', '.join(absent)}: a kernel trace CSV holds kernels only; pass rocprofv3's "
            f"JSON instead (`{words.trace}`)"
        )
    elif absent and capture.counters is not None:
        said.append(
            f"{', '.join(absent)}: not in this file (rocprofv3 wrote no record of them); "
            f"profile with `{words.trace}`"
        )
    elif absent and capture.events is not None:
        said.append(
            f"{', '.join(absent)}: not traced in this capture (its export has no table for "
            f"them); profile with `{words.trace}`"
        )
    elif absent:
        said.append(f"{', '.join(absent)}: their report was not given")
    if capture.counters is not None:
        said.append(
            "FLOPs: rocprofv3's kernel trace records no shapes; collect FLOP and byte "
            "counters with `rocprofv3 --pmc ...` (listed below when present), or profile the "
            "same step with torch.profiler"
        )
    else:
        said.append(
            "FLOPs: nsys records no shapes; pass --model and --batch for analytic FLOPs per "
            "NVTX phase range, or profile the same step with Nsight Compute or torch.profiler"
        )
    return said


def nsys_summary(analysis: NsysAnalysis, findings: Sequence[Finding]) -> dict[str, Any]:
    capture = analysis.capture
    return {
        "file": [str(p) for p in capture.files],
        "format": capture_format(capture),
        "form": capture.form,
        "api_label": capture.words.api,
        "range_label": capture.words.ranges,
        "reports": list(capture.reports),
        "gpus": _records(analysis.gpus),
        "device_names": sorted(set(capture.gpus.values())),
        "gpu_traced": capture.gpu_traced,
        "kernel_time_s": analysis.kernel_time_s,
        "kernels": _records(analysis.kernels),
        "families": _records(analysis.families),
        "copies": _records(analysis.copies),
        "api": _records(analysis.api),
        "ranges": _records(analysis.ranges),
        "counters": _records(capture.counters),
        "missing": missing(analysis),
        "findings": findings_json(findings),
    }


def summarize_nsys(paths: Sequence[Path], work: ModelWork | None = None) -> dict[str, Any]:
    """The capture's summary; with `work` (a model's analytic FLOPs), its phases and step
    on the roofline too."""
    analysis = analyse_nsys(read_nsys(paths))
    summary = nsys_summary(analysis, nsys_findings(analysis))
    if work is not None:
        phases = phase_table(analysis.capture, work)
        point = step_point(phases, work)
        summary["model"] = {"name": work.model, "batch": work.batch, "flops": work.flops}
        summary["phases"] = _records(phases)
        summary["step_point"] = point
        summary["missing"] = [m for m in summary["missing"] if not m.startswith("FLOPs")]
        if phases.is_empty():
            summary["missing"].append(
                "per-phase FLOPs: no NVTX range names a phase (forward, backward, optimizer, "
                "...), so the model's FLOPs have no time to be divided by"
            )
    return summary


def format_nsys_summary(summary: dict[str, Any]) -> str:
    files = summary["file"]
    where = files[0] if len(files) == 1 else f"{files[0]} and {len(files) - 1} more"
    lines = [f"{where}  ({summary['format']}, {summary['form']}: {', '.join(summary['reports'])})"]
    for gpu in summary["gpus"]:
        lines.append(
            f"  GPU {gpu['device']} {gpu['name']:<22} busy {seconds(gpu['busy_s'])} of "
            f"{seconds(gpu['wall_s'])} ({percent(100 * (gpu['utilization'] or 0))}), "
            f"{gpu['idle_gaps']} idle gaps, longest {seconds(gpu['longest_gap_s'])}"
        )
    if "kernels" in summary["reports"]:
        lines.append(f"  kernel time        {seconds(summary['kernel_time_s'])}")
    for row in summary["families"][:ROWS]:
        lines.append(
            f"    {row['family']:<24} {seconds(row['time_s']):>10}  "
            f"{percent(100 * (row['share'] or 0)):>8}  {row['count']} kernels"
        )
    if summary["kernels"]:
        lines.append("  top kernels")
    for row in summary["kernels"][:ROWS]:
        lines.append(
            f"    {short_name(row['name'], 60):<60} {seconds(row['time_s']):>10}  {row['count']}x"
        )
    if summary["copies"]:
        lines.append("  copies             count      time        bytes       bandwidth")
    for row in summary["copies"]:
        rate = row["bandwidth_bytes_per_s"]
        lines.append(
            f"    {row['operation']:<18} {row['count']:<10} {seconds(row['time_s']):<11} "
            f"{si(row['bytes'], 'B'):<11} {si(rate, 'B/s') if rate else 'n/a'}"
        )
    if summary["api"]:
        lines.append(f"  top {summary['api_label']} calls")
    for row in summary["api"][:ROWS]:
        lines.append(
            f"    {row['name'][:40]:<40} {seconds(row['time_s']):>10}  {row['count']} calls"
        )
    if summary["ranges"]:
        lines.append(
            f"  {summary['range_label'] + ' ranges':<18} count      time"
            + ("        GPU busy" if summary["gpus"] else "")
        )
    for row in summary["ranges"][:ROWS]:
        busy = row.get("utilization")
        lines.append(
            f"    {row['range'][:40]:<40} {row['count']:<8} {seconds(row['time_s']):<11}"
            + (f" {percent(100 * busy)}" if busy is not None else "")
        )
    if summary.get("phases"):
        model = summary["model"]
        lines.append(
            f"  phases ({model['name']}, batch {model['batch']}; analytic FLOPs / measured time)"
        )
    for row in summary.get("phases", []):
        lines.append(
            f"    {row['phase']:<10} {row['instances']:>4}x  {seconds(row['time_s']):>10}  "
            f"{si(row['flops'], 'FLOP'):>12}  {si(row['attained_flops_per_s'], 'FLOP/s'):>13}"
            f"  ({row['time_basis']})"
        )
    point = summary.get("step_point")
    if point:
        lines.append(
            f"  step point         {si(point['attained_flops_per_s'], 'FLOP/s')} at AI "
            f"{point['arithmetic_intensity']:.4g} FLOP/byte ({point['steps']} steps, "
            f"{seconds(point['time_s'])})"
        )
    if summary["counters"]:
        lines.append(
            "  counters (--pmc)   kernel                                    dispatches  total"
        )
    for row in summary["counters"][:COUNTER_ROWS]:
        lines.append(
            f"    {row['counter'][:16]:<16} {short_name(row['kernel'], 40):<40} "
            f"{row['dispatches']:>10}  {row['total']:.6g}"
        )
    for text in summary["missing"]:
        lines.append(f"  not known          {text}")
    return "\n".join(lines + finding_lines(summary["findings"]))
