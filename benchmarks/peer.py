"""The peer: TraceLens (AMD-AGI/TraceLens, MIT) and Roofline Atlas on the same real traces.

`python -m benchmarks.peer --tracelens PATH` (PATH: a folder holding TraceLens's `TraceLens`
package, or nothing when it is installed) runs both tools on the real Kineto traces in
tests/data/traces/ and writes benchmarks/peer.json: per trace, the kernel time (summed from
the raw events with `json`, the same denominator for both), each tool's modelled share of it
(kernel time in ops that got FLOPs), and per op name the FLOPs and bytes of the ops both
tools model, into every entry of benchmarks/results.json under "peer" (the other results
kept), which the Tool performance page shows. TraceLens's "Data Moved (MB)" is MiB (2^20
bytes). Our rows for kernels
attributed by identity (no launch event) are left out of the per-op table: TraceLens has no
such rows, so the ops compared are the calls the trace recorded.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import subprocess
import sys
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from generator.atomic import write_json
from generator.ingest.trace.attribute import BY_IDENTITY
from generator.summaries.trace import summarize_trace

HERE = Path(__file__).resolve().parent
TRACES = HERE.parent / "tests" / "data" / "traces"
RESULTS = HERE / "results.json"
MIB = 2**20


def kernel_time_s(path: Path) -> float:
    """Summed kernel durations, straight from the events."""
    with gzip.open(path) if path.suffix == ".gz" else path.open("rb") as text:
        events = json.load(text)["traceEvents"]
    return sum(e.get("dur", 0) for e in events if e.get("cat") == "kernel") * 1e-6


def ours(path: Path) -> dict[str, Any]:
    summary = summarize_trace(path, None)
    ops = {
        row["op"]: {"flops": row["flops"], "bytes": row["bytes"], "time_s": row["time_s"]}
        for row in summary["by_op"]
        if row["flops"] is not None and not row["op"].endswith(BY_IDENTITY)
    }
    return {"counted_time_s": summary["counted_time_s"] or 0.0, "ops": ops}


def tracelens(path: Path) -> dict[str, Any]:
    from TraceLens import TreePerfAnalyzer  # imported here: an optional peer

    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        analyzer = TreePerfAnalyzer.from_file(str(path))
        table = analyzer.build_df_unified_perf_table(analyzer.collect_unified_perf_events())
    modelled = table[table["GFLOPS"].notna()]
    ops: dict[str, dict[str, float]] = {}
    for name, group in modelled.groupby("name"):
        ops[str(name)] = {
            "flops": float(group["GFLOPS"].sum()) * 1e9,
            "bytes": float(group["Data Moved (MB)"].fillna(0).sum()) * MIB,
            "time_s": float(group["Kernel Time (µs)"].fillna(0).sum()) * 1e-6,
        }
    return {
        "counted_time_s": float(modelled["Kernel Time (µs)"].fillna(0).sum()) * 1e-6,
        "ops": ops,
    }


def compare(path: Path) -> dict[str, Any]:
    total = kernel_time_s(path)
    entry: dict[str, Any] = {"file": path.name, "kernel_time_s": total}
    mine = ours(path)
    entry["ours_modelled_share"] = mine["counted_time_s"] / total if total else None
    try:
        peer = tracelens(path)
    except Exception as err:  # the peer's own failure is a result: recorded, not fatal
        entry["tracelens_error"] = f"{type(err).__name__}: {err}"[:200]
        entry["ops"] = []
        return entry
    entry["tracelens_modelled_share"] = peer["counted_time_s"] / total if total else None
    both = sorted(set(mine["ops"]) & set(peer["ops"]))
    entry["ops"] = [
        {
            "op": op,
            "ours_flops": mine["ops"][op]["flops"],
            "tracelens_flops": peer["ops"][op]["flops"],
            "ours_bytes": mine["ops"][op]["bytes"],
            "tracelens_bytes": peer["ops"][op]["bytes"],
        }
        for op in both
    ]
    return entry


def git_commit(folder: Path) -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True
        )
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tracelens", type=Path, help="folder holding the TraceLens package")
    parser.add_argument("--tracelens-commit", default="", help="the TraceLens commit it is")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results.json to update")
    args = parser.parse_args(argv)
    if args.tracelens:
        sys.path.insert(0, str(args.tracelens))
    traces = sorted(p for p in TRACES.glob("*.json.gz"))
    results = {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "roofline_atlas": git_commit(HERE.parent),
        "tracelens": args.tracelens_commit or "unknown",
        "traces": [compare(path) for path in traces],
    }
    if not args.out.is_file():
        raise SystemExit(f"{args.out} does not exist: run the full benchmark first")
    document = json.loads(args.out.read_text(encoding="utf-8"))
    write_json(args.out, [{**entry, "peer": results} for entry in document])
    for entry in results["traces"]:
        peer = entry.get("tracelens_modelled_share")
        print(
            f"{entry['file'][:60]:<60} ours {100 * (entry['ours_modelled_share'] or 0):5.1f} %"
            + (
                f"  TraceLens {100 * peer:5.1f} %"
                if peer is not None
                else f"  TraceLens: {entry.get('tracelens_error')}"
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
