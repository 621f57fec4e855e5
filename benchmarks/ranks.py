"""Memory of a multi-rank capture (issue 33): a capture of two ranks against one of many
such ranks, each summarized in its own process for its own peak memory (and one rank alone,
for reference). The capture reads one rank at a time, so its peak does not grow with the
number of ranks (`RANKS_TARGET`: the ratio of the two captures' peaks, in one run). Against
one rank alone it is higher by what the first rank leaves allocated (imports made on first
use, allocator arenas), about 45 MB on this machine, whatever the number of ranks.

The ranks are copies of one trace generated from the real A100 control trace
(`generate_trace`), each with its own `distributedInfo.rank`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from benchmarks.generate_trace import generate_trace

RANKS_TARGET = 1.10  # peak of the capture of many ranks over that of two, at most
_INFO = re.compile(r'^(  "distributedInfo": )(\{.*\})(,?)$', re.MULTILINE)


def rank_copies(source: Path, folder: Path, ranks: int) -> list[Path]:
    """`ranks` copies of `source` in `folder` as rank-N.json, each naming its own rank and the
    world size in its distributedInfo (added after the first line when the source has none)."""
    text = source.read_text(encoding="utf-8")
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for rank in range(ranks):
        info = {"backend": "nccl", "rank": rank, "world_size": ranks}
        line = json.dumps(info)
        if _INFO.search(text):
            copy = _INFO.sub(lambda m, line=line: f"{m.group(1)}{line}{m.group(3)}", text, count=1)
        else:
            copy = text.replace("{\n", '{\n  "distributedInfo": ' + line + ",\n", 1)
        path = folder / f"rank-{rank}.json"
        path.write_text(copy, encoding="utf-8")
        paths.append(path)
    return paths


def measure_ranks(data: Path, megabytes: int, ranks: int, run_child: Any) -> dict[str, Any]:
    """Peak memory and time of one rank alone, of a capture of two, and of `ranks`."""
    trace = data / "traces" / f"{megabytes}MB" / "trace.json"
    generate_trace(trace, megabytes * 1_000_000)
    runs = {}
    for count in (2, ranks):
        folder = data / "ranks" / f"{megabytes}MB-x{count}"
        paths = rank_copies(trace, folder, count)
        runs[count] = run_child("ranks_summarize", folder)
        assert runs[count]["result"]["ranks"] == count, runs[count]
        assert not runs[count]["result"]["problems"], runs[count]
    one = run_child("trace_summarize", paths[0])
    size = paths[0].stat().st_size
    return {
        "rank_megabytes": size / 1e6,
        "ranks": ranks,
        "capture_megabytes": size * ranks / 1e6,
        "one_rank_seconds": one["seconds"],
        "one_rank_peak_rss_bytes": one["peak_rss_bytes"],
        "two_ranks_seconds": runs[2]["seconds"],
        "two_ranks_peak_rss_bytes": runs[2]["peak_rss_bytes"],
        "capture_seconds": runs[ranks]["seconds"],
        "capture_peak_rss_bytes": runs[ranks]["peak_rss_bytes"],
        "peak_ratio": runs[ranks]["peak_rss_bytes"] / runs[2]["peak_rss_bytes"],
        "target_peak_ratio": RANKS_TARGET,
    }
