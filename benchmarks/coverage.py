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
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.peer import git_commit
from generator.atomic import write_json
from generator.summaries.trace import summarize_trace

HERE = Path(__file__).resolve().parent


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


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:5.1f} %"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None, help="results.json to update")
    parser.add_argument("--source", action="append", default=[], help="NAME=COMMIT")
    args = parser.parse_args(argv)
    rows = []
    for folder in args.folders:
        for path in sorted(folder.rglob("*.json*")):
            if not path.name.endswith((".json", ".json.gz")):
                continue
            row = coverage_row(path, folder) | {"source": folder.name}
            rows.append(row)
            if "error" in row:
                print(f"{row['trace'][:70]:<70} refused: {row['error']}", flush=True)
                continue
            print(
                f"{row['trace'][:70]:<70} exact {_share(row['exact'])}  bounded "
                f"{_share(row['bounded'])}  comm {_share(row['communication'])}  copies "
                f"{_share(row['copies'])}  covered/computation "
                f"{_share(row['covered_of_computation'])}"
                + ("" if row["with_shapes"] else "  (no shapes)"),
                flush=True,
            )
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    if args.out is not None:
        results = {
            "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "roofline_atlas": git_commit(HERE.parent),
            "sources": dict(s.split("=", 1) for s in args.source),
            "traces": rows,
        }
        document = json.loads(args.out.read_text(encoding="utf-8"))
        write_json(args.out, [{**entry, "coverage": results} for entry in document])
    return 0


if __name__ == "__main__":
    sys.exit(main())
