"""A multi-rank capture from files to findings: `summarize` and `import` print its summary
(per rank: its steps split in time and its work; per step: the straggler), and
`summarize --json` gives it as one object in base units."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from generator.analysis.multirank import MultiRank, analyse_ranks
from generator.analysis.roofs import roof_json
from generator.findings.rank_checks import rank_findings
from generator.formatting import percent, seconds, si
from generator.records.ceilings import MeasuredCeilings
from generator.records.finding import Finding, finding_lines, findings_json

FORMAT = "multi-rank torch.profiler capture"
SPLIT = ("step_s", "compute_s", "communication_s", "overlap_s", "exposed_communication_s", "idle_s")


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _records(frame: pl.DataFrame) -> list[dict[str, Any]]:
    return [{k: _clean(v) for k, v in row.items()} for row in frame.iter_rows(named=True)]


def per_rank(capture: MultiRank) -> pl.DataFrame:
    """One row per rank: its steps' median time split, and its FLOPs a step."""
    return (
        capture.steps.group_by("rank")
        .agg(
            pl.len().alias("steps"),
            *(pl.col(c).median() for c in SPLIT),
            pl.col("flops").median(),
        )
        .sort("rank")
    )


def multirank_summary(capture: MultiRank, findings: Sequence[Finding]) -> dict[str, Any]:
    ranks = per_rank(capture)
    info = {r.rank: r for r in capture.ranks}
    return {
        "file": [str(p) for p in capture.inputs],
        "format": FORMAT,
        "world_size": capture.world_size,
        "backend": capture.backend,
        "on_gpu": any(r.on_gpu for r in capture.ranks),
        "device_name": next((r.device for r in capture.ranks if r.device), None),
        "roof": roof_json(capture.roofs),
        "ranks": [
            row
            | {
                "file": str(info[row["rank"]].path),
                "rank_from": info[row["rank"]].rank_from,
                "kernels": info[row["rank"]].kernels,
                "ops": info[row["rank"]].ops,
            }
            for row in _records(ranks)
        ],
        "common_steps": capture.common_steps,
        "steps": _records(capture.steps),
        "stragglers": _records(capture.stragglers),
        "problems": [p.message for p in capture.problems],
        "findings": findings_json(findings),
    }


def summarize_ranks(
    inputs: Sequence[Path],
    device: str | None,
    ceilings: MeasuredCeilings | None = None,
) -> dict[str, Any]:
    capture = analyse_ranks(inputs, device, ceilings)
    return multirank_summary(capture, rank_findings(capture))


def format_multirank_summary(summary: dict[str, Any]) -> str:
    files = summary["file"]
    where = files[0] if len(files) == 1 else f"{files[0]} and {len(files) - 1} more"
    world = summary["world_size"] or "unknown"
    lines = [
        f"{where}  ({FORMAT}: {len(summary['ranks'])} ranks read of world size {world}, "
        f"backend {summary['backend'] or 'not recorded'})",
        f"  work               {'GPU kernels' if summary['on_gpu'] else 'CPU ops, no GPU kernels'}"
        f"; steps compared: {len(summary['common_steps'])}",
        "  per rank (median step)    step        compute     comm        overlap     exposed     "
        "idle        FLOPs",
    ]
    for row in summary["ranks"]:
        cells = "".join(f"{seconds(row[c]):<12}" for c in SPLIT[:3])
        cells += "".join(f"{seconds(row[c]):<12}" for c in SPLIT[3:])
        lines.append(f"    rank {row['rank']:<18} {cells}{si(row['flops'], 'FLOP')}")
    lines.append("  straggler per step      rank  computes    others (median)  lag")
    for row in summary["stragglers"]:
        share = percent(100 * row["lag_share"]) if row["lag_share"] is not None else "n/a"
        lines.append(
            f"    {row['step'][:22]:<22} {row['straggler_rank']:<5} "
            f"{seconds(row['compute_s']):<11} {seconds(row['others_compute_s']):<16} "
            f"{seconds(row['lag_s'])} ({share})"
        )
    return "\n".join(lines + finding_lines(summary["findings"]))
