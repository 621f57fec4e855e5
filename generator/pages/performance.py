"""The "Tool performance" page from benchmarks/results.json (written by `nox -s bench`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from generator.findings.calibration_checks import coverage
from generator.formatting import si
from generator.pages.page import Generated, Page
from generator.pages.paths import GENERATED_DIR
from generator.pages.peer_bench import coverage_section, peer_section
from generator.pages.render import ChartBook, render
from generator.pages.scaling import scaling_section
from generator.pages.trace_bench import trace_section
from generator.records.benchmarks import BenchmarkResults
from generator.records.calibration import CalibrationFile


def _cold_range(times: list[float] | None) -> str:
    """ "the median of 3 builds, 29 s to 34 s" for the cold builds of the committed report
    (a single build: nothing; its time is all there is)."""
    if not times or len(times) < 2:
        return ""
    return f"the median of {len(times)} builds, {si(min(times), 's')} to {si(max(times), 's')}"


def _times(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}×"


NOT_MEASURED = (
    "# Tool performance\n\nNo benchmark results yet: `nox -s bench` writes "
    "`benchmarks/results.json`, and this page shows them.\n"
)


PATH = f"{GENERATED_DIR}/performance.md"


def calibration_note(calibrations: Sequence[CalibrationFile]) -> str:
    """The measurement side of the tool's performance: do its stated intervals hold?"""
    found = coverage(calibrations)
    what = found.sentence() if found else (
        "No re-measurement is on record yet (`python -m generator remeasure`).")  # fmt: skip
    return (
        f'!!! abstract "Do the measurement intervals hold?"\n    {what} Each one, and the '
        "noise at each level of every result, is on [Do the intervals hold?](calibration.md).\n"
    )


def _with_note(markdown: str, note: str) -> str:
    head, _, rest = markdown.partition("\n\n")
    return f"{head}\n\n{note}\n{rest}"


def performance_page(
    results: BenchmarkResults | None, calibrations: Sequence[CalibrationFile] = ()
) -> Page:
    note = calibration_note(calibrations)
    if results is None or not results.entries:
        return Page(PATH, "Tool performance", _with_note(NOT_MEASURED, note))
    entries = results.entries
    first = entries[0]
    rows = [
        [
            f"{e['rows']:,}",
            si(e["bytes"], "B"),
            si(e["ours_s"], "s"),
            si(e["floor_s"], "s"),
            f"{e['ratio_to_floor']:.2f}",
            si(e.get("pandas_s"), "s"),
            _times(e.get("speedup_vs_pandas")),
            si(e.get("pandas_vectorized_s"), "s"),
            _times(e.get("speedup_vs_pandas_vectorized")),
            e.get("path", "in-memory"),
            si(e["peak_rss_bytes"], "B"),
            f"{e['rss_to_file']:.2f}",
            si(e["rows_per_s"], "rows/s"),
            si(e.get("streaming_s"), "s"),
            f"{e['streaming_rss_to_file']:.2f}" if "streaming_rss_to_file" in e else "n/a",
        ]
        for e in entries
    ]
    targets = first["targets"]
    at_1m = next((e for e in entries if e["rows"] == 1_000_000), None)
    misses = []
    # The targets are stated at 1M rows; other sizes are shown beside them, not judged.
    if at_1m is None:
        misses.append("no 1M-row size was measured")
    else:
        if at_1m.get("speedup_vs_pandas", 0) < targets["speedup_vs_pandas_at_1M"]:
            misses.append(f"the speedup is {at_1m['speedup_vs_pandas']:.1f}×")
        if at_1m["ratio_to_floor"] > targets["ratio_to_floor"]:
            misses.append(f"ours takes {at_1m['ratio_to_floor']:.2f}× the floor")
        if at_1m["rss_to_file"] > targets["rss_to_file"]:
            misses.append(f"peak memory is {at_1m['rss_to_file']:.2f}× the file")
    others = [e for e in entries if e is not at_1m]
    worst = max(others, key=lambda e: e["ratio_to_floor"], default=None)
    verdict = (
        "Missed at 1M rows on this run: " + "; ".join(misses) + "."
        if misses
        else "All three hold at 1M rows on this run."
    )
    if worst is not None:
        verdict += (
            f" At the other sizes ours takes up to {worst['ratio_to_floor']:.2f}× the floor "
            f"({worst['rows']:,} rows, {worst.get('path', 'in-memory')} path)."
        )
    site_build = first.get("site_build") or {}
    site = {
        "first": si(site_build.get("first_s"), "s"),
        "first_range": _cold_range(site_build.get("first_all_s")),
        "second": si(site_build.get("second_s"), "s"),
        "ratio": f"{site_build['second_over_first']:.2f}" if site_build else "n/a",
        "forced": si(site_build.get("forced_warm_cache_s"), "s"),
        "measured_at": site_build.get("measured_at", ""),
    }
    book = ChartBook(PATH)
    markdown = render(
        "performance.md.j2",
        scaling=scaling_section(first.get("site_scaling"), book),
        traces=trace_section(first.get("traces")),
        peer=peer_section(first.get("peer")),
        coverage=coverage_section(first.get("coverage")),
        ranks=_ranks(first.get("ranks")),
        reports=_reports(first.get("ncu_reports")),
        site=site,
        machine=f"{first['machine']['cpu']} ({first['machine']['cores']} cores)",
        measured_at=first["measured_at"],
        versions=first["versions"],
        source=first["source"],
        repeats=first["repeats"],
        rows=rows,
        targets=targets,
        verdict=verdict,
    )
    tables = {"benchmarks": results.frame()}
    if first.get("site_scaling"):
        tables["site_scaling"] = _scaling_frame(first["site_scaling"])
    markdown = _with_note(markdown, note)
    return Page(PATH, "Tool performance", markdown, book.specs, tables)


def _ranks(ranks: dict[str, Any] | None) -> dict[str, str] | None:
    """The multi-rank capture's memory, in words (`benchmarks/ranks.py`)."""
    if not ranks:
        return None
    return {
        "ranks": str(ranks["ranks"]),
        "rank": si(ranks["rank_megabytes"] * 1e6, "B", 3),
        "capture": si(ranks["capture_megabytes"] * 1e6, "B", 3),
        "peak": si(ranks["capture_peak_rss_bytes"], "B", 3),
        "two": si(ranks["two_ranks_peak_rss_bytes"], "B", 3),
        "one": si(ranks["one_rank_peak_rss_bytes"], "B", 3),
        "ratio": f"{ranks['peak_ratio']:.2f}",
        "target": f"{ranks['target_peak_ratio']:.2f}",
    }


def _reports(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """The binary-report read against ncu-report's bare iteration (`benchmarks/ncu_reports.py`)."""
    if not result:
        return None
    rows = [
        {
            # OWNER__REPOSITORY__FILE: the repository names it, and fits the column
            "file": "/".join(row["file"].split("__")[:2]),
            "size": si(row["bytes"], "B", 3),
            "kernels": str(row["kernels"]),
            "metric_values": f"{row['metric_values']:,}",
            "floor": si(row["floor_s"], "s", 3),
            "ours": si(row["ours_s"], "s", 3),
            "ratio": f"{row['ratio_to_floor']:.2f}",
        }
        for row in result["reports"]
    ]
    return {
        "rows": rows,
        "repeats": result["repeats"],
        "largest": f"{result['largest_ratio']:.2f}",
        "target": f"{result['target_ratio']:g}",
        "verdict": "meets" if result["meets_target"] else "misses",
        "measured_at": result.get("measured_at", ""),
    }


def _scaling_frame(entries: list[dict[str, Any]]) -> pl.DataFrame:
    """The report-at-scale entries' numbers, one row per size (stages as their own columns)."""
    rows = []
    for entry in entries:
        row = {k: v for k, v in entry.items() if isinstance(v, int | float | str)}
        if times := entry.get("one_more_runs_s"):  # the rebuilds the median is of
            row |= {"one_more_rebuilds": len(times), "one_more_min_s": min(times),
                    "one_more_max_s": max(times)}  # fmt: skip
        for build in ("full", "one_more"):
            for stage, seconds in (entry.get(f"stages_{build}_s") or {}).items():
                row[f"{build}_{stage}_s"] = seconds
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)


PAGE = Generated(
    "Project",  # the tool's own speed: out of the readers' path
    lambda report: [performance_page(report.benchmarks, report.calibrations)],
)
