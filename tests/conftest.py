"""Shared fixtures: a report built from a copy of the repository's docs and measurements."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.pages.paths import GENERATED_DIR, HARDWARE_PAGE
from generator.site.build import build_site
from tests.helpers import REPO


def copy_docs(target: Path) -> Path:
    """The hand-written docs only; generated pages are rebuilt by the test."""
    shutil.copytree(
        REPO / "docs",
        target,
        ignore=shutil.ignore_patterns(GENERATED_DIR, HARDWARE_PAGE, ".generated-*"),
    )
    return target


def build_report(tmp: Path, measurements: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(REPO)  # mkdocs.yml lives there
    docs = copy_docs(tmp / "docs")
    site = tmp / "site"
    build_site(measurements=measurements, docs_dir=docs, site_dir=site)
    return site


@pytest.fixture(scope="session")
def repo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of the committed measurements, built once per test session."""
    tmp = tmp_path_factory.mktemp("report")
    with pytest.MonkeyPatch.context() as monkeypatch:
        return build_report(tmp, REPO / "measurements", monkeypatch)
