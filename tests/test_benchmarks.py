"""The benchmark's input generator and the Tool performance page (timings live in
benchmarks/results.json, never in tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.generate import DEFAULT_SOURCE, generate
from benchmarks.implementations import ours
from generator.ingest import read_ncu_csv
from generator.pages.performance import performance_page
from generator.records.benchmarks import read_benchmarks
from tests.helpers import REPO


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
    timed = {"first_s": 2.0, "second_s": 0.1, "forced_warm_cache_s": 1.0, "second_over_first": 0.05}
    monkeypatch.setattr(run, "measure_site_build", lambda: dict(timed))
    assert run.main(["--site-only", "--out", str(out)]) == 0
    [entry] = json.loads(out.read_text())
    assert entry["ours_s"] == 1.5
    assert entry["site_build"]["first_s"] == 2.0 and "measured_at" in entry["site_build"]
