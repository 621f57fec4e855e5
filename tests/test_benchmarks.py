"""The benchmark's input generator and the Tool performance page (timings live in
benchmarks/results.json, never in tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.generate import DEFAULT_SOURCE, generate
from benchmarks.generate_trace import generate_trace
from benchmarks.implementations import ours
from generator.formatting import percent
from generator.ingest import read_ncu_csv
from generator.ingest.trace.read import read_trace
from generator.pages.performance import performance_page
from generator.records.benchmarks import read_benchmarks
from generator.summaries.trace import summarize_trace
from tests.helpers import REPO
from tests.trace_helpers import A100_PROPERTIES, kernel, launch, op, user_range, write_trace


def test_generated_export_repeats_real_rows_with_new_kernel_ids(tmp_path: Path) -> None:
    source = read_ncu_csv(DEFAULT_SOURCE)
    per_copy = source.metrics.height
    path = generate(tmp_path / "big.csv", 3 * per_copy)
    export = read_ncu_csv(path)
    assert export.metrics.height == 3 * per_copy
    assert export.kernels.height == 3 * source.kernels.height  # new ids, no collisions
    summary = ours(path)
    single = ours(DEFAULT_SOURCE)
    assert summary["flops"] == 3 * single["flops"]
    assert summary["ranges"] == {k: 3 * v for k, v in single["ranges"].items()}
    assert generate(tmp_path / "big.csv", 3 * per_copy) == path  # reused, not rewritten


def test_performance_page_from_committed_results() -> None:
    results = REPO / "benchmarks" / "results.json"
    entries = json.loads(results.read_text())
    page = performance_page(read_benchmarks(REPO)).markdown
    for entry in entries:
        assert f"<td>{entry['rows']:,}</td>" in page
    assert "Targets, at 1M rows:" in page
    site = entries[0]["site_build"]
    assert f"({site['second_over_first']:.2f} of the first" in page
    reports = entries[0]["ncu_reports"]  # the binary reports' read against its floor
    largest = reports["reports"][-1]
    assert f"| panjd123/cutlass | 3.8 MB | 3 | {largest['metric_values']:,} |" in page
    assert f"On the largest report ours takes {reports['largest_ratio']:.2f}× the floor" in page


def test_performance_page_states_misses(tmp_path: Path) -> None:
    entry = {
        "rows": 1_000_000, "bytes": 5e8, "ours_s": 2.0, "floor_s": 1.0, "ratio_to_floor": 2.0,
        "pandas_s": 10.0, "speedup_vs_pandas": 5.0, "pandas_vectorized_s": 4.0,
        "speedup_vs_pandas_vectorized": 2.0, "peak_rss_bytes": 2e9, "rss_to_file": 4.0,
        "rows_per_s": 5e5, "measured_at": "2026-01-01T00:00:00+00:00", "source": "x.csv",
        "repeats": 3, "machine": {"cpu": "cpu", "cores": 2}, "targets": {
            "speedup_vs_pandas_at_1M": 10.0, "ratio_to_floor": 1.5, "rss_to_file": 3.0},
        "versions": {"python": "3.11", "polars": "2", "pandas": "3"},
    }  # fmt: skip
    path = tmp_path / "benchmarks" / "results.json"
    path.parent.mkdir()
    path.write_text(json.dumps([entry]))
    page = performance_page(read_benchmarks(tmp_path)).markdown
    assert (
        "Missed at 1M rows on this run: the speedup is 5.0×; ours takes 2.00× the floor; "
        "peak memory is 4.00× the file." in page
    )
    missing = read_benchmarks(tmp_path / "elsewhere")
    assert "No benchmark results yet" in performance_page(missing).markdown


@pytest.mark.site
def test_performance_page_in_the_report(repo_site: Path) -> None:
    html = (repo_site / "measurements" / "performance" / "index.html").read_text(encoding="utf-8")
    assert "Tool performance" in html


def test_site_only_updates_the_site_build_and_keeps_the_ingest_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmarks import run

    out = tmp_path / "results.json"
    out.write_text(json.dumps([{"rows": 10, "ours_s": 1.5, "site_build": {"first_s": 9.0}}]))
    timed = {"first_s": 2.0, "first_all_s": [2.5, 2.0, 1.9], "second_s": 0.1,
             "forced_warm_cache_s": 1.0, "second_over_first": 0.05}  # fmt: skip
    monkeypatch.setattr(run, "measure_site_build", lambda: dict(timed))
    assert run.main(["--site-only", "--out", str(out)]) == 0
    [entry] = json.loads(out.read_text())
    assert entry["ours_s"] == 1.5
    assert entry["site_build"]["first_s"] == 2.0 and "measured_at" in entry["site_build"]


def test_committed_results_hold_the_trace_benchmark() -> None:
    """The trace section's structure (no timing is asserted): in every entry, the same."""
    entries = json.loads((REPO / "benchmarks" / "results.json").read_text())
    traces = entries[0]["traces"]
    assert all(entry["traces"] == traces for entry in entries)
    assert traces["versions"]["holistictraceanalysis"] == "0.5.0"
    assert traces["sizes"], "no trace size was measured"
    assert max(size["bytes"] for size in traces["sizes"]) >= 100_000_000
    for size in traces["sizes"]:
        assert size["bytes"] >= size["megabytes"] * 1_000_000 > 0
        assert size["kernels"] > 0 and size["steps"] > 0 and size["ops"] > 0
        for name in ("parse", "summarize", "hta_parse", "hta_load"):
            assert size[f"{name}_s"] > 0
            assert size[f"{name}_s"] == min(size[f"{name}_all_s"])
            assert size[f"{name}_rss_to_file"] == size[f"{name}_peak_rss_bytes"] / size["bytes"]
        for ratio in ("parse_over_hta_load", "summarize_over_hta_load", "parse_over_hta_parse"):
            assert size[ratio] > 0
        assert size["parse_over_hta_load"] == size["parse_s"] / size["hta_load_s"]
        assert size["summarize_over_hta_load"] == size["summarize_s"] / size["hta_load_s"]
    assert read_benchmarks(REPO) is not None  # the extra key leaves the reader content


def test_traces_only_adds_the_trace_section_and_keeps_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmarks import run

    out = tmp_path / "results.json"
    entries = [{"rows": 10, "ours_s": 1.5, "site_build": {"first_s": 9.0}}, {"rows": 20}]
    out.write_text(json.dumps(entries))
    size = {
        "megabytes": 1, "bytes": 1_000_000, "kernels": 3, "parse_s": 1.0, "summarize_s": 2.0,
        "hta_parse_s": 3.0, "hta_load_s": 4.0, "parse_over_hta_load": 0.25,
        "summarize_over_hta_load": 0.5, "parse_rss_to_file": 5.0, "summarize_rss_to_file": 6.0,
        "hta_load_rss_to_file": 7.0,
    }  # fmt: skip
    seen: list[tuple[list[int], int]] = []

    def measured(sizes: list[int], repeats: int) -> dict[str, object]:
        seen.append((sizes, repeats))
        return {"sizes": [size]}

    monkeypatch.setattr(run, "measure_traces", measured)
    argv = ["--traces-only", "--trace-sizes", "1", "--repeats", "1", "--out", str(out)]
    assert run.main(argv) == 0
    assert seen == [([1], 1)]
    written = json.loads(out.read_text())
    assert written == [{**entry, "traces": {"sizes": [size]}} for entry in entries]
    assert "0.25" in capsys.readouterr().out  # the table shows the ratio


def test_generated_trace_replicates_steps_with_fresh_ids(tmp_path: Path) -> None:
    """Steps are cycled through and copied past the source: every kernel still joins to its
    own launch, every step is a new one, and each copy's FLOPs are the step's."""
    events = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "ts": 0, "args": {}}]
    for step in range(2):
        start = 100 + 1000 * step
        events += [
            user_range(f"ProfilerStep#{7 + step}", start, 900),
            op("aten::mm", start + 10, 50, [[64, 32], [32, 16]], **{"External id": 1 + step}),
            launch(start + 20, 10 + step),
            kernel("gemm", start + 100, 5, 10 + step),
            {"ph": "s", "id": 10 + step, "pid": 1, "tid": 1, "ts": start + 20,
             "cat": "async_cpu_to_gpu", "name": "async_gpu", "bp": "e"},
        ]  # fmt: skip
    source = write_trace(
        tmp_path / "source.json",
        events,
        deviceProperties=A100_PROPERTIES,
        distributedInfo={"rank": 0},
    )
    target = tmp_path / "big" / "trace.json"
    content = generate_trace(target, 3 * source.stat().st_size, source=source)
    assert content["steps"] >= 5  # past two copies of the source's two steps
    trace = read_trace(target)
    assert len(trace.kernels) == content["kernels"] == content["steps"]
    kernels = set(trace.kernels.correlation)
    assert len(kernels) == content["steps"] and kernels == set(trace.launches.correlation)
    steps = [name for name in trace.ranges.name if name.startswith("ProfilerStep#")]
    assert steps == [f"ProfilerStep#{7 + i}" for i in range(content["steps"])]
    assert list(trace.ranges.ts) == sorted(trace.ranges.ts)  # copies follow each other in time
    head = target.read_text().splitlines()[:5]  # the metadata first, as Kineto writes it
    assert '  "distributedInfo": {"rank": 0},' in head
    summary = summarize_trace(target, None)
    assert [s["flops"] for s in summary["steps"]] == [2 * 64 * 32 * 16] * content["steps"]
    assert generate_trace(target, 3 * source.stat().st_size, source=source) == content


def test_the_cold_build_is_stated_with_its_range() -> None:
    """The committed report's build from nothing varies by seconds between builds: the page
    gives the median and the range of the cold builds, not one of them."""
    from generator.pages.performance import _cold_range

    assert _cold_range([31.69, 29.11, 34.19]) == "the median of 3 builds, 29.11 s to 34.19 s"
    assert _cold_range([30.0]) == ""  # one build: no range to give
    assert _cold_range(None) == ""  # results from before the repeats


def test_rank_copies_are_one_capture_of_distinct_ranks(tmp_path: Path) -> None:
    """The --ranks-only bench's input: copies of a generated trace (laid out as Kineto
    writes it), each naming its rank; read as one capture with no problem."""
    from benchmarks.ranks import rank_copies
    from generator.analysis.multirank import analyse_ranks

    trace = tmp_path / "trace.json"
    generate_trace(trace, 200_000)
    paths = rank_copies(trace, tmp_path / "ranks", 3)
    assert [json.loads(p.read_text())["distributedInfo"]["rank"] for p in paths] == [0, 1, 2]
    capture = analyse_ranks([tmp_path / "ranks"])
    assert [r.rank for r in capture.ranks] == [0, 1, 2] and capture.problems == ()
    assert capture.world_size == 3 and capture.stragglers.height > 0


def test_committed_results_hold_the_multi_rank_memory() -> None:
    """`--ranks-only` ran: the capture's peak does not grow with its ranks, and the
    performance page says so with the numbers."""
    results = read_benchmarks(REPO)
    assert results is not None
    ranks = results.entries[0]["ranks"]
    assert ranks["ranks"] >= 4 and ranks["peak_ratio"] <= ranks["target_peak_ratio"]
    assert ranks["capture_peak_rss_bytes"] < ranks["capture_megabytes"] * 1e6  # not all at once
    page = performance_page(results)
    assert f"{ranks['ranks']} ranks of" in page.markdown and "does not grow" in page.markdown


def test_the_binary_report_bench_times_ours_against_the_bare_iteration() -> None:
    """The bench's code path (no timing asserted: speed targets live in `nox -s bench`)."""
    pytest.importorskip("ncu_report", reason="the ncu-rep extra (ncu-report)")
    from benchmarks.ncu_reports import bare_iteration, measure_reports, reports_table
    from tests.test_ncu_rep import CUTLASS

    assert bare_iteration(CUTLASS) == 3 * 1220  # every metric value of its 3 kernels
    result = measure_reports(repeats=1)
    assert [row["kernels"] for row in result["reports"]][-1] == 3  # the largest: CUTLASS's
    assert result["largest_ratio"] == result["reports"][-1]["ratio_to_floor"] > 0
    assert "ours / floor" in reports_table(result)


def test_performance_page_shows_the_peer_from_committed_results() -> None:
    """benchmarks/results.json's `peer` entry (python -m benchmarks.peer): per trace both
    tools' modelled share, the ops both model and where they differ."""
    entries = json.loads((REPO / "benchmarks" / "results.json").read_text())
    peer = entries[0]["peer"]
    page = performance_page(read_benchmarks(REPO)).markdown
    assert "## The peer: TraceLens" in page
    for trace in peer["traces"]:
        assert f"<td>{trace['file']}</td>" in page
    qwen = next(t for t in peer["traces"] if "Qwen" in t["file"])
    sdpa = next(o for o in qwen["ops"] if o["op"] == "aten::_scaled_dot_product_flash_attention")
    # both count the causal half: ours 559·560/2 pairs a head, TraceLens 559²/2
    assert sdpa["ours_flops"] == 24 * 4 * 16 * 16 * (559 * 560 // 2) * 64
    assert sdpa["tracelens_flops"] / sdpa["ours_flops"] == pytest.approx(559 / 560, rel=1e-3)


def test_performance_page_shows_coverage_on_public_traces() -> None:
    """benchmarks/results.json's `coverage` entry (python -m benchmarks.coverage over HTA's
    and TraceLens's public test traces): every trace read is a row, and each production
    trace with shapes below half names the ops that stop it."""
    entries = json.loads((REPO / "benchmarks" / "results.json").read_text())
    coverage = entries[0]["coverage"]
    assert {t["source"] for t in coverage["traces"]} == {"hta", "tracelens"}
    page = performance_page(read_benchmarks(REPO)).markdown
    assert "## Coverage on traces nobody tuned for" in page
    for trace in coverage["traces"]:
        assert f"{trace['source']}: {trace['trace']}" in page
    sampled = next(
        t for t in coverage["traces"] if t["trace"].startswith("trace_filter__sampled_rank-0")
    )
    assert sampled["covered_of_computation"] == pytest.approx(0.764, abs=0.001)
    below = [
        t
        for t in coverage["traces"]
        if t.get("with_shapes") and (t["covered_of_computation"] or 0) < 0.5
    ]
    for trace in below:
        line = next(
            x for x in page.splitlines() if x.startswith(f"- {trace['source']}: {trace['trace']}")
        )
        assert "(" in line  # its largest uncounted ops, each with its cause


def test_busy_seconds_counts_overlaps_once() -> None:
    from benchmarks.coverage import busy_seconds

    # µs: [0, 10) and [5, 15) overlap in 5; [20, 25) apart; one inside another adds nothing
    assert busy_seconds([(5.0, 10.0), (0.0, 10.0), (20.0, 5.0), (21.0, 1.0)]) == pytest.approx(
        20e-6
    )


_FAKE_TRACELENS = """
import json

class _Table:
    def __init__(self, rows):
        self.rows = rows
        self.empty = not rows
    def __len__(self):
        return len(self.rows)
    def iterrows(self):
        return enumerate(self.rows)

class _Tree:
    events_by_uid = {
        1: {"cat": "kernel", "ts": 0.0, "dur": 10.0},
        2: {"cat": "kernel", "ts": 5.0, "dur": 10.0},
        3: {"cat": "gpu_memcpy", "ts": 30.0, "dur": 50.0},
        4: {"cat": "kernel", "ts": 100.0, "dur": 40.0},
        5: {"cat": "kernel", "ts": 200.0, "dur": 1000.0},
    }

class TreePerfAnalyzer:
    tree = _Tree()
    @classmethod
    def from_file(cls, path):
        if "broken" in path:
            raise ValueError("No GPU events found")
        return cls()
    def collect_unified_perf_events(self):
        return []
    def build_df_unified_perf_table(self, events):
        kernel = lambda uid, name: {"name": name, "dur": self.tree.events_by_uid[uid]["dur"],
                                    "gpu_op_uid": uid}
        return _Table([
            {"GFLOPS": 1.0, "kernel_details": [kernel(1, "gemm"), kernel(2, "gemm")]},
            {"GFLOPS": float("nan"), "Data Moved (MB)": 2.0,
             "kernel_details": [kernel(3, "Memcpy HtoD"), kernel(2, "gemm")]},
            {"GFLOPS": 1.0, "kernel_details": [kernel(4, "ncclDevKernel_AllReduce")]},
            {"GFLOPS": float("nan"), "kernel_details": [kernel(5, "uncosted")]},
        ])
"""


def test_the_peer_share_is_its_costed_kernel_time_over_our_denominator(tmp_path: Path) -> None:
    """TraceLens (a stand-in package here) costs ops 1 and 2: their kernels' busy time, 15 µs
    (two overlapping gemms; the memcpy and the NCCL kernel left out, the uncosted op's kernel
    not costed), over our computation time: whole × (1 − communication − copies)."""
    import sys

    from benchmarks.coverage import tracelens_share

    package = tmp_path / "peer" / "TraceLens"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(_FAKE_TRACELENS)
    ours = {"on_gpu": True, "whole_s": 100e-6, "communication": 0.2, "copies": 0.3}
    row = tracelens_share(tmp_path / "t.json", ours, package.parent, sys.executable, 60)
    assert row["tracelens_rows"] == 4 and row["tracelens_costed_rows"] == 3
    assert row["tracelens_costed_s"] == pytest.approx(15e-6)
    assert row["tracelens_covered_of_computation"] == pytest.approx(15e-6 / 50e-6)
    failed = tracelens_share(tmp_path / "broken.json", ours, package.parent, sys.executable, 60)
    assert failed == {"tracelens_error": "ValueError: No GPU events found"}
    # a trace we refused, or a CPU trace, has no denominator: no peer column
    assert tracelens_share(tmp_path / "t.json", {"error": "x"}, package.parent, "python", 1) == {}


def test_the_coverage_table_shows_tracelens_beside_ours() -> None:
    """The TraceLens column of benchmarks/results.json's coverage (issue 65, item 4): each
    trace's peer share on its row, 'no op rows' where TraceLens costed nothing, and every
    failure listed with its error text."""
    entries = json.loads((REPO / "benchmarks" / "results.json").read_text())
    coverage = entries[0]["coverage"]
    assert coverage["tracelens_run"]
    page = performance_page(read_benchmarks(REPO)).markdown
    assert "<th>TraceLens, of the rest</th>" in page
    compared = [t for t in coverage["traces"] if "tracelens_covered_of_computation" in t]
    assert len(compared) >= 40
    for trace in compared:
        line = next(x for x in page.splitlines() if f"{trace['source']}: {trace['trace']}<" in x)
        cells = line.split("<td>")
        assert cells[-1].startswith(percent(100 * trace["tracelens_covered_of_computation"]))
        if trace["tracelens_rows"] == 0:
            assert "(no op rows)" in cells[-1]
    for trace in (t for t in coverage["traces"] if "tracelens_error" in t):
        assert f"{trace['source']}: {trace['trace']} ({trace['tracelens_error'][:40]}" in page
