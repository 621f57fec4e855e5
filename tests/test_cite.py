"""The Cite page: CITATION.cff, its BibTeX, and a stable id per run."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.errors import UserError
from generator.ingest.runs import load_runs
from generator.pages.cite import bibtex
from generator.records.citation import load_citation
from tests.helpers import REPO


def test_bibtex_from_the_citation_file() -> None:
    assert bibtex(load_citation(REPO / "CITATION.cff")) == (
        "@software{roofline_atlas_2026,\n"
        "  title = {Roofline Atlas: training steps and kernels on the roofline},\n"
        "  author = {Roofline Atlas contributors},\n"
        "  version = {0.1.0},\n"
        "  year = {2026},\n"
        "  note = {License: MIT},\n"
        "}"
    )


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
    for row in runs.to_dicts():
        assert f"Roofline Atlas, run {row['run_id']} (commit {row['commit'][:12]})" in html
