"""The Cite page: CITATION.cff, its BibTeX, and one entry per configuration."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest

from generator.analysis.interval import Interval
from generator.analysis.results import RunTime
from generator.analysis.roofs import Roof
from generator.analysis.step_verdict import TIMED, step_verdict
from generator.errors import UserError
from generator.ingest.runs import load_runs
from generator.pages.cite import bibtex, result_bibtex, result_key, result_label
from generator.records.citation import load_citation, report_commit
from tests.helpers import REPO, downloaded_runs, result_row


def test_bibtex_from_the_citation_file() -> None:
    assert bibtex(load_citation(REPO / "CITATION.cff")) == (
        "@software{roofline_atlas_2026,\n"
        "  title = {Roofline Atlas: training steps and kernels on the roofline},\n"
        "  author = {Roofline Atlas contributors},\n"
        "  version = {0.1.0},\n"
        "  year = {2026},\n"
        "  date = {2026-11-22},\n"
        "  url = {https://github.com/roofline-atlas/roofline-atlas},\n"
        "  note = {License: MIT},\n"
        "}"
    )


def test_a_published_version_is_cited_at_its_own_url_with_its_commit() -> None:
    data = {
        **load_citation(REPO / "CITATION.cff"),
        "report-commit": "0123abcd",
        "report-version": "2026.11",
        "report-url": "https://roofline-atlas.github.io/roofline-atlas/2026.11/",
        "report-date": "2026-12-01",
    }
    entry = bibtex(data)
    assert "  url = {https://roofline-atlas.github.io/roofline-atlas/2026.11/},\n" in entry
    assert "  version = {2026.11},\n" in entry and "  date = {2026-12-01},\n" in entry
    assert "commit 0123abcd" in entry
    row = downloaded_runs(REPO / "measurements").filter(pl.col("status") == "ok").row(0, named=True)
    row |= {"device_label": "a device", "pooled_runs": 1}
    run = result_bibtex(data, result_row(row)["result"], None)
    page = f"https://roofline-atlas.github.io/roofline-atlas/2026.11/measurements/runs/{row['run_id']}/"
    assert f"url = {{{page}}}" in run
    assert run.endswith("results.csv; report 2026.11 built from commit 0123abcd},\n}")


def test_bibtex_names_url_and_the_commit_the_report_was_built_from() -> None:
    data = {
        **load_citation(REPO / "CITATION.cff"),
        "repository-code": "https://example.org/roofline-atlas",
        "report-commit": "0123abcd",
    }
    entry = bibtex(data)
    assert "  url = {https://example.org/roofline-atlas},\n" in entry
    assert "  note = {commit 0123abcd; License: MIT},\n" in entry


def test_a_configuration_has_one_entry_naming_every_run_it_pools() -> None:
    """Issue 66: a pooled result is cited as the pages show it (the pooled median, not one
    run's), under one key, with each run's run.json at its own commit."""
    rows = downloaded_runs(REPO / "measurements").filter(pl.col("status") == "ok").sort("run_id")
    first, second = rows.row(0, named=True), rows.row(1, named=True)
    first |= {"device_label": "NVIDIA H100 SXM", "pooled_runs": 2}
    result = result_row(first)["result"]
    other = RunTime(
        second["run_id"], second["group"], Interval(0.008), False, "abc123", "2027-01-02T00:00:00"
    )
    own = replace(result.runs[0], commit="def456", finished_at="2026-12-01T10:00:00")
    pooled = replace(
        result, runs=(own, other), step=Interval(0.00691, kind="not calibrated", processes=2)
    )
    entry = result_bibtex({"title": "Roofline Atlas: x", "version": "0.1.0"}, pooled, None)
    assert entry.startswith("@misc{" + result_key(pooled) + ",\n")
    assert "median step 6.91 ms (no interval: not calibrated; 2 runs" in entry
    assert f"measurements/runs/{first['run_id']}/run.json at commit def456" in entry
    assert f"measurements/runs/{second['run_id']}/run.json at commit abc123" in entry
    assert "date = {2027-01-02}" in entry  # the newest of its runs
    assert f"row {result_key(pooled)} of measurements/data/cite/results.csv" in entry
    assert result_label(pooled) == f"{first['model']} {first['dataset']} b{first['batch']} " + (
        f"{first['phase']} {first['precision']} H100 SXM"
    )
    assert result_key(pooled).endswith("_" + pooled.workload[:8])


def test_the_entry_states_the_headline_bound_with_its_share_of_the_roof() -> None:
    row = downloaded_runs(REPO / "measurements").filter(pl.col("status") == "ok").row(0, named=True)
    row |= {"device_label": "a device", "pooled_runs": 1}
    result = result_row(row)["result"]
    roof = Roof("a device", "fp32", 1e12, 1e11, "measured")
    verdict = step_verdict(4e9, 1e8, result.step, roof, TIMED, "modelled")
    assert verdict is not None
    entry = result_bibtex({"title": "Roofline Atlas: x"}, result, verdict)
    share = verdict.of_roof.percent_text()
    assert (
        f"headline bound: {verdict.bound_class} at {share} of the a device fp32 measured roof (modelled point);"
        in entry
    )


def test_report_commit_only_for_a_checkouts_top_level(tmp_path: Path) -> None:
    assert report_commit(tmp_path) is None  # not a git checkout
    assert report_commit(REPO / "tests") is None  # inside one, but not its top level
    commit = report_commit(REPO)
    assert commit is None or len(commit.removesuffix("+changes")) == 40


def test_bad_citation_file(tmp_path: Path) -> None:
    path = tmp_path / "CITATION.cff"
    path.write_text("cff-version: 1.2.0\nmessage: no title\n")
    with pytest.raises(UserError, match="no title"):
        load_citation(path)


@pytest.mark.site
def test_cite_page_lists_every_run(repo_site: Path) -> None:
    html = (repo_site / "measurements" / "cite" / "index.html").read_text(encoding="utf-8")
    assert "@software{roofline_atlas_2026," in html
    runs = load_runs(REPO / "measurements")
    for row in runs.filter(pl.col("status") == "ok").to_dicts():
        assert f"measurements/runs/{row['run_id']}/run.json at commit {row['commit']}" in html


def test_a_bibtex_entry_never_cites_an_uncalibrated_interval_as_calibrated() -> None:
    """Issue 49: an interval within one process says so; a result without one says why."""
    row = downloaded_runs(REPO / "measurements").filter(pl.col("status") == "ok").row(0, named=True)
    row |= {"device_label": "a device", "pooled_runs": 1}
    data = {"title": "Roofline Atlas: x", "version": "0.1.0"}
    within = result_bibtex(data, result_row(row, "within one process", 1)["result"], None)
    assert "(within one process: not calibrated)" in within and "re-measurement" not in within
    unbounded = row | {"ci_low_s": None, "ci_high_s": None}
    bare = result_bibtex(data, result_row(unbounded, "not calibrated", 2)["result"], None)
    assert "(no interval: not calibrated)" in bare and "[" not in bare.split("median step")[1]
