"""Coverage on traces nobody tuned for: `python -m benchmarks.coverage FOLDER...` reads every
torch.profiler trace (`*.json`, `*.json.gz`) under the folders given (HolisticTraceAnalysis's
and TraceLens's public test data, fetched apart: they stay out of this repository) and prints,
per trace, the parts of its whole (the GPU's busy time, summaries/trace.py) that matter for
coverage: exact, bounded, communication, copies, and the exact-or-bounded share of what is
neither communication nor copies (issue 65's goal: at least 50 % on a production trace with
shapes). `--json PATH` writes the rows; `--out results.json` stores them in every entry of
benchmarks/results.json under "coverage" (the other results kept), which the Tool
performance page shows; `--source NAME=COMMIT` names each folder's repository and commit.
A trace this tool refuses is a row with its error.

`--tracelens FOLDER --tracelens-python PYTHON` adds the peer's column: TraceLens (the
`TraceLens` package in FOLDER) run by PYTHON, an interpreter of its own environment, one
process per trace (`benchmarks/tracelens_share.py`), each stopped after `--timeout` seconds.
Its share is matched to ours, over the same denominator:

    ours:      (modelled + bounded kernel time) / (GPU busy time - communication - copies)
    TraceLens: (kernel time of the ops TraceLens costs) / (the same denominator, ours)

where the ops TraceLens costs are the rows of its unified perf table with a FLOP count or bytes
moved, and their kernel time is the busy time (overlaps counted once) of their GPU events of
category `kernel`, less communication kernels (`analysis.kernels.COMMUNICATION`, the rule our
communication share uses): memcpy and memset events, which are copies on both sides, are left
out, and an event under two costed rows counts once. Where TraceLens fails or runs out of time,
the row keeps its error text (`tracelens_error`) instead.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.peer import git_commit
from generator.analysis.kernels import COMMUNICATION
from generator.atomic import write_json
from generator.summaries.trace import summarize_trace

HERE = Path(__file__).resolve().parent
PEER_SCRIPT = HERE / "tracelens_share.py"
_COMMUNICATION = re.compile(COMMUNICATION)


def coverage_row(path: Path, root: Path) -> dict[str, Any]:
    """One trace's coverage, or the error that stopped it."""
    row: dict[str, Any] = {"trace": str(path.relative_to(root))}
    started = time.perf_counter()
    try:
        summary = summarize_trace(path, None)
    except Exception as error:  # a refused file is a result here, not a crash
        return row | {"error": f"{type(error).__name__}: {error}"[:200]}
    shares = summary["shares"]
    computation = 1 - shares["communication"] - shares["copies and memsets"]
    covered = shares["modelled"] + shares["bounded"]
    return row | {
        "seconds": round(time.perf_counter() - started, 2),
        "on_gpu": summary["on_gpu"],
        "with_shapes": summary["ops_with_shapes"] > 0,
        "whole_s": summary["whole_s"],
        "exact": shares["modelled"],
        "bounded": shares["bounded"],
        "communication": shares["communication"],
        "copies": shares["copies and memsets"],
        "overhead": shares["dispatch overhead"],
        "covered_of_computation": covered / computation if computation > 0 else None,
        "largest_uncounted": [
            (r["op"], r["cause"], round(r["share"], 4))
            for r in summary["by_op"]
            if r["cause"] not in (None, "communication", "copies and memsets")
        ][:3],
    }


def busy_seconds(intervals: list[tuple[float, float]]) -> float:
    """The time covered by (start, duration) intervals in µs, overlaps once, in seconds."""
    busy, end = 0.0, float("-inf")
    for start, duration in sorted(intervals):
        stop = start + duration
        if stop > end:
            busy += stop - max(start, end)
            end = stop
    return busy * 1e-6


def tracelens_share(
    path: Path, row: dict[str, Any], folder: Path, python: str, timeout: float
) -> dict[str, Any]:
    """TraceLens's columns of one row (module docstring: the share matched to ours)."""
    if "error" in row or not row["on_gpu"]:
        return {}  # no denominator of ours to put the peer's time over
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [python, str(PEER_SCRIPT), str(path)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=os.environ | {"PYTHONPATH": str(folder)},
        )
    except subprocess.TimeoutExpired:
        return {"tracelens_error": f"timed out after {timeout:.0f} s"}
    seconds = round(time.perf_counter() - started, 2)
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        return {"tracelens_error": (lines[-1] if lines else f"exit {done.returncode}")[:200]}
    found = json.loads(done.stdout.strip().splitlines()[-1])
    kernels = [
        (start, duration)
        for name, category, start, duration in found["events"]
        if category == "kernel" and not _COMMUNICATION.search(name or "")
    ]
    computation_s = row["whole_s"] * (1 - row["communication"] - row["copies"])
    costed_s = busy_seconds(kernels)
    return {
        "tracelens_seconds": seconds,
        "tracelens_costed_rows": found["costed_rows"],
        "tracelens_rows": found["rows"],
        "tracelens_costed_s": costed_s,
        "tracelens_covered_of_computation": costed_s / computation_s if computation_s > 0 else None,
    }


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:5.1f} %"


def _peer_text(row: dict[str, Any]) -> str:
    if "tracelens_error" in row:
        return f"  TraceLens: {row['tracelens_error']}"
    if "tracelens_covered_of_computation" in row:
        return f"  TraceLens {_share(row['tracelens_covered_of_computation'])}"
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None, help="results.json to update")
    parser.add_argument("--source", action="append", default=[], help="NAME=COMMIT")
    parser.add_argument("--tracelens", type=Path, help="folder holding the TraceLens package")
    parser.add_argument(
        "--tracelens-python", default=sys.executable, help="the Python of TraceLens's environment"
    )
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per trace (peer)")
    args = parser.parse_args(argv)
    rows = []
    for folder in args.folders:
        for path in sorted(folder.rglob("*.json*")):
            if not path.name.endswith((".json", ".json.gz")):
                continue
            row = coverage_row(path, folder) | {"source": folder.name}
            if args.tracelens is not None:
                row |= tracelens_share(
                    path, row, args.tracelens, args.tracelens_python, args.timeout
                )
            rows.append(row)
            if "error" in row:
                print(f"{row['trace'][:70]:<70} refused: {row['error']}", flush=True)
                continue
            print(
                f"{row['trace'][:70]:<70} exact {_share(row['exact'])}  bounded "
                f"{_share(row['bounded'])}  comm {_share(row['communication'])}  copies "
                f"{_share(row['copies'])}  covered/computation "
                f"{_share(row['covered_of_computation'])}"
                + ("" if row["with_shapes"] else "  (no shapes)")
                + _peer_text(row),
                flush=True,
            )
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    if args.out is not None:
        results = {
            "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "roofline_atlas": git_commit(HERE.parent),
            "sources": dict(s.split("=", 1) for s in args.source),
            "tracelens_run": args.tracelens is not None,
            "traces": rows,
        }
        document = json.loads(args.out.read_text(encoding="utf-8"))
        write_json(args.out, [{**entry, "coverage": results} for entry in document])
    return 0


if __name__ == "__main__":
    sys.exit(main())
