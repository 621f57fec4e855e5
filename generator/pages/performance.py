"""The "Tool performance" page from benchmarks/results.json (written by `nox -s bench`)."""

from __future__ import annotations

from generator.formatting import si
from generator.pages.page import Generated, Page
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import render
from generator.records.benchmarks import BenchmarkResults


def _times(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}×"


NOT_MEASURED = (
    "# Tool performance\n\nNo benchmark results yet: `nox -s bench` writes "
    "`benchmarks/results.json`, and this page shows them.\n"
)


PATH = f"{GENERATED_DIR}/performance.md"


def performance_page(results: BenchmarkResults | None) -> Page:
    if results is None or not results.entries:
        return Page(PATH, "Tool performance", NOT_MEASURED)
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
    speedup = at_1m.get("speedup_vs_pandas") if at_1m else None
    if speedup is not None and speedup < targets["speedup_vs_pandas_at_1M"]:
        misses.append(f"the speedup at 1M rows is {speedup:.1f}×")
    worst_floor = max(e["ratio_to_floor"] for e in entries)
    if worst_floor > targets["ratio_to_floor"]:
        misses.append(f"ours takes up to {worst_floor:.2f}× the floor")
    worst_rss = max(e["rss_to_file"] for e in entries if e["rows"] >= 1_000_000) if at_1m else None
    if worst_rss is not None and worst_rss > targets["rss_to_file"]:
        misses.append(f"peak memory reaches {worst_rss:.2f}× the file")
    verdict = (
        "Missed on this run: " + "; ".join(misses) + "."
        if misses
        else "All three hold on this run."
    )
    site_build = first.get("site_build") or {}
    site = {
        "first": si(site_build.get("first_s"), "s"),
        "second": si(site_build.get("second_s"), "s"),
        "ratio": f"{site_build['second_over_first']:.2f}" if site_build else "n/a",
        "forced": si(site_build.get("forced_warm_cache_s"), "s"),
        "measured_at": site_build.get("measured_at", ""),
    }
    markdown = render(
        "performance.md.j2",
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
    return Page(PATH, "Tool performance", markdown, tables={"benchmarks": results.frame()})


PAGE = Generated(None, lambda report: [performance_page(report.benchmarks)])
