"""The versions' shared store on gh-pages (site/shared.py, site/deploy.py), on small sites:
downloads and static packages stored once under their digest, every version's links into
them, links that never change once published, and what `publish` says it added. The slow
test in tests/test_publish.py does the same through two real builds."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from generator.errors import UserError
from generator.site.deploy import branch_files, deploy
from generator.site.release import RELEASE_FILE
from generator.site.shared import MANIFEST, SHARED_DIR, share, unused

SITE = "https://example.org/atlas/"
IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.org",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.org",
}
STEPS = b"step,seconds\n1,0.5\n2,0.25\n"


def _address(data: bytes, name: str) -> str:
    digest = hashlib.sha256(data).hexdigest()
    return f"{SHARED_DIR}/{digest[:2]}/{digest}/{name}"


def _write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


def small_site(folder: Path, version: str, overview: bytes = b"a,b\n1,2\n") -> Path:
    """A built site as `build_site` leaves it: pages, their downloads under
    measurements/data/, MathJax and Vega, a 404 page with absolute links, and the release."""
    _write(
        folder / "index.html",
        '<html><head><script src="assets/vega/vega-bundle.js"></script></head><body>'
        '<a href="measurements/data/overview/overview.csv">csv</a>'
        '<div class="ra-chart" data-src="measurements/data/overview/chart.js"></div>'
        '<a href="measurements/runs/r1/">a run</a><a href="https://example.org/x.csv">x</a>'
        "</body></html>",
    )
    _write(
        folder / "measurements" / "runs" / "r1" / "index.html",
        '<script src="../../../assets/vega/vega-bundle.js"></script>'
        '<a href="../../data/runs-r1/steps.csv?download=1#top">steps</a>'
        "<a href='../../data/runs-r1/steps.csv'>again</a><a href=\"../../../\">home</a>",
    )
    _write(
        folder / "explore" / "index.html",
        '<script src="../assets/mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe,'
        'local/stix"></script>',
    )
    _write(
        folder / "404.html",
        f'<script src="/atlas/{version}/assets/vega/vega-bundle.js"></script>'
        '<a href="/elsewhere/file.csv">x</a>',
    )
    data = folder / "measurements" / "data"
    _write(data / "overview" / "overview.csv", overview)
    _write(data / "overview" / "chart.js", "(window.RA_CHARTS = {})[1] = {};\n")
    _write(data / "runs-r1" / "steps.csv", STEPS)
    _write(data / "runs-r2" / "steps.csv", STEPS)  # the same bytes under another page
    _write(folder / "assets" / "vega" / "vega-bundle.js", "var vega = 1;\n")
    _write(folder / "assets" / "mathjax" / "MathJax.js", "var MathJax = 1;\n")
    _write(folder / "assets" / "mathjax" / "config" / "local" / "stix.js", "// stix\n")
    _write(folder / "assets" / "javascripts" / "bundle.js", "// the theme's own\n")
    release = {"version": version, "site_url": SITE, "repo_url": None, "date": "2026-11-01",
               "commit": None}  # fmt: skip
    _write(folder / RELEASE_FILE, json.dumps(release))
    return folder


def test_share_moves_downloads_and_static_packages_and_rewrites_every_link(
    tmp_path: Path,
) -> None:
    tree = small_site(tmp_path / "site", "2026.11")
    shared = share(tree, tmp_path / "store", "/atlas/2026.11/")
    steps = _address(STEPS, "steps.csv")
    assert steps in shared.files and (tmp_path / "store" / steps).read_bytes() == STEPS
    assert not (tree / "measurements" / "data").exists()
    assert not (tree / "assets" / "vega").exists() and not (tree / "assets" / "mathjax").exists()
    assert (tree / "assets" / "javascripts" / "bundle.js").is_file()  # the theme's: kept
    run = (tree / "measurements" / "runs" / "r1" / "index.html").read_text()
    # four folders up: r1, runs, measurements and the version's
    up = "../../../../"
    assert f'href="{up}{steps}?download=1#top"' in run and f"href='{up}{steps}'" in run
    assert 'href="../../../"' in run  # a link to a page is left as it was
    vega = next(p for p in shared.paths() if p.endswith("/vega/vega-bundle.js"))
    assert f'src="{up}{vega}"' in run
    index = (tree / "index.html").read_text()
    assert f'src="../{vega}"' in index and 'href="https://example.org/x.csv"' in index
    assert 'data-src="../_shared/' in index and 'href="measurements/runs/r1/"' in index
    mathjax = (tree / "explore" / "index.html").read_text()
    loader = next(p for p in shared.paths() if p.endswith("/mathjax/MathJax.js"))
    # the folder moved whole: MathJax finds config/local/stix.js beside itself
    assert f'src="../../{loader}?config=TeX-AMS-MML_HTMLorMML-full,Safe,local/stix"' in mathjax
    assert loader.replace("MathJax.js", "config/local/stix.js") in shared.files
    missing = (tree / "404.html").read_text()
    assert f'src="/atlas/{vega}"' in missing and 'href="/elsewhere/file.csv"' in missing
    assert (tree / MANIFEST).read_text().splitlines() == shared.paths()
    assert len([p for p in shared.paths() if p.endswith("steps.csv")]) == 1  # stored once


def test_a_link_the_store_cannot_rewrite_stops_the_publish(tmp_path: Path) -> None:
    tree = small_site(tmp_path / "site", "2026.11")
    (tree / "measurements" / "links.html").write_text('<a href="data/runs-r1/">a folder</a>')
    with pytest.raises(UserError, match=r"measurements/links.html links measurements/data"):
        share(tree, tmp_path / "store", "/atlas/2026.11/")


def git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **IDENTITY},
    ).stdout.strip()


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, value in IDENTITY.items():
        monkeypatch.setenv(name, value)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    git(checkout, "init", "--quiet", "--initial-branch", "main")
    (checkout / "README").write_text("a checkout\n")
    git(checkout, "add", ".")
    git(checkout, "commit", "--quiet", "-m", "start")
    return checkout


def _published(checkout: Path, version: str, overview: bytes, tmp_path: Path) -> str:
    site = small_site(tmp_path / f"site-{version}-{len(overview)}", version, overview)
    return deploy(site, checkout, version, ["latest"])


def _tree(checkout: Path, path: str) -> str:
    return git(checkout, "rev-parse", f"gh-pages:{path}")


def test_two_versions_share_what_did_not_change_and_the_first_keeps_its_links(
    repository: Path, tmp_path: Path
) -> None:
    first = _published(repository, "2026.11", b"a,b\n1,2\n", tmp_path)
    assert "2026.11 added" in first and "6 new shared files" in first
    assert "0 shared files (0 B) already there" in first
    before = _tree(repository, "2026.11")
    second = _published(repository, "2026.12", b"a,b\n1,2\n3,4\n", tmp_path)
    # one new download (the overview's CSV); the rest was there already
    assert "1 new shared file " in second and "5 shared files" in second, second
    assert _tree(repository, "2026.11") == before  # its pages and links are as published
    files = _files(repository)
    assert _address(STEPS, "steps.csv") in files
    for version in ("2026.11", "2026.12"):
        listed = git(repository, "show", f"gh-pages:{version}/{MANIFEST}").splitlines()
        assert listed and all(path in files for path in listed)
        assert not any(path.startswith(f"{version}/measurements/data/") for path in files)
    shared = [p for p in files if p.startswith(f"{SHARED_DIR}/")]
    assert len(shared) == 7  # the first version's 6, and the second's new overview.csv


def _files(checkout: Path) -> dict[str, int]:
    here = Path.cwd()
    os.chdir(checkout)
    try:
        return branch_files("gh-pages")
    finally:
        os.chdir(here)


def test_a_version_published_again_leaves_no_unused_shared_file_behind(
    repository: Path, tmp_path: Path
) -> None:
    _published(repository, "2026.11", b"kept,by\n2026.11\n", tmp_path)
    _published(repository, "dev", b"dev,one\n", tmp_path)
    old = _address(b"dev,one\n", "overview.csv")
    assert old in _files(repository)
    said = _published(repository, "dev", b"dev,two\n", tmp_path)
    files = _files(repository)
    assert old not in files and _address(b"dev,two\n", "overview.csv") in files
    assert "1 shared file no version uses removed" in said
    assert _address(b"kept,by\n2026.11\n", "overview.csv") in files  # 2026.11 lists it
    assert _address(STEPS, "steps.csv") in files


def test_unused_lists_only_shared_files_no_manifest_names() -> None:
    stored = [f"{SHARED_DIR}/aa/1/x.csv", f"{SHARED_DIR}/bb/2/y.csv", "2026.11/index.html"]
    manifests = [f"{SHARED_DIR}/aa/1/x.csv\n"]
    assert unused(stored, manifests) == [f"{SHARED_DIR}/bb/2/y.csv"]
