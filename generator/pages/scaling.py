"""The Tool performance page's "report at scale" section, from the `site_scaling` entries
of benchmarks/results.json (benchmarks/site_scaling.py writes them)."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from markupsafe import Markup

from generator.formatting import si
from generator.pages.render import ChartBook
from generator.records.bench_results import ScalingEntry, ScalingTargets


class ScalingContext(TypedDict):
    """The template's `scaling` context: only `not_measured` when nothing was measured."""

    measured: bool
    not_measured: NotRequired[str]
    rows: NotRequired[list[list[str]]]
    chart: NotRequired[Markup]
    verdict: NotRequired[str]
    growth: NotRequired[str]
    method: NotRequired[str]
    note: NotRequired[str]
    measured_at: NotRequired[str]
    target_full: NotRequired[str]
    target_share: NotRequired[str]
    rebuilds: NotRequired[str]
    profile_runs: NotRequired[str]
    profile_full: NotRequired[str]
    profile_one_more: NotRequired[str]
    core: NotRequired[str]
    target_why: NotRequired[str]
    publish: NotRequired[str]


NOT_MEASURED = (
    "Not measured yet: `nox -s bench -- --scaling-only` builds synthetic sets of 100, 1,000, "
    "3,000 and 10,000 runs and records the times here."
)


def _row(entry: ScalingEntry) -> list[str]:
    load = entry.get("load_average_before") or []
    peaks = entry.get("full_peak_bytes")
    memory = si(peaks["build_bytes"], "B") if peaks else "n/a"
    if not _finished(entry):
        failed = str(entry.get("failed", "did not finish")).splitlines()[0][:160]
        return [f"{entry['runs']:,}", str(entry["imports"]), "n/a",
                f"failed after {_duration(entry['full_s'])}: {failed}", "n/a", "n/a", memory,
                "n/a", f"{load[0]:.2f}" if load else "n/a", _when(entry)]  # fmt: skip
    return [
        f"{entry['runs']:,}",
        str(entry["imports"]),
        f"{entry.get('html_pages', 0):,}",
        _duration(entry["full_s"]),
        _one_more(entry),
        f"{100 * entry['one_more_run_s'] / entry['full_s']:.1f} %",
        memory,
        si(entry["site_bytes"], "B") if "site_bytes" in entry else "n/a",
        f"{load[0]:.2f}" if load else "n/a",
        _when(entry),
    ]


def _one_more(entry: ScalingEntry) -> str:
    """The rebuild's median, with the lowest and highest of the rebuilds ('6.1 s (5.8 s to
    6.9 s)'); one time alone for a row measured with one rebuild."""
    return _with_range(entry["one_more_run_s"], entry.get("one_more_runs_s") or [])


def _with_range(median: float, times: list[float]) -> str:
    """A median with the lowest and highest of the times it is the median of, when there
    are several."""
    if len(times) < 2:
        return _duration(median)
    return f"{_duration(median)} ({_duration(min(times))} to {_duration(max(times))})"


def _rebuilds(entries: list[ScalingEntry]) -> str:
    """How many rebuilds each size's median is of: '3', or '1 to 3' over rows of several
    bench runs."""
    counts = sorted({len(e.get("one_more_runs_s") or [0]) for e in entries if _finished(e)})
    if not counts:
        return "1"
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"


def _when(entry: ScalingEntry) -> str:
    """The bench run that measured the size ('2026-11-25 19:29 UTC'): a re-measurement of
    some sizes keeps the others' older rows (benchmarks/site_scaling.py)."""
    stamp = str(entry.get("measured_at", ""))
    return f"{stamp[:10]} {stamp[11:16]} UTC" if len(stamp) >= 16 else "n/a"


def _duration(seconds: float) -> str:
    """Seconds up to two minutes, then minutes (not "1.132 ks")."""
    return si(seconds, "s") if seconds < 120 else f"{seconds / 60:.1f} min"


def _finished(entry: ScalingEntry) -> bool:
    """Both builds of the size finished (a failed one is recorded, and shown, as failed)."""
    return "one_more_run_s" in entry and "failed" not in entry


# the stage times' name for the docs core's own seconds (its process, part of publish's:
# site/build.py records it); the bench names the core (`docs_core`: ProperDocs since issue 68)
CORE = "core"


def _core(entry: ScalingEntry) -> str:
    return str(entry.get("docs_core") or "the docs core")


def _stages(stages: dict[str, float], core: str) -> str:
    """'load 3.1 s, analyse 40 s, …, publish 6.3 s (ProperDocs 5.7 s of it)' of one build."""
    named = []
    for name, seconds in stages.items():
        if name == CORE:
            continue
        own = (
            f" ({core} {si(stages[CORE], 's')} of it)"
            if name == "publish" and CORE in stages
            else ""
        )
        named.append(f"{name} {si(seconds, 's')}{own}")
    return ", ".join(named)


def _floor(entry: ScalingEntry, target: float) -> str:
    """What the docs core alone took of the rebuilds after one more run, against the target:
    a rebuild cannot be shorter than the core's build of its pages, in full every time."""
    seconds = entry.get("stages_one_more_s", {}).get(CORE)
    if seconds is None:
        return ""
    share = seconds / entry["full_s"]
    times = entry.get("core_one_more_runs_s") or []
    of = f"the median of {len(times)}" if len(times) >= 2 else "the median"
    core = _core(entry)
    said = (
        f" {core[:1].upper()}{core[1:]} alone, building its pages in full, took "
        f"{_with_range(seconds, times)} of each rebuild ({of}, timed from its start to its "
        f"end), {100 * share:.1f} % of the full build"
    )
    if share >= target:
        return said + f": no rebuild can meet the {100 * target:.0f} % target while it does."
    return said + "."


def _verdict(entries: list[ScalingEntry], targets: ScalingTargets) -> str:
    at_1000 = next((e for e in entries if e["runs"] == 1000 and _finished(e)), None)
    if at_1000 is None:
        return "No 1,000-run set was measured, so the targets are not judged."
    full, share = at_1000["full_s"], at_1000["one_more_run_s"] / at_1000["full_s"]
    parts = [
        f"At 1,000 runs the full build took {si(full, 's')} "
        + ("(target met: under " if full < targets["full_s_at_1000_runs"] else "(target missed: ")
        + f"{si(targets['full_s_at_1000_runs'], 's')})",
        f"one more run rebuilt in {100 * share:.1f} % of it ({_median_of(at_1000)}"
        + ("target met: under " if share < targets["one_more_over_full"] else "target missed: ")
        + f"{100 * targets['one_more_over_full']:.0f} %)",
    ]
    return "; ".join(parts) + "." + _floor(at_1000, targets["one_more_over_full"])


def _median_of(entry: ScalingEntry) -> str:
    times = entry.get("one_more_runs_s") or []
    return f"the median of {len(times)} rebuilds; " if len(times) >= 2 else ""


def _growth(entries: list[ScalingEntry]) -> str:
    """Time per run from the smallest to the largest set: flat or falling is linear or
    better."""
    entries = [e for e in entries if _finished(e)]
    if len(entries) < 2:
        return ""
    first, last = entries[0], entries[-1]
    per_first, per_last = first["full_s"] / first["runs"], last["full_s"] / last["runs"]
    word = "linear or better" if per_last <= per_first * 1.1 else "worse than linear"
    return (
        f"Per run, the full build cost {si(per_first, 's')} at {first['runs']:,} runs and "
        f"{si(per_last, 's')} at {last['runs']:,}: {word}."
    )


def _one_time(entries: list[ScalingEntry]) -> str:
    """The time all sizes were measured at, or "" when they come from several bench runs."""
    times = {_when(e) for e in entries}
    return times.pop() if len(times) == 1 else ""


def scaling_section(entries: list[ScalingEntry] | None, book: ChartBook) -> ScalingContext:
    """The template's `scaling` context: rows, chart, verdict, method and stage profile."""
    if not entries:
        return {"measured": False, "not_measured": NOT_MEASURED}
    from generator.charts.scaling import scaling_chart  # altair: import on use

    entries = sorted(entries, key=lambda e: e["runs"])
    finished = [e for e in entries if _finished(e)] or entries[:1]
    # the targets the 1,000-run set was judged by (issue 68 restated the rebuild's), else the
    # newest bench run's: a re-measured size carries the targets of its own bench run
    judged = next((e for e in finished if e["runs"] == 1000), None)
    targets = (judged or max(entries, key=lambda e: str(e.get("measured_at", ""))))["targets"]
    spec = scaling_chart(
        [e for e in entries if _finished(e)],
        (1000, targets["full_s_at_1000_runs"]),
        targets["one_more_over_full"],
    )
    largest = max(finished, key=lambda e: e["runs"])
    profiled = next((e for e in finished if e["runs"] == 1000), largest)
    return {
        "measured": True,
        "rows": [_row(e) for e in entries],
        "chart": book.embed(spec, "site-scaling") if spec else Markup(""),
        "verdict": _verdict(entries, targets),
        "growth": _growth(entries),
        "method": entries[0].get("method", ""),
        "note": (judged or entries[0]).get("note", ""),
        "measured_at": _one_time(entries),
        "target_full": si(targets["full_s_at_1000_runs"], "s"),
        "target_share": f"{100 * targets['one_more_over_full']:.0f} %",
        "rebuilds": _rebuilds(entries),
        "profile_runs": f"{profiled['runs']:,}",
        "profile_full": _stages(profiled.get("stages_full_s", {}), _core(profiled)),
        "profile_one_more": _stages(profiled.get("stages_one_more_s", {}), _core(profiled)),
        "core": _core(profiled),
        "target_why": str(targets.get("why", "")),
        "publish": _publish(judged or profiled),
    }


def _publish(entry: ScalingEntry) -> str:
    """What publishing a second version (with one more run) added to gh-pages, against the
    whole of the first and the target (benchmarks/site_scaling.py, `publish`); "" where not
    measured."""
    published = entry.get("publish")
    if not published or "second_added_bytes" not in published:
        return ""
    added = published["second_added_bytes"]
    said = (
        f"Published with `nox -s publish` into a test repository at {entry['runs']:,} runs: the "
        f"first version put {si(published['first_added_bytes'], 'B')} on gh-pages; a second "
        f"version, with one more run, added {si(added, 'B')} (its folder "
        f"{si(published['second_folder_bytes'], 'B')}, new shared files "
        f"{si(published['second_new_shared_bytes'], 'B')}), where a full copy would have added "
        f"{si(published['second_site_bytes'], 'B')}: the downloads, MathJax and Vega that did "
        "not change are stored once in `_shared/` and linked by both."
    )
    target = entry.get("targets", {}).get("second_version_bytes_at_1000_runs")
    if target is None or entry["runs"] != 1000:
        return said
    if added <= target:
        return said + f" Target met: at most about {si(target, 'B')}."
    html = published.get("second_folder_html_bytes")
    pages = f"{entry['html_pages']:,} " if "html_pages" in entry else ""
    return said + (
        f" Target missed: about {si(target, 'B')}."
        + (
            f" {si(html, 'B')} of the folder is the HTML of its {pages}pages, which no two "
            "versions share: each names its version in its canonical URL and citations."
            if html
            else ""
        )
    )
