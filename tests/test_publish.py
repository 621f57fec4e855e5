"""Publishing versions with mike: what a citation points at stays as it was cited.

The slow test publishes the golden set as 2026.11, adds a run, and publishes 2026.12, both
with `--alias latest --push` to a local bare repository standing in for GitHub, through the
command `nox -s publish` runs; then it reads the remote's gh-pages tree.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest

from benchmarks.synthetic import replicate_run
from generator.cli import main
from generator.records.versions import check_version
from generator.site.release import RELEASE_FILE
from tests.conftest import copy_docs
from tests.helpers import REPO
from tests.test_browser import VIEWPORT, _QuietHandler, browser  # noqa: F401 (a fixture)

GOLDEN = REPO / "tests" / "data" / "golden" / "measurements"
SITE = "https://roofline-atlas.github.io/roofline-atlas/"
IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.org",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.org",
}


def git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **IDENTITY},
    ).stdout.strip()


def new_checkout(root: Path) -> tuple[Path, Path]:
    """A git checkout with a bare repository as its `origin`."""
    remote, checkout = root / "remote.git", root / "checkout"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    checkout.mkdir()
    git(checkout, "init", "--quiet", "--initial-branch", "main")
    git(checkout, "remote", "add", "origin", str(remote))
    (checkout / "README").write_text("a checkout\n")
    git(checkout, "add", ".")
    git(checkout, "commit", "--quiet", "-m", "start")
    return checkout, remote


def publish(checkout: Path, version: str, *extra: str) -> int:
    return main(
        [
            "publish", version, "--repository", str(checkout),
            "--measurements", str(checkout / "measurements"),
            "--docs", str(checkout.parent / "docs"),
            "--site-dir", str(checkout.parent / "site"),
            "--cache-dir", str(checkout.parent / "cache"),
            *extra,
        ]
    )  # fmt: skip


def branch_tree(repository: Path, target: Path, branch: str = "gh-pages") -> Path:
    archive = target.with_suffix(".tar")
    subprocess.run(
        ["git", "--git-dir", str(repository), "archive", "-o", str(archive), branch], check=True
    )
    with tarfile.open(archive) as tar:
        tar.extractall(target, filter="data")
    return target


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("publish")
    checkout, remote = new_checkout(root)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.chdir(REPO)  # mkdocs.yml lives there
        for name, value in IDENTITY.items():
            monkeypatch.setenv(name, value)
        for name in ("RA_SITE_URL", "RA_REPO_URL"):
            monkeypatch.delenv(name, raising=False)
        shutil.copytree(GOLDEN, checkout / "measurements")
        shutil.copy(REPO / "CITATION.cff", checkout / "CITATION.cff")
        shutil.copytree(REPO / "benchmarks", checkout / "benchmarks", ignore=_only_results)
        copy_docs(root / "docs")
        git(checkout, "add", ".")
        git(checkout, "commit", "--quiet", "-m", "first data")
        first_commit = git(checkout, "rev-parse", "HEAD")
        said = {}
        with contextlib.redirect_stdout(io.StringIO()) as out:
            assert publish(checkout, "2026.11", "--alias", "latest", "--push") == 0
        said["2026.11"] = out.getvalue()
        first_tree = git(checkout, "rev-parse", "gh-pages:2026.11")
        source = next(
            p for p in sorted((checkout / "measurements" / "runs").iterdir()) if p.is_dir()
        )
        added = replicate_run(source, checkout / "measurements" / "runs", 950)
        git(checkout, "add", ".")
        git(checkout, "commit", "--quiet", "-m", "one more run")
        second_commit = git(checkout, "rev-parse", "HEAD")
        with contextlib.redirect_stdout(io.StringIO()) as out:
            assert publish(checkout, "2026.12", "--alias", "latest", "--push") == 0
        said["2026.12"] = out.getvalue()
        first_tree_after = git(checkout, "rev-parse", "gh-pages:2026.11")
    return {
        "said": said,
        "first_tree": (first_tree, first_tree_after),
        "tree": branch_tree(remote, root / "tree"),
        "added": added,
        "commits": {"2026.11": first_commit, "2026.12": second_commit},
        "checkout": checkout,
        "remote": remote,
    }


def _only_results(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n != "results.json" and not Path(folder, n).is_dir()]


def _tree(published: dict[str, object]) -> Path:
    tree = published["tree"]
    assert isinstance(tree, Path)
    return tree


@pytest.mark.site
def test_versions_json_lists_both_and_latest_follows_the_second(
    published: dict[str, object],
) -> None:
    tree = _tree(published)
    versions = json.loads((tree / "versions.json").read_text())
    assert [(v["version"], v["aliases"]) for v in versions] == [
        ("2026.12", ["latest"]),
        ("2026.11", []),
    ]
    assert 'url=../2026.12/"' in (tree / "latest" / "index.html").read_text()
    assert "latest/" in (tree / "index.html").read_text()  # the root opens the newest


@pytest.mark.site
def test_the_first_version_keeps_the_first_numbers(published: dict[str, object]) -> None:
    tree, added = _tree(published), published["added"]
    assert not (tree / "2026.11" / "measurements" / "runs" / f"{added}").exists()
    assert (tree / "2026.12" / "measurements" / "runs" / f"{added}" / "index.html").is_file()
    counts = {
        version: re.search(
            r"(\d+) measured configurations on", (tree / version / "index.html").read_text()
        )
        for version in ("2026.11", "2026.12")
    }
    first, second = (int(m.group(1)) for m in counts.values() if m is not None)
    assert second == first  # the added run is a replica: it pools into its configuration
    cites = {
        version: (tree / version / "measurements" / "cite" / "index.html").read_text()
        for version in ("2026.11", "2026.12")
    }  # the configuration's citation names every run it pools: the second names the new one
    assert f"measurements/runs/{added}/run.json" not in cites["2026.11"]
    assert f"measurements/runs/{added}/run.json" in cites["2026.12"]
    landing = (tree / "2026.11" / "index.html").read_text()
    assert "Version 2026.11" in landing and 'href="../latest/"' in landing


@pytest.mark.site
def test_every_page_carries_its_version_in_canonical_and_bibtex_urls(
    published: dict[str, object],
) -> None:
    tree = _tree(published)
    commits = published["commits"]
    assert isinstance(commits, dict)
    for version in ("2026.11", "2026.12"):
        pages = sorted((tree / version).rglob("index.html"))
        assert len(pages) > 20
        for page in pages:
            html = page.read_text(encoding="utf-8")
            path = page.parent.relative_to(tree / version).as_posix()
            expected = SITE + version + "/" + ("" if path == "." else path + "/")
            assert f'<link rel="canonical" href="{expected}">' in html, page
            for url in re.findall(r"url = \{([^}]*)\}", html):
                assert url.startswith(SITE + version + "/"), (page, url)
        cite = (tree / version / "measurements" / "cite" / "index.html").read_text()
        assert f"url = {{{SITE}{version}/}}" in cite
        assert f"commit {commits[version]}" in cite
        assert f"version = {{{version}}}" in cite
        run = next((tree / version / "measurements" / "runs").glob("*/index.html")).read_text()
        assert f"url = {{{SITE}{version}/measurements/runs/" in run
        assert f"report {version} built from commit {commits[version]}" in run
    assert not list(tree.rglob(RELEASE_FILE))  # the build's state stays out of gh-pages


@pytest.mark.site
def test_the_versions_share_their_downloads_and_keep_their_links(
    published: dict[str, object],
) -> None:
    """Downloads, MathJax and Vega lie once in _shared/ under their digest; each version
    lists what it uses and links there; the second version added only what changed, and
    the first version's folder (its pages and links) is as it was published."""
    from generator.site.links import broken, targets
    from generator.site.shared import MANIFEST, SHARED_DIR

    tree = _tree(published)
    said = published["said"]
    assert isinstance(said, dict)
    first_tree, first_tree_after = published["first_tree"]  # type: ignore[misc]
    assert first_tree == first_tree_after
    listed = {}
    for version in ("2026.11", "2026.12"):
        assert not (tree / version / "measurements" / "data").exists()
        listed[version] = set((tree / version / MANIFEST).read_text().splitlines())
        assert all((tree / path).is_file() for path in listed[version])
    both = listed["2026.11"] & listed["2026.12"]
    assert len(both) > 0.9 * len(listed["2026.11"])  # one more run changes few downloads
    stored = {p.relative_to(tree).as_posix() for p in (tree / SHARED_DIR).rglob("*") if p.is_file()}
    assert stored == listed["2026.11"] | listed["2026.12"]
    match = re.search(r"(\d[\d,]*) shared files \(([^)]*)\) already there", said["2026.12"])
    assert match and int(match.group(1).replace(",", "")) == len(both), said["2026.12"]
    assert "2026.12 added" in said["2026.12"] and "to gh-pages, now" in said["2026.12"]
    # every relative link of both versions leads to a file of the published tree
    files = {p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file()}
    checked = 0
    for version in ("2026.11", "2026.12"):
        for page in (tree / version).rglob("*.html"):
            text = page.read_text(encoding="utf-8")
            if page.name == "404.html":  # served at any depth: its links name the site's root
                shared = re.findall(rf'="/roofline-atlas/({SHARED_DIR}/[^"?#]*)', text)
                assert shared and all(path in files for path in shared)
                continue
            links = targets(page.parent.relative_to(tree).as_posix() + "/", text)
            assert not [link for link in links if broken(link, files)], page
            checked += sum(1 for link in links if link.startswith(f"{SHARED_DIR}/"))
    assert checked > 100


@pytest.mark.parametrize("bad", ["latest", "v2026.11", "2026", "2026.11/../x", "", "2026.11 "])
def test_a_version_is_digits_and_dots(bad: str) -> None:
    with pytest.raises(Exception, match="is not a report version"):
        check_version(bad)
    assert check_version("2026.11") == "2026.11" and check_version("dev") == "dev"


def _refs(repository: Path) -> str:
    """The branches (a fetch may add remote-tracking refs: that changes nothing published)."""
    return git(repository, "for-each-ref", "refs/heads")


def test_an_invalid_version_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout, _ = new_checkout(tmp_path)
    before = _refs(checkout)
    assert publish(checkout, "v1/../x", "--alias", "latest") == 1
    assert "is not a report version" in capsys.readouterr().err
    assert _refs(checkout) == before and not (tmp_path / "site").exists()


def test_publishing_without_a_built_site_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout, _ = new_checkout(tmp_path)
    before = _refs(checkout)
    assert publish(checkout, "2026.11", "--no-build") == 1
    assert "no built report here" in capsys.readouterr().err
    (tmp_path / "site").mkdir()  # a site built as another version
    (tmp_path / "site" / RELEASE_FILE).write_text(
        json.dumps(
            {
                "version": None,
                "site_url": SITE,
                "repo_url": None,
                "date": "2026-11-01",
                "commit": None,
            }
        )
    )
    assert publish(checkout, "2026.11", "--no-build") == 1
    assert "not as 2026.11" in capsys.readouterr().err
    assert _refs(checkout) == before


def test_a_checked_out_gh_pages_with_changes_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout, _ = new_checkout(tmp_path)
    pages = tmp_path / "pages"
    git(checkout, "worktree", "add", "--quiet", "-b", "gh-pages", str(pages))
    (pages / "edited.html").write_text("by hand\n")
    before = _refs(checkout)
    assert publish(checkout, "2026.11", "--alias", "latest") == 1
    err = capsys.readouterr().err
    assert "gh-pages branch is checked out here with uncommitted changes" in err
    assert str(pages) in err
    assert _refs(checkout) == before and not (tmp_path / "site").exists()


def _orphan_pages_commit(folder: Path, text: str) -> None:
    git(folder, "checkout", "--quiet", "--orphan", "gh-pages")
    git(folder, "rm", "-r", "--quiet", "--cached", "--ignore-unmatch", ".")
    (folder / "versions.json").write_text(f'"{text}"\n')
    git(folder, "add", "versions.json")
    git(folder, "commit", "--quiet", "-m", text)


def test_a_gh_pages_diverged_from_the_remote_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout, remote = new_checkout(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "--quiet")
    _orphan_pages_commit(other, "published elsewhere")
    git(other, "push", "--quiet", str(remote), "gh-pages")
    _orphan_pages_commit(checkout, "published here")
    git(checkout, "checkout", "--quiet", "-f", "main")
    before = _refs(checkout)
    assert publish(checkout, "2026.11", "--push") == 1
    err = capsys.readouterr().err
    assert "gh-pages" in err and "differ" in err and "fix:" in err
    assert _refs(checkout) == before and not (tmp_path / "site").exists()


@pytest.mark.site
def test_the_readmes_site_links_point_at_pages_the_build_writes(
    published: dict[str, object],
) -> None:
    from tests.test_readme import site_links

    tree = _tree(published)
    paths = site_links()
    assert paths
    for path in paths:
        assert (tree / "2026.12" / path / "index.html").is_file(), path


@pytest.mark.site
def test_a_published_version_shows_the_version_selector(
    published: dict[str, object],
    browser: Any,  # noqa: F811 (the fixture imported above)
) -> None:
    tree = _tree(published)
    handler = functools.partial(_QuietHandler, directory=str(tree))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        page = browser.new_page(viewport=VIEWPORT)
        root = f"http://127.0.0.1:{httpd.server_address[1]}"
        page.goto(f"{root}/2026.11/", wait_until="networkidle")
        selector = page.locator(".md-version")
        selector.wait_for(state="visible", timeout=10_000)
        assert "2026.11" in page.locator(".md-version__current").inner_text()
        versions = page.locator(".md-version__list .md-version__link").all_inner_texts()
        assert any("2026.12" in v for v in versions) and any("2026.11" in v for v in versions)
        # charts drawn by Vega and their specs, both from _shared/, and a download served
        page.goto(f"{root}/2026.11/measurements/overview/", wait_until="networkidle")
        page.locator("div.ra-chart[data-rendered='ok']").first.wait_for(timeout=20_000)
        assert page.locator("div.ra-chart[data-rendered='error']").count() == 0
        assert "/_shared/" in (page.locator("div.ra-chart").first.get_attribute("data-src") or "")
        download = page.locator("a[href*='_shared/'][href$='.csv']").first.get_attribute("href")
        assert download and page.request.get(urljoin(page.url, download)).ok  # (made absolute)
        page.close()
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_fork_overrides_the_urls_of_citation_cff(monkeypatch: pytest.MonkeyPatch) -> None:
    from generator.site.release import REPO_URL_ENV, SITE_URL_ENV, make_release

    citation = {"url": "https://a.example/atlas", "repository-code": "https://a.example/repo"}
    monkeypatch.delenv(SITE_URL_ENV, raising=False)
    monkeypatch.delenv(REPO_URL_ENV, raising=False)
    ours = make_release(citation, "2026.11", "abc")
    assert (ours.site_url, ours.repo_url) == ("https://a.example/atlas/", "https://a.example/repo")
    assert ours.url == "https://a.example/atlas/2026.11/"
    monkeypatch.setenv(SITE_URL_ENV, "https://fork.example/their-atlas/")
    monkeypatch.setenv(REPO_URL_ENV, "https://fork.example/their-repo")
    fork = make_release(citation, "2026.11", "abc")
    assert fork.url == "https://fork.example/their-atlas/2026.11/"
    assert fork.repo_url == "https://fork.example/their-repo"
    assert 'site_url: "https://fork.example/their-atlas/2026.11/"' in fork.mkdocs_config()


def test_mkdocs_is_timed_to_its_own_end_not_to_the_builds_wait() -> None:
    """publish waits for MkDocs only after converting the pages per run and writing the
    chart files; the seconds it records for MkDocs end when MkDocs' process did."""
    import sys
    import time

    from generator.site.publish import _Watched

    started = time.perf_counter()
    watched = _Watched(subprocess.Popen([sys.executable, "-c", "pass"]), started)
    time.sleep(1.5)  # the build's own work beside MkDocs
    code, seconds = watched.wait()
    assert code == 0 and 0 < seconds < 1.2
    failing = _Watched(subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"]), started)
    assert failing.wait()[0] == 3
