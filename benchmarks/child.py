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
    "hta_parse": ("pandas", "hta.common.trace"),
    "hta_load": ("pandas", "hta.common.trace", "hta.trace_analysis"),
}


def main(name: str, path: str) -> int:
    function = IMPLEMENTATIONS[name]
    for module in PRELOAD[name]:
        importlib.import_module(module)
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB
    start = time.perf_counter()
    result = function(Path(path))
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    report = {"seconds": seconds, "peak_rss_bytes": peak, "baseline_rss_bytes": baseline}
    # On its own last line: a library's chatter on stdout cannot garble it.
    print("\n" + json.dumps({**report, "result": result}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
