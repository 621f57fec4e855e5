"""Reading a binary Nsight Compute report against the reader's own floor.

The floor is a bare ncu-report iteration of the same file: load it, then fetch the value of
every metric of every kernel (what any program that reads the report must at least do to see
its numbers). Ours is `read_ncu_rep`: the header, the metrics the analysis reads, and the
CSV path's stages into the kernel table (units, rebuilt counts). Both run in this process,
alternating, after one warm-up each (the reader's native library and Polars loaded), and the
best of `repeats` counts; the ratio is taken within one run, on one machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPORTS = Path(__file__).resolve().parents[1] / "tests" / "data" / "ncu-rep"
TARGET_RATIO = 1.5  # issue 50: at most 1.5× the bare iteration


def bare_iteration(path: Path) -> int:
    """The floor: every metric value of every kernel, through ncu-report alone."""
    import ncu_report  # type: ignore[import-not-found,unused-ignore]

    context = ncu_report.load_report(str(path))
    values = 0
    for r in range(context.num_ranges()):
        report_range = context.range_by_idx(r)
        for a in range(report_range.num_actions()):
            action = report_range.action_by_idx(a)
            for name in action.metric_names():
                action.metric_by_name(name).value()
                values += 1
    return values


def ours(path: Path) -> int:
    from generator.ingest.ncu_rep import read_ncu_rep

    export, _, _ = read_ncu_rep(path)
    return export.kernels.height


def _best(run: Callable[[Path], int], path: Path, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run(path)
        best = min(best, time.perf_counter() - start)
    return best


def measure_reports(repeats: int = 15) -> dict[str, Any]:
    """Per real report in tests/data/ncu-rep: both times (best of `repeats`, interleaved in
    rounds of one) and their ratio; the largest report's ratio is the one held to the target."""
    files = sorted(REPORTS.glob("*.ncu-rep"), key=lambda p: p.stat().st_size)
    rows = []
    for path in files:
        bare_iteration(path), ours(path)  # warm-up: libraries and caches loaded
        floors, reads = [], []
        for _ in range(repeats):  # interleaved: a busy moment slows both, not one
            floors.append(_best(bare_iteration, path, 1))
            reads.append(_best(ours, path, 1))
        floor, read = min(floors), min(reads)
        rows.append(
            {
                "file": path.name,
                "bytes": path.stat().st_size,
                "kernels": ours(path),
                "metric_values": bare_iteration(path),
                "floor_s": floor,
                "ours_s": read,
                "ratio_to_floor": read / floor,
            }
        )
    largest = rows[-1]
    return {
        "repeats": repeats,
        "reports": rows,
        "target_ratio": TARGET_RATIO,
        "largest_ratio": largest["ratio_to_floor"],
        "meets_target": largest["ratio_to_floor"] <= TARGET_RATIO,
    }


def reports_table(result: dict[str, Any]) -> str:
    lines = [
        "| report | kernels | metric values | floor | ours | ours / floor |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in result["reports"]:
        lines.append(
            f"| {row['file']} | {row['kernels']} | {row['metric_values']:,} | "
            f"{row['floor_s'] * 1e3:.1f} ms | {row['ours_s'] * 1e3:.1f} ms | "
            f"{row['ratio_to_floor']:.2f} |"
        )
    verdict = "meets" if result["meets_target"] else "misses"
    lines.append(
        f"\nlargest report: {result['largest_ratio']:.2f}× the floor ({verdict} the "
        f"{result['target_ratio']}× target)"
    )
    return "\n".join(lines)
