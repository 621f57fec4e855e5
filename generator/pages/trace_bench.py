"""The Tool performance page's "profiler traces" section, from the `traces` entry of
benchmarks/results.json (benchmarks/run.py writes it: `nox -s bench -- --traces-only`)."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from generator.formatting import si
from generator.records.bench_results import TraceBench, TraceSize, TraceTargets


class TraceContext(TypedDict):
    """The template's `traces` context: only `not_measured` when nothing was measured."""

    measured: bool
    not_measured: NotRequired[str]
    rows: NotRequired[list[list[str]]]
    verdict: NotRequired[str]
    measured_at: NotRequired[str]
    source: NotRequired[str]
    repeats: NotRequired[int]
    hta: NotRequired[str]


NOT_MEASURED = (
    "Not measured yet: `nox -s bench -- --traces-only` times our trace reader and summary "
    "against HolisticTraceAnalysis' loader on ~10 and ~100 MB traces."
)


def _timed(best: float, runs: list[float] | None) -> str:
    """The best of the repeats, with the range all of them spanned."""
    runs = runs or [best]
    return f"{si(best, 's')} ({si(min(runs), 's')}–{si(max(runs), 's')})"


def _row(size: TraceSize) -> list[str]:
    return [
        si(size["bytes"], "B"),
        f"{size.get('events', 0):,}",
        _timed(size["parse_s"], size.get("parse_all_s")),
        _timed(size["summarize_s"], size.get("summarize_all_s")),
        _timed(size["hta_load_s"], size.get("hta_load_all_s")),
        f"{size['hta_load_s'] / size['summarize_s']:.1f}×",
        f"{size['parse_rss_to_file']:.2f}",
        f"{size['summarize_rss_to_file']:.2f}",
        f"{size['hta_load_rss_to_file']:.2f}",
    ]


def _verdict(sizes: list[TraceSize], targets: TraceTargets) -> str:
    largest = max(sizes, key=lambda s: s["bytes"])
    if largest["bytes"] < 100_000_000 or "hta_load_over_summarize_at_100MB" not in targets:
        return "No 100 MB trace was measured against these targets."
    speedup = largest["hta_load_s"] / largest["summarize_s"]
    memory = largest["parse_rss_to_file"]
    want_speedup = targets["hta_load_over_summarize_at_100MB"]
    want_memory = targets["parse_rss_to_file_at_100MB"]
    return (
        f"At {si(largest['bytes'], 'B')} our whole summary was {speedup:.1f}× faster than HTA's "
        f"loader (target: at least {want_speedup:.0f}×, "
        + ("met" if speedup >= want_speedup else "missed")
        + f"), and reading the trace peaked at {memory:.2f}× the file in memory, the whole "
        f"process counted (target: at most {want_memory:.0f}×, "
        + ("met" if memory <= want_memory else "missed")
        + ")."
    )


def trace_section(traces: TraceBench | None) -> TraceContext:
    """The template's `traces` context."""
    if not traces or not traces.get("sizes"):
        return {"measured": False, "not_measured": NOT_MEASURED}
    sizes = sorted(traces["sizes"], key=lambda s: s["bytes"])
    versions = traces.get("versions", {})
    return {
        "measured": True,
        "rows": [_row(s) for s in sizes],
        "verdict": _verdict(sizes, traces.get("targets", {})),
        "measured_at": traces.get("measured_at", ""),
        "source": traces.get("source", ""),
        "repeats": traces.get("repeats", 1),
        "hta": versions.get("holistictraceanalysis", "?"),
    }
