"""`nox -s bench`: ingest speed and memory against pandas and the bare-read floor.

For each size, a long-layout export is generated from real rows (benchmarks/generate.py),
then each implementation runs `--repeats` times in its own child process (so each has
its own peak RSS); the best time counts. Results go to benchmarks/results.json and a
table on stdout. Ratios are taken within one run, on one machine, never across runs.

Binary Nsight Compute reports are read against a bare ncu-report iteration of the same files
(benchmarks/ncu_reports.py, `--reports-only`).

The torch.profiler trace ingest is timed the same way on traces replicated from a real one
(benchmarks/generate_trace.py, ~10 MB and ~100 MB of JSON): our parse (read_trace) and our
whole `summarize`, against HolisticTraceAnalysis' own loader on the same files. results.json
is a list of one entry per CSV size, which generator/records/benchmarks.py reads; the trace
results ride in every entry under "traces", as the site build does under "site_build".
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.generate import DEFAULT_SOURCE, generate, source_label
from benchmarks.generate_trace import DEFAULT_TRACE_SOURCE, generate_trace
from benchmarks.site_scaling import (
    REBUILDS,
    measure_scaling,
    parse_sizes,
    scaling_only,
    scaling_table,
)
from generator.atomic import write_json

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
DATA = HERE / "data"  # git-ignored: generated inputs
TARGETS = {"speedup_vs_pandas_at_1M": 10.0, "ratio_to_floor": 1.5, "rss_to_file": 3.0}
# Issue 32: at 100 MB, our whole summary at least 3x faster than HTA's loader, and the
# parse's peak memory (the whole process's) at most 2x the file.
TRACE_TARGETS = {"hta_load_over_summarize_at_100MB": 3.0, "parse_rss_to_file_at_100MB": 2.0}
TRACE_SIZES_MB = "10,100"


def run_child(implementation: str, path: Path) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.child", implementation, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=HERE.parent,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def best_of(implementation: str, path: Path, repeats: int) -> dict[str, Any]:
    runs = [run_child(implementation, path) for _ in range(repeats)]
    best = min(runs, key=lambda r: r["seconds"])
    best["all_seconds"] = [r["seconds"] for r in runs]
    return best


def versions() -> dict[str, str]:
    import pandas
    import polars

    return {
        "python": platform.python_version(),
        "polars": polars.__version__,
        "pandas": pandas.__version__,
    }


def machine() -> dict[str, Any]:
    from generator.measure.provenance import cpu_model

    return {"cpu": cpu_model(), "cores": os.cpu_count(), "platform": platform.platform()}


def rows_need_streaming(size: int) -> bool:
    from generator.ingest.ncu_csv import IN_MEMORY_FACTOR, default_memory_budget

    return size * IN_MEMORY_FACTOR > default_memory_budget()


SITE_COLD_REPEATS = 3  # cold builds of the committed report: each in a fresh folder


def _site_command(folder: Path) -> list[str]:
    return [
        sys.executable, "-m", "generator", "site", "--docs", str(folder / "docs"),
        "--site-dir", str(folder / "site"), "--cache-dir", str(folder / "cache"),
    ]  # fmt: skip


def _timed_site_build(folder: Path, name: str, extra: list[str]) -> tuple[float, Any]:
    """One build of the folder's site: its wall time and its stages (an unchanged build
    has none)."""
    import time

    stages = folder / f"{name}.stages.json"
    env = {**os.environ, "RA_STAGE_TIMES": str(stages)}
    start = time.perf_counter()
    done = subprocess.run(
        [*_site_command(folder), *extra], capture_output=True, text=True, cwd=HERE.parent, env=env
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"the site build failed:\n{done.stderr.strip()}")
    return seconds, json.loads(stages.read_text()) if stages.is_file() else None


def _fresh_docs(folder: Path) -> None:
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(
        HERE.parent / "docs",
        folder / "docs",
        ignore=shutil.ignore_patterns("measurements", "hardware.md"),
    )


def measure_site_build(cold_repeats: int = SITE_COLD_REPEATS) -> dict[str, Any]:
    """`python -m generator site` on the committed measurements, as a user runs it: from
    nothing (empty caches, a fresh folder) `cold_repeats` times, as the cold build's time
    varies by seconds from one build to the next on this machine; then, after the last,
    again with nothing changed, and forced with warm caches. `first_s` is the median cold
    build (the middle one of an odd count), `first_all_s` every one."""
    import shutil

    root = Path(tempfile.mkdtemp(prefix="ra-bench-site-"))
    try:
        cold: list[float] = []
        stage_times: dict[str, Any] = {}
        for repeat in range(cold_repeats):
            folder = root / f"cold-{repeat}"
            _fresh_docs(folder)
            seconds, stages = _timed_site_build(folder, "first", [])
            cold.append(seconds)
            stage_times.setdefault("first_each", []).append(stages)
        median = sorted(cold)[len(cold) // 2]
        times: dict[str, Any] = {"first_s": median, "first_all_s": cold}
        for name, extra in (("second_s", []), ("forced_warm_cache_s", ["--force"])):
            seconds, stages = _timed_site_build(folder, name, extra)
            times[name] = seconds
            if stages is not None:
                stage_times[name.removesuffix("_s")] = stages
        # the stages of the median cold build
        stage_times["first"] = stage_times["first_each"][cold.index(median)]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {
        **times,
        "second_over_first": times["second_s"] / median,
        "stages_s": stage_times,
    }


def measure_trace_size(megabytes: int, repeats: int) -> dict[str, Any]:
    # One folder per trace: HTA's loader takes a folder and reads every trace in it.
    path = DATA / "traces" / f"{megabytes}MB" / "trace.json"
    content = generate_trace(path, megabytes * 1_000_000)
    size = path.stat().st_size
    parse = best_of("trace_parse", path, repeats)
    summarize = best_of("trace_summarize", path, repeats)
    hta_parse = best_of("hta_parse", path, repeats)
    hta_load = best_of("hta_load", path, repeats)
    kernels = parse["result"]["kernels"]
    if not kernels == summarize["result"]["kernels"] == hta_parse["result"]["kernels"]:
        raise SystemExit(f"HTA and ours disagree on the kernel count at {megabytes} MB")
    if summarize["result"]["steps"] != content["steps"]:
        raise SystemExit(f"the summary lost steps at {megabytes} MB")

    def timed(prefix: str, run: dict[str, Any]) -> dict[str, Any]:
        return {
            f"{prefix}_s": run["seconds"],
            f"{prefix}_all_s": run["all_seconds"],
            f"{prefix}_peak_rss_bytes": run["peak_rss_bytes"],
            f"{prefix}_baseline_rss_bytes": run["baseline_rss_bytes"],
            f"{prefix}_rss_to_file": run["peak_rss_bytes"] / size,
            # What the run itself added, over the interpreter and imported libraries.
            f"{prefix}_added_rss_to_file": (run["peak_rss_bytes"] - run["baseline_rss_bytes"])
            / size,
        }

    return {
        "megabytes": megabytes,
        "bytes": size,
        "events": content["events"],
        "steps": content["steps"],
        "kernels": kernels,
        "ops": parse["result"]["ops"],
        "flops": summarize["result"]["flops"],
        **timed("parse", parse),
        **timed("summarize", summarize),
        **timed("hta_parse", hta_parse),
        **timed("hta_load", hta_load),
        "hta_load_events": hta_load["result"]["events"],
        "parse_over_hta_load": parse["seconds"] / hta_load["seconds"],
        "summarize_over_hta_load": summarize["seconds"] / hta_load["seconds"],
        "parse_over_hta_parse": parse["seconds"] / hta_parse["seconds"],
        "parse_mb_per_s": size / 1e6 / parse["seconds"],
    }


def measure_traces(sizes_mb: list[int], repeats: int) -> dict[str, Any]:
    from importlib.metadata import version

    results = []
    for megabytes in sizes_mb:
        print(f"bench: a {megabytes} MB trace …", file=sys.stderr, flush=True)
        results.append(measure_trace_size(megabytes, repeats))
    return {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "source": source_label(DEFAULT_TRACE_SOURCE),
        "repeats": repeats,
        "targets": TRACE_TARGETS,
        "hta_loader": "hta.trace_analysis.TraceAnalysis(trace_dir=...), default ParserConfig",
        "hta_parser": "hta.common.trace.parse_trace_file(path), default ParserConfig",
        "versions": {
            "python": platform.python_version(),
            "holistictraceanalysis": version("holistictraceanalysis"),
            "pandas": version("pandas"),
            "polars": version("polars"),
        },
        "machine": machine(),
        "sizes": results,
    }


def trace_table(traces: dict[str, Any]) -> str:
    lines = [
        f"{'trace MB':>8} {'kernels':>7} {'parse s':>7} {'summ. s':>7} {'HTA parse s':>11} "
        f"{'HTA load s':>10} {'parse/HTA':>9} {'summ./HTA':>9} {'parse RSS/file':>14} "
        f"{'summ. RSS/file':>14} {'HTA RSS/file':>12}"
    ]
    for r in traces["sizes"]:
        lines.append(
            f"{r['bytes'] / 1e6:>8.0f} {r['kernels']:>7,} {r['parse_s']:>7.2f} "
            f"{r['summarize_s']:>7.2f} {r['hta_parse_s']:>11.2f} {r['hta_load_s']:>10.2f} "
            f"{r['parse_over_hta_load']:>9.2f} {r['summarize_over_hta_load']:>9.2f} "
            f"{r['parse_rss_to_file']:>14.2f} {r['summarize_rss_to_file']:>14.2f} "
            f"{r['hta_load_rss_to_file']:>12.2f}"
        )
    lines.append(
        "(parse/HTA and summ./HTA: our time over HTA's loader, TraceAnalysis(trace_dir); "
        "under 1 is faster)"
    )
    return "\n".join(lines)


def _traces_only(out: Path, sizes_mb: list[int], repeats: int) -> int:
    if not out.is_file():
        raise SystemExit(f"{out} does not exist: run the full benchmark first")
    document = json.loads(out.read_text(encoding="utf-8"))
    traces = measure_traces(sizes_mb, repeats)
    write_json(out, [{**entry, "traces": traces} for entry in document])
    print(trace_table(traces))
    return 0


def _ranks_only(out: Path, megabytes: int, ranks: int) -> int:
    from benchmarks.ranks import measure_ranks

    if not out.is_file():
        raise SystemExit(f"{out} does not exist: run the full benchmark first")
    document = json.loads(out.read_text(encoding="utf-8"))
    print(f"bench: {ranks} ranks of {megabytes} MB, then one alone …", file=sys.stderr, flush=True)
    result = measure_ranks(DATA, megabytes, ranks, run_child)
    write_json(out, [{**entry, "ranks": result} for entry in document])
    print(
        f"one rank ({result['rank_megabytes']:.0f} MB): {result['one_rank_seconds']:.1f} s, "
        f"peak {result['one_rank_peak_rss_bytes'] / 1e9:.3f} GB; 2 ranks: "
        f"{result['two_ranks_seconds']:.1f} s, peak {result['two_ranks_peak_rss_bytes'] / 1e9:.3f} "
        f"GB; {ranks} ranks ({result['capture_megabytes']:.0f} MB): "
        f"{result['capture_seconds']:.1f} s, peak {result['capture_peak_rss_bytes'] / 1e9:.3f} GB;"
        f" {ranks} ranks over 2: {result['peak_ratio']:.2f} (target <= {result['target_peak_ratio']})"
    )
    return 0


def _reports_only(out: Path) -> int:
    from benchmarks.ncu_reports import measure_reports, reports_table

    if not out.is_file():
        raise SystemExit(f"{out} does not exist: run the full benchmark first")
    document = json.loads(out.read_text(encoding="utf-8"))
    print("bench: binary ncu reports against a bare ncu-report iteration …", file=sys.stderr)
    result = measure_reports()
    result["measured_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    write_json(out, [{**entry, "ncu_reports": result} for entry in document])
    print(reports_table(result))
    return 0


def measure_size(rows: int, repeats: int, pandas_max_rows: int) -> dict[str, Any]:
    path = generate(DATA / f"rows-{rows}.csv", rows)
    size = path.stat().st_size
    ours = best_of("ours", path, repeats)
    streaming = best_of("ours_streaming", path, repeats)
    floor = best_of("floor", path, repeats)
    if streaming["result"] != ours["result"]:
        raise SystemExit(f"the streaming path disagrees with the in-memory one at {rows} rows")
    entry: dict[str, Any] = {
        "rows": rows,
        "bytes": size,
        "ours_s": ours["seconds"],
        "floor_s": floor["seconds"],
        "ratio_to_floor": ours["seconds"] / floor["seconds"],
        "peak_rss_bytes": ours["peak_rss_bytes"],
        "rss_to_file": ours["peak_rss_bytes"] / size,
        "floor_peak_rss_bytes": floor["peak_rss_bytes"],
        "rows_per_s": rows / ours["seconds"],
        "mb_per_s": size / 1e6 / ours["seconds"],
        "ours_all_s": ours["all_seconds"],
        "floor_all_s": floor["all_seconds"],
        "kernels": ours["result"]["kernels"],
        "path": "streaming" if rows_need_streaming(size) else "in-memory",
        "streaming_s": streaming["seconds"],
        "streaming_peak_rss_bytes": streaming["peak_rss_bytes"],
        "streaming_rss_to_file": streaming["peak_rss_bytes"] / size,
    }
    if rows <= pandas_max_rows:
        loop = best_of("pandas", path, 1)  # minutes at the large sizes: once is enough
        vectorized = best_of("pandas_vectorized", path, repeats)
        for name in ("flops", "dram_bytes", "kernels"):
            if loop["result"][name] != ours["result"][name]:
                raise SystemExit(f"pandas and ours disagree on {name} at {rows} rows")
        entry.update(
            pandas_s=loop["seconds"],
            speedup_vs_pandas=loop["seconds"] / ours["seconds"],
            pandas_peak_rss_bytes=loop["peak_rss_bytes"],
            pandas_vectorized_s=vectorized["seconds"],
            speedup_vs_pandas_vectorized=vectorized["seconds"] / ours["seconds"],
        )
    else:
        entry.update(
            pandas_s=None, speedup_vs_pandas=None, pandas_skipped=f"over {pandas_max_rows} rows"
        )
    return entry


def table(results: list[dict[str, Any]]) -> str:
    def fmt(value: float | None, spec: str) -> str:
        return "n/a" if value is None else format(value, spec)

    lines = [
        f"{'rows':>9} {'MB':>7} {'ours s':>7} {'floor s':>7} {'ours/floor':>10} {'pandas s':>9} "
        f"{'speedup':>8} {'vect. s':>8} {'peak RSS MB':>11} {'RSS/file':>8} {'Mrows/s':>8} "
        f"{'stream s':>8} {'stream RSS/file':>15}"
    ]
    for r in results:
        lines.append(
            f"{r['rows']:>9,} {r['bytes'] / 1e6:>7.0f} {r['ours_s']:>7.2f} {r['floor_s']:>7.2f} "
            f"{r['ratio_to_floor']:>10.2f} {fmt(r.get('pandas_s'), '.2f'):>9} "
            f"{fmt(r.get('speedup_vs_pandas'), '.1f'):>8} {fmt(r.get('pandas_vectorized_s'), '.2f'):>8} "
            f"{r['peak_rss_bytes'] / 1e6:>11.0f} {r['rss_to_file']:>8.2f} {r['rows_per_s'] / 1e6:>8.2f} "
            f"{r['streaming_s']:>8.2f} {r['streaming_rss_to_file']:>15.2f}"
        )
    return "\n".join(lines)


def _zensical_only(out: Path, zensical: str | None) -> int:
    from benchmarks.zensical import measure_zensical, zensical_table

    if not out.is_file():
        raise SystemExit(f"{out} does not exist: run the full benchmark first")
    document = json.loads(out.read_text(encoding="utf-8"))
    print("bench: the committed report's pages with ProperDocs and Zensical …", file=sys.stderr)
    result = measure_zensical(zensical, DATA / "zensical")
    result["measured_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    write_json(out, [{**entry, "zensical": result} for entry in document])
    print(zensical_table(result))
    return 0


def _site_only(out: Path) -> int:
    if not out.is_file():
        raise SystemExit(f"{out} does not exist: run the full benchmark first")
    document = json.loads(out.read_text(encoding="utf-8"))
    print("bench: site build, cold then unchanged …", file=sys.stderr, flush=True)
    site = measure_site_build()
    site["measured_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    write_json(out, [{**entry, "site_build": site} for entry in document])
    print(
        f"site build: from nothing {site['first_s']:.2f} s (median of "
        f"{', '.join(f'{s:.1f}' for s in site['first_all_s'])}), unchanged "
        f"{site['second_s']:.2f} s, forced with warm caches {site['forced_warm_cache_s']:.2f} s"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", default="100000,1000000,5000000", help="rows per file (default: %(default)s)"
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs per implementation")
    parser.add_argument(
        "--pandas-max-rows",
        type=int,
        default=5_000_000,
        help="skip the (slow) pandas baselines above this size (default: %(default)s)",
    )
    parser.add_argument("--out", default=str(RESULTS), help="default: benchmarks/results.json")
    parser.add_argument(
        "--site-only",
        action="store_true",
        help="re-measure only the site build and update it in OUT, keeping the ingest results "
        "(the site build changes more often than the parser)",
    )
    parser.add_argument(
        "--trace-sizes",
        default=TRACE_SIZES_MB,
        help="torch.profiler trace sizes in MB (default: %(default)s)",
    )
    parser.add_argument(
        "--traces-only",
        action="store_true",
        help="measure only the trace ingest against HTA's loader and update it in OUT, "
        "keeping the other results",
    )
    parser.add_argument(
        "--scaling-only",
        action="store_true",
        help="measure only the report at scale (synthetic sets of --scaling-sizes runs plus 30 "
        "imports, replicated from the real records: a full build, then rebuilds after one more "
        "run each) and "
        "update it in OUT, keeping the other results",
    )
    parser.add_argument(
        "--scaling-sizes",
        default="100,1000,3000,10000",
        help="runs per synthetic set for the report at scale (default: %(default)s)",
    )
    parser.add_argument(
        "--scaling-rebuilds",
        type=int,
        default=REBUILDS,
        help="rebuilds after one more run, in a row, per size; their median is the one "
        "reported (default: %(default)s)",
    )
    parser.add_argument("--note", default="", help="recorded with the report-at-scale times")
    parser.add_argument(
        "--ranks-only",
        action="store_true",
        help="measure only a multi-rank capture's memory (--ranks copies of a --rank-mb trace "
        "against two of them, and one alone) and update it in OUT, keeping the other results",
    )
    parser.add_argument(
        "--reports-only",
        action="store_true",
        help="measure only the binary .ncu-rep read against a bare ncu-report iteration of the "
        "same files (tests/data/ncu-rep) and update it in OUT, keeping the other results",
    )
    parser.add_argument(
        "--peer-only",
        action="store_true",
        help="run the peer comparison only (AMD's TraceLens against ours on tests/data/traces, "
        "benchmarks/peer.py) and update it in OUT; needs --tracelens",
    )
    parser.add_argument(
        "--tracelens",
        metavar="PATH",
        help="a checkout of AMD-AGI/TraceLens (the folder holding its TraceLens package): it is "
        "not on the package index (PyPI's `tracelens` is another project). Without it, the "
        "full run keeps the committed peer results and says so",
    )
    parser.add_argument(
        "--zensical-only",
        action="store_true",
        help="build the committed report's pages with ProperDocs and with Zensical (--zensical) "
        "and update it in OUT, keeping the other results (benchmarks/zensical.py)",
    )
    parser.add_argument(
        "--zensical",
        metavar="PATH",
        help="the zensical command of a separate virtualenv (it is in none of ours); the full "
        "benchmark then also re-runs the Zensical comparison",
    )
    parser.add_argument("--rank-mb", type=int, default=50, help="MB per rank (default 50)")
    parser.add_argument("--ranks", type=int, default=4, help="ranks (default 4)")
    args = parser.parse_args(argv)
    if args.scaling_only:
        sizes = parse_sizes(args.scaling_sizes)
        return scaling_only(Path(args.out), DATA, sizes, args.note, args.scaling_rebuilds)
    if args.site_only:
        return _site_only(Path(args.out))
    if args.zensical_only:
        return _zensical_only(Path(args.out), args.zensical)
    if args.ranks_only:
        return _ranks_only(Path(args.out), args.rank_mb, args.ranks)
    if args.reports_only:
        return _reports_only(Path(args.out))
    if args.peer_only:
        if not args.tracelens:
            raise SystemExit("--peer-only needs --tracelens PATH (a checkout of AMD-AGI/TraceLens)")
        return _peer(Path(args.out), args.tracelens)
    trace_sizes = [int(s) for s in args.trace_sizes.split(",") if s.strip()]
    if args.traces_only:
        return _traces_only(Path(args.out), trace_sizes, args.repeats)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    results = []
    for rows in sizes:
        print(f"bench: {rows:,} rows …", file=sys.stderr, flush=True)
        results.append(measure_size(rows, args.repeats, args.pandas_max_rows))
    common = {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "source": source_label(DEFAULT_SOURCE),
        "repeats": args.repeats,
        "targets": TARGETS,
        "machine": machine(),
        "versions": versions(),
    }
    traces = measure_traces(trace_sizes, args.repeats)
    from benchmarks.ncu_reports import measure_reports, reports_table

    reports = measure_reports()
    print("bench: site build, cold then unchanged …", file=sys.stderr, flush=True)
    site = measure_site_build()
    scaling = measure_scaling(
        DATA, parse_sizes(args.scaling_sizes), note=args.note, rebuilds=args.scaling_rebuilds
    )
    document = [
        {
            **entry,
            **common,
            "site_build": site,
            "traces": traces,
            "site_scaling": scaling,
            "ncu_reports": reports,
        }
        for entry in results
    ]
    out = Path(args.out)
    if out.is_file():  # measured only with --tracelens (--zensical): kept from the last run
        before = json.loads(out.read_text(encoding="utf-8"))[0]
        kept = {key: before[key] for key in ("peer", "zensical") if before.get(key)}
        document = [{**entry, **kept} for entry in document]
    write_json(out, document)
    print(table(results))
    print(trace_table(traces))
    print(reports_table(reports))
    print(
        f"site build: first {site['first_s']:.2f} s, second (unchanged) {site['second_s']:.2f} s "
        f"({site['second_over_first']:.2f} of the first), forced with warm parse cache "
        f"{site['forced_warm_cache_s']:.2f} s"
    )
    print(scaling_table(scaling))
    if args.zensical:  # the docs core against Zensical, again at every bench run given it
        _zensical_only(out, args.zensical)
    else:
        print(
            "zensical: not run (no --zensical PATH); the committed result is kept", file=sys.stderr
        )
    if args.tracelens:
        return _peer(out, args.tracelens)
    print(
        "peer: not run (no --tracelens PATH); the committed peer results are kept", file=sys.stderr
    )
    return 0


def _peer(out: Path, tracelens: str) -> int:
    """The peer comparison (benchmarks/peer.py), into OUT's entries; the commit of the
    TraceLens checkout is recorded with it."""
    from benchmarks import peer

    folder = Path(tracelens)
    if not (folder / "TraceLens").is_dir():
        raise SystemExit(f"--tracelens {folder}: no TraceLens package folder in it")
    commit = peer.git_commit(folder)
    return peer.main(["--tracelens", str(folder), "--tracelens-commit", commit, "--out", str(out)])


if __name__ == "__main__":
    sys.exit(main())
