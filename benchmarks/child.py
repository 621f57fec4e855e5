"""One timed run in its own process, so each implementation has its own peak RSS:
`python -m benchmarks.child IMPL FILE` prints a JSON object."""

from __future__ import annotations

import importlib
import json
import resource
import sys
import time
from pathlib import Path

from benchmarks.implementations import IMPLEMENTATIONS

# Imported before the clock starts: the benchmark times parsing, not interpreter start-up.
PRELOAD = {
    "ours": ("polars", "generator.ingest", "generator.analysis.roofline"),
    "ours_streaming": ("polars", "generator.ingest", "generator.analysis.roofline"),
    "pandas": ("pandas",),
    "pandas_vectorized": ("pandas",),
    "floor": ("polars",),
    "trace_parse": ("generator.ingest.trace.read",),
    "trace_summarize": ("polars", "generator.summaries.trace"),
    "ranks_summarize": ("polars", "generator.summaries.multirank"),
    "hta_parse": ("pandas", "hta.common.trace"),
    "hta_load": ("pandas", "hta.common.trace", "hta.trace_analysis"),
}


def peak_rss_bytes() -> int:
    """This process's peak resident memory. Linux's VmHWM, the high-water mark of this
    program's own memory: ru_maxrss also keeps, across the exec that started this child, the
    resident size of the parent it was forked from (the benchmark runner, which holds a
    generated 100 MB trace), and so reported that as every child's peak."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def main(name: str, path: str) -> int:
    function = IMPLEMENTATIONS[name]
    for module in PRELOAD[name]:
        importlib.import_module(module)
    baseline = peak_rss_bytes()
    start = time.perf_counter()
    result = function(Path(path))
    seconds = time.perf_counter() - start
    peak = peak_rss_bytes()
    report = {"seconds": seconds, "peak_rss_bytes": peak, "baseline_rss_bytes": baseline}
    # On its own last line: a library's chatter on stdout cannot garble it.
    print("\n" + json.dumps({**report, "result": result}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
