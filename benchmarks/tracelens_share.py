"""Run inside TraceLens's own environment (`coverage.py --tracelens` starts it, one process per
trace): `python benchmarks/tracelens_share.py TRACE` prints one JSON object, the GPU events of
the ops TraceLens costs. Only the standard library and TraceLens are imported here, so the
peer's dependencies never meet this project's.

An op is costed when its row of TraceLens's unified perf table
(`TreePerfAnalyzer.build_df_unified_perf_table`) has a FLOP count (`GFLOPS`) or bytes moved
(`Data Moved (MB)`). Its GPU events are the row's `kernel_details`, each looked up by UID in
TraceLens's tree for its category, start and duration; an event under two costed rows is
listed once.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys
import warnings
from typing import Any


def costed_events(path: str) -> dict[str, Any]:
    from TraceLens import TreePerfAnalyzer

    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        analyzer = TreePerfAnalyzer.from_file(path)
        table = analyzer.build_df_unified_perf_table(analyzer.collect_unified_perf_events())
    if table.empty:
        return {"rows": 0, "costed_rows": 0, "events": []}
    events: dict[int, list[Any]] = {}
    costed = 0
    for _, row in table.iterrows():
        flops, moved = row.get("GFLOPS"), row.get("Data Moved (MB)")
        if not (_number(flops) or _number(moved)):
            continue
        costed += 1
        for kernel in row.get("kernel_details") or []:
            uid = kernel.get("gpu_op_uid")
            if uid is None or uid in events:
                continue
            event = analyzer.tree.events_by_uid.get(uid, {})
            events[uid] = [
                kernel.get("name") or event.get("name"),
                event.get("cat"),
                float(event.get("ts", 0.0)),
                float(kernel.get("dur") or event.get("dur") or 0.0),
            ]
    return {"rows": len(table), "costed_rows": costed, "events": list(events.values())}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not math.isnan(value)


if __name__ == "__main__":
    print(json.dumps(costed_events(sys.argv[1])))
