"""A torch.profiler trace from file to findings: read it, analyse it, check it.
`summarize` and `import` print its summary: totals, per-op and per-step points, findings."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

import polars as pl

from generator.analysis.launch import HOST_BOUND
from generator.analysis.roofs import roof_json
from generator.analysis.trace_analysis import TraceAnalysis, analyze_trace
from generator.analysis.trace_launch import WHOLE_TRACE, TraceLaunch
from generator.analysis.trace_roofline import (
    BOUNDED,
    CAUSE_FIX,
    COPIES,
    OVERHEAD,
    POINT_KIND,
    UNCOUNTED_CAUSES,
    WHOLE_CPU,
    WHOLE_GPU,
    time_shares,
)
from generator.findings import trace_findings
from generator.formatting import number, percent, seconds, si
from generator.records.ceilings import MeasuredCeilings
from generator.records.finding import Finding, finding_lines, findings_json
from generator.summaries.device_text import device_text

OP_ROWS = 12  # ops shown in the text summary (all of them are in --json)


class LaunchJson(TypedDict):
    """The `launch` object of `summarize --json`: the host launch pair, or why there is
    none (then its times are null)."""

    host_s: float | None
    gpu_s: float | None
    ratio: float | None
    host_bound: bool | None
    source: str | None
    steps: int
    scope: str
    where: str | None
    waits_s: float
    why: str | None


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _rows(frame: pl.DataFrame, key: str) -> list[dict[str, Any]]:
    columns = [
        key,
        "time_s",
        "flops",
        "flops_upper",
        "full_square_flops",
        "bytes",
        "bytes_upper",
        "arithmetic_intensity",
        "attained_flops_per_s",
        "path",
        "bound",
        "efficiency",
        "cause",
    ]
    return [
        {k: _clean(v) for k, v in row.items()}
        for row in frame.select(c for c in columns if c in frame.columns).iter_rows(named=True)
    ]


def _op_rows(analysis: TraceAnalysis, whole_s: float) -> list[dict[str, Any]]:
    """The per-op rows, each with its share of the whole, and the GPU's copies as one row:
    the rows' shares sum to 1 like the parts'."""
    rows = _rows(analysis.by_op, "op")
    copies = analysis.parts[COPIES]
    if copies > 0:
        row = dict.fromkeys(rows[0] if rows else ("op", "time_s", "cause"))
        rows.append(row | {"op": f"({COPIES})", "time_s": copies, "cause": COPIES})
    for row in rows:
        row["share"] = row["time_s"] / whole_s if whole_s > 0 else 0.0
    return rows


def _by_identity(analysis: TraceAnalysis) -> int:
    """Kernels with no launch event attributed to the op of an identical kernel."""
    points = analysis.work.points
    if "attributed_by" not in points.columns:
        return 0
    return points.filter(pl.col("attributed_by") == "identity").height


def _launch(launch: TraceLaunch) -> LaunchJson:
    """The host launch diagnosis: the rule's pair (analysis/launch.py), what it rests on, or
    why there is none."""
    time = launch.time
    return {
        "host_s": time.host_s if time else None,
        "gpu_s": time.gpu_s if time else None,
        "ratio": _clean(time.ratio) if time else None,
        "host_bound": time.host_bound if time else None,
        "source": time.source if time else None,
        "steps": time.steps if time else 0,
        "scope": launch.scope,
        "where": launch.where() if time else None,
        "waits_s": launch.waits_s,
        "why": launch.why or None,
    }


def _launch_text(launch: LaunchJson) -> str:
    """e.g. "22.47 ms host / 3.459 ms GPU busy per step (host/GPU 6.5): host-bound (launch)
    (profiled step; torch.profiler slows the host)"."""
    if launch["host_s"] is None:
        return f"n/a ({launch['why']})"
    if launch["scope"] == WHOLE_TRACE:  # no finding from it: set-up may be in it
        per = f"over {WHOLE_TRACE}, which may hold set-up"
    elif launch["steps"] > 1:
        per = f"per step (medians over {launch['steps']})"
    else:
        per = "per step"
    verdict = HOST_BOUND if launch["host_bound"] else "not host-bound"
    waits = f", {seconds(launch['waits_s'])} of waits left out" if launch["waits_s"] else ""
    return (
        f"{seconds(launch['host_s'])} host / {seconds(launch['gpu_s'])} GPU busy {per} "
        f"(host/GPU {number(launch['ratio'], 3)}{waits}): {verdict} "
        f"({launch['source']}; torch.profiler slows the host)"
    )


def trace_summary(analysis: TraceAnalysis, findings: Sequence[Finding]) -> dict[str, Any]:
    total = analysis.total
    time_s = float(total["time_s"])  # type: ignore[arg-type]
    shapes = analysis.attribution.ops_with_shapes > 0
    whole_s = sum(analysis.parts.values())
    shares = time_shares(analysis.parts)
    flops_by_op = {
        op: float(f)
        for op, f in analysis.by_op.filter(pl.col("flops") > 0).select("op", "flops").iter_rows()
    }
    device = analysis.match.device
    trace = analysis.trace
    return {
        "file": str(analysis.path),
        "format": "torch.profiler trace",
        "point_kind": POINT_KIND,
        "on_gpu": analysis.attribution.on_gpu,
        "kernels": analysis.kernels,
        "ops": analysis.work.ops,
        "ops_with_shapes": analysis.attribution.ops_with_shapes,
        "time_s": time_s,
        "flops": _clean(total["flops"]) if shapes else None,
        "flops_by_op": flops_by_op if shapes else {},
        "bytes": _clean(total["bytes"]) if shapes else None,
        # the totals' upper ends: bounded costs (bounded_share) at the top of their interval
        "flops_upper": _clean(total["flops_upper"]) if shapes else None,
        "bytes_upper": _clean(total["bytes_upper"]) if shapes else None,
        "arithmetic_intensity": _clean(total["arithmetic_intensity"]) if shapes else None,
        "attained_flops_per_s": _clean(total["attained_flops_per_s"]) if shapes else None,
        "counted_time_s": _clean(total["counted_time_s"]),
        # every share is of this one whole, and `shares` partition it (they sum to 1)
        "whole": WHOLE_GPU if analysis.attribution.on_gpu else WHOLE_CPU,
        "whole_s": whole_s,
        "shares": shares,
        "modelled_share": shares["modelled"],  # exact: bounded costs are `bounded_share`
        "bounded_share": shares[BOUNDED],
        "uncounted_time_share": sum(shares[c] for c in UNCOUNTED_CAUSES if c != "communication"),
        "uncounted_by_cause": {cause: shares[cause] for cause in UNCOUNTED_CAUSES},
        # what would let each cause present be costed (trace_roofline.CAUSE_FIX)
        "uncounted_fix": {c: CAUSE_FIX[c] for c in UNCOUNTED_CAUSES if shares[c] > 0},
        "kernels_by_identity": _by_identity(analysis),
        "communication_time_share": shares["communication"],
        "overhead_time_share": shares[OVERHEAD],
        "copies_time_share": shares[COPIES],
        "memcpy_time_s": sum(trace.memcpy.dur) * 1e-6,
        "memset_time_s": sum(trace.memset.dur) * 1e-6,
        "device": analysis.match.names(),
        "device_name": device.name if device else None,
        "device_match": analysis.match.how,
        "device_note": analysis.match.note,
        "roof": roof_json(analysis.roofs),
        "path": total["path"],
        "bound": total["bound"],
        "efficiency": _clean(total["efficiency"]),
        "launch": _launch(analysis.work.launch),
        "steps": _rows(analysis.by_step, "step"),
        "phases": _rows(analysis.by_phase, "phase"),
        "ranges": _rows(analysis.by_range, "range"),
        "by_op": _op_rows(analysis, whole_s),
        "findings": findings_json(findings),
    }


def summarize_trace(
    path: Path,
    device: str | None,
    phase: str | None = None,
    ceilings: MeasuredCeilings | None = None,
) -> dict[str, Any]:
    analysis = analyze_trace(path, device, ceilings)
    return trace_summary(analysis, trace_findings(analysis, phase))


def format_trace_summary(summary: dict[str, Any]) -> str:
    device = device_text(summary)
    work = f"{summary['kernels']} kernels" if summary["on_gpu"] else "CPU ops, no GPU kernels"
    if summary["bound"]:
        bound = (
            f"{summary['bound']}-bound against the {summary['path']} roof of "
            f"{summary['roof']['name']} ({summary['roof']['source']}), efficiency "
            f"{percent(100 * summary['efficiency'])}"
        )
    else:
        bound = "n/a (needs FLOPs from shapes and a device or measured ceilings)"
    parts = "  ".join(
        f"{name} {percent(100 * share)}" for name, share in summary["shares"].items() if share
    )
    lines = [
        f"{summary['file']}  (torch.profiler trace, {work}, {summary['ops']} ops, "
        f"{summary['ops_with_shapes']} with shapes)",
        f"  points             {summary['point_kind']}",
        f"  device             {device}",
        f"  time (sum)         {seconds(summary['time_s'])}"
        + ("  (kernel time)" if summary["on_gpu"] else "  (op self time on the CPU)"),
        f"  FLOPs              {si(summary['flops'], 'FLOP')}  (from shapes)",
        f"  bytes (minimal)    {si(summary['bytes'], 'B')}",
        f"  AI                 {number(summary['arithmetic_intensity'])} FLOP/byte",
        f"  attained           {si(summary['attained_flops_per_s'], 'FLOP/s')}  "
        f"over the costed ops' {seconds(summary['counted_time_s'])}",
        f"  whole              {seconds(summary['whole_s'])}  ({summary['whole']})",
        f"  its parts          {parts or 'n/a'}",
        f"  bound              {bound}",
        f"  host launch        {_launch_text(summary['launch'])}",
        f"  steps              {len(summary['steps'])}"
        + (f" ({', '.join(s['step'] for s in summary['steps'][:4])}" if summary["steps"] else "")
        + (", ...)" if len(summary["steps"]) > 4 else ")" if summary["steps"] else ""),
        "  top ops by time    time        FLOPs        AI          attained       bound",
    ]
    for row in summary["by_op"][:OP_ROWS]:
        lines.append(
            f"    {row['op'][:34]:<34} {seconds(row['time_s']):>10} {si(row['flops'], 'FLOP'):>12} "
            f"{number(row['arithmetic_intensity']):>9}  {si(row['attained_flops_per_s'], 'FLOP/s'):>13}"
            f"  {row['bound'] or 'n/a'}"
        )
    return "\n".join(lines + finding_lines(summary["findings"]))
