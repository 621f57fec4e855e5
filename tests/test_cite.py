"""The Cite page: CITATION.cff, its BibTeX, and a stable id per run."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from generator.errors import UserError
from generator.ingest.runs import load_runs
from generator.pages.cite import bibtex, run_bibtex, run_key
from generator.records.citation import load_citation, report_commit
from tests.helpers import REPO, result_row


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
    row = load_runs(REPO / "measurements").filter(pl.col("status") == "ok").row(0, named=True)
    row |= {"device_label": "a device", "pooled_runs": 1}
    run = run_bibtex(data, row, result_row(row)["result"])
    page = f"https://roofline-atlas.github.io/roofline-atlas/2026.11/measurements/runs/{row['run_id']}/"
    assert f"url = {{{page}}}" in run
    assert f"at commit {row['commit']}; report 2026.11 built from commit 0123abcd" in run


def test_bibtex_names_url_and_the_commit_the_report_was_built_from() -> None:
    data = {
        **load_citation(REPO / "CITATION.cff"),
        "repository-code": "https://example.org/roofline-atlas",
        "report-commit": "0123abcd",
    }
    entry = bibtex(data)
    assert "  url = {https://example.org/roofline-atlas},\n" in entry
    assert "  note = {commit 0123abcd; License: MIT},\n" in entry


def test_every_run_has_a_bibtex_entry_with_its_own_commit_and_date() -> None:
    row = load_runs(REPO / "measurements").filter(pl.col("status") == "ok").row(0, named=True)
    row |= {"device_label": "a device", "pooled_runs": 1}
    entry = run_bibtex(
        {"title": "Roofline Atlas: x", "version": "0.1.0"}, row, result_row(row)["result"]
    )
    assert "(calibrated: 95 % re-measurement interval across 10 processes)" in entry
    assert entry.startswith("@misc{" + run_key(row["run_id"]) + ",\n")
    assert f"at commit {row['commit']}" in entry
    assert f"date = {{{row['finished_at'][:10]}}}" in entry
    assert run_key("A-resnet18-cifar10-b32-train_step-fp32-cpu-182cb488") == (
        "roofline_atlas_a_resnet18_cifar10_b32_train_step_fp32_cpu_182cb488"
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
        assert run_key(row["run_id"]) in html
        assert f"at commit {row['commit']}" in html


def test_a_bibtex_entry_never_cites_an_uncalibrated_interval_as_calibrated() -> None:
    """Issue 49: an interval within one process says so; a result without one says why."""
    row = load_runs(REPO / "measurements").filter(pl.col("status") == "ok").row(0, named=True)
    row |= {"device_label": "a device", "pooled_runs": 1}
    data = {"title": "Roofline Atlas: x", "version": "0.1.0"}
    within = run_bibtex(data, row, result_row(row, "within one process", 1)["result"])
    assert "(within one process: not calibrated)" in within and "re-measurement" not in within
    unbounded = row | {"ci_low_s": None, "ci_high_s": None}
    bare = run_bibtex(data, unbounded, result_row(unbounded, "not calibrated", 2)["result"])
    assert "(no interval: not calibrated)" in bare and "[" not in bare.split("median step")[1]
