"""Two profiling passes of the same launches, joined into one file, are one set of launches.

People who cannot collect every metric in one ncu run (or want timing undisturbed by
counter replay) profile twice, one metric set each, and concatenate the CSVs. The second
run has another process ID but the same kernel IDs and names. Kept apart, every kernel
would appear twice with half its metrics, and every total would be n/a.
"""

from __future__ import annotations

from collections import defaultdict

import polars as pl

# Metrics both passes may carry with the same value: launch configuration, device
# attributes and the profiler's own bookkeeping.
_SHARED_PREFIXES = ("launch__", "device__", "profiler__")


def join_passes(metrics: pl.DataFrame) -> tuple[pl.DataFrame, str | None]:
    """Give the processes that are passes of one run the first one's id.

    Processes are passes of one run when they launched the same kernels (the same IDs with
    the same names, in any order) and measured disjoint metrics (launch, device and
    profiler attributes aside). Returns the table and a note saying what was joined."""
    if metrics["process_id"].n_unique() < 2:
        return metrics, None
    kernels = (
        metrics.select("process_id", "kernel_id", "kernel_name")
        .unique()
        .with_columns(pl.col("kernel_name").cast(pl.String))
    )
    launches: dict[int, frozenset[tuple[int, str]]] = defaultdict(frozenset)
    for key, group in kernels.group_by("process_id"):
        launches[int(key[0])] = frozenset(
            zip(group["kernel_id"].to_list(), group["kernel_name"].to_list(), strict=True)
        )
    measured = (
        metrics.select("process_id", "metric")
        .unique()
        .with_columns(pl.col("metric").cast(pl.String))
        .filter(~pl.col("metric").str.starts_with(_SHARED_PREFIXES[0]))
        .filter(~pl.col("metric").str.starts_with(_SHARED_PREFIXES[1]))
        .filter(~pl.col("metric").str.starts_with(_SHARED_PREFIXES[2]))
        .group_by("process_id")
        .agg("metric")
    )
    metric_sets = {
        int(row["process_id"]): set(row["metric"]) for row in measured.iter_rows(named=True)
    }
    by_launches: dict[frozenset[tuple[int, str]], list[int]] = defaultdict(list)
    for pid in sorted(launches):
        by_launches[launches[pid]].append(pid)
    renames: dict[int, int] = {}
    joined: list[str] = []
    for pids in by_launches.values():
        if len(pids) < 2:
            continue
        seen: set[str] = set()
        disjoint = True
        for pid in pids:
            own = metric_sets.get(pid, set())
            if own & seen:
                disjoint = False
                break
            seen |= own
        if disjoint:
            renames.update({pid: pids[0] for pid in pids[1:]})
            joined.append(", ".join(str(p) for p in pids))
    if not renames:
        return metrics, None
    merged = metrics.with_columns(
        pl.col("process_id").replace(list(renames), list(renames.values()))
    )
    note = (
        f"profiling passes joined into one set of launches: processes {'; '.join(joined)} "
        "launched the same kernels and measured different metrics"
    )
    return merged, note
