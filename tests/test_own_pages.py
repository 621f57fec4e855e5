"""The pages per run rendered by the build (site/shell.py, site/markdown_html.py,
site/own_pages.py), the link check that stands for `--strict` over them (site/links.py),
and how a build's files go into site/ (site/files.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.errors import UserError
from generator.pages.page import Page
from generator.site import own_pages
from generator.site.files import install, sync_tree
from generator.site.links import article_targets, check_links, targets
from generator.site.markdown_html import page_url, rewrite, to_html
from generator.site.shell import MARKDOWN, SHELLS, fill, is_own, shell_of
from generator.store import Store
from tests.helpers import REPO


def test_the_pages_per_run_are_the_builds_own() -> None:
    assert is_own("measurements/runs/A-x-1.md")  # a run's page
    assert is_own("measurements/traces/run-A-x-1.md")  # its trace page
    assert is_own("measurements/run-A-x-1.md")  # its kernel page
    for other in (
        "measurements/runs.md",
        "measurements/run-lists/A-1.md",  # aggregate: MkDocs builds them
        "measurements/traces/hta-trace.md",  # an imported trace, in the nav
        "measurements/runs/_shell.md",  # the shells are MkDocs'
        "measurements/l4-nn-perf.md",
        "methodology.md",
    ):
        assert not is_own(other), other
    assert shell_of("measurements/runs/A-x-1.md") == "measurements/runs/_shell.md"
    assert set(SHELLS) == {
        "measurements/runs/_shell.md", "measurements/traces/_shell.md", "measurements/_shell.md"
    }  # fmt: skip


def test_links_are_rewritten_as_mkdocs_rewrites_them() -> None:
    """MkDocs' rule for use_directory_urls: resolved from the page's file, written relative
    to the folder the page is served from."""
    run = "measurements/runs/A-x-1.md"
    assert page_url(run) == "measurements/runs/A-x-1/"
    assert page_url("measurements/index.md") == "measurements/"
    assert page_url("index.md") == "./"
    assert rewrite("../runs.md", run) == "../"
    assert rewrite("../traces/run-A-x-1.md", run) == "../../traces/run-A-x-1/"
    assert (
        rewrite("../../methodology.md#profiler-traces", run)
        == "../../../methodology/#profiler-traces"
    )
    assert rewrite("../data/runs-A-x-1/steps.csv", run) == "../../data/runs-A-x-1/steps.csv"
    assert rewrite("index.md", "measurements/run-A-x-1.md") == "../"
    for untouched in ("#data", "https://example.org/a.md", "/abs/x.md", "mailto:a@b.c"):
        assert rewrite(untouched, run) == untouched


def test_a_page_converts_with_mkdocs_ymls_extensions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # mkdocs.yml lives there
    text = (
        "---\ntitle: The title\nhide:\n  - toc\n---\n\n# Heading\n\n"
        '!!! note "Notes"\n    an admonition\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n'
        "[all runs](../runs.md)\n"
    )
    page = to_html("measurements/runs/A-x-1.md", text)
    assert page.title == "The title"  # front matter first, as MkDocs takes it
    assert 'class="admonition note"' in page.body and "<table>" in page.body
    assert 'class="headerlink"' in page.body  # toc: permalink: true
    assert '<a href="../">all runs</a>' in page.body
    assert "hide:" not in page.body
    assert to_html("measurements/runs/B.md", "# Run B\n\ntext\n").title == "Run B"


def test_the_shell_takes_the_pages_title_content_and_url() -> None:
    built = (
        "<html><head><title>RA-SHELL-TITLE - Roofline Atlas</title>"
        '<link rel="canonical" href="https://x.org/measurements/runs/_shell/"></head>'
        '<body><nav><a href="../../../methodology/">Methodology</a></nav><article>'
        '<div class="ra-shell-start"></div>\n<h1 id="ra-shell-title">RA-SHELL-TITLE</h1>\n'
        '<div class="ra-shell-end"></div></article></body></html>'
    )
    page = fill(built, "measurements/runs/_shell/", "measurements/runs/r/", "A & B", "<p>hi</p>")
    assert "<title>A &amp; B - Roofline Atlas</title>" in page
    assert 'href="https://x.org/measurements/runs/r/"' in page
    assert "<article><p>hi</p></article>" in page
    assert "RA-SHELL" not in page and "_shell" not in page
    assert 'href="../../../methodology/"' in page  # the theme's links, right at this depth
    assert "ra-shell-start" in MARKDOWN and "search:\n  exclude: true" in MARKDOWN


def test_the_link_check_names_the_page_and_the_broken_link() -> None:
    html = (
        '<a href="../">up</a> <a href="#x">here</a> <a href="https://e.org/">away</a> '
        '<a href="../../data/runs-r/steps.csv">csv</a> <img src="../gone/">'
        ' <div data-src="../../data/runs-r/chart.js"></div>'
    )
    found = targets("measurements/runs/r/", html)
    assert found == (
        "measurements/data/runs-r/chart.js", "measurements/data/runs-r/steps.csv",
        "measurements/runs/", "measurements/runs/gone/",
    )  # fmt: skip
    files = {
        "measurements/runs/index.html", "measurements/data/runs-r/steps.csv",
        "measurements/data/runs-r/chart.js", "measurements/runs/r/index.html",
    }  # fmt: skip
    with pytest.raises(UserError) as raised:
        check_links({"measurements/runs/r/": found}, files)
    message = str(raised.value)
    assert "measurements/runs/r/ links measurements/runs/gone/" in message
    assert "1 broken link" in message
    files.add("measurements/runs/gone/index.html")
    check_links({"measurements/runs/r/": found}, files)  # all there: no error
    themed = '<nav><a href="../nav-only/">n</a></nav><article><a href="x/">x</a></article>'
    assert article_targets("", themed) == ("x/",)  # the theme's own links are MkDocs'


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_install_moves_in_what_differs_and_removes_what_is_gone(tmp_path: Path) -> None:
    output, site = tmp_path / "out", tmp_path / "site"
    _tree(site, {"a/index.html": "same", "b/index.html": "old", "gone/index.html": "x",
                 "measurements/data/p/f.csv": "kept"})  # fmt: skip
    _tree(output, {"a/index.html": "same", "b/index.html": "new", "c/index.html": "new page",
                   "measurements/data/p/f.csv": "MkDocs' copy"})  # fmt: skip
    before = os.stat(site / "a" / "index.html")
    made = install(output, site, "measurements/data", frozenset({"gone/index.html"}))
    assert made == {"a/index.html", "b/index.html", "c/index.html"}
    after = os.stat(site / "a" / "index.html")
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert (site / "b" / "index.html").read_text() == "new"
    assert (site / "c" / "index.html").read_text() == "new page"
    assert not (site / "gone").exists()
    assert (site / "measurements" / "data" / "p" / "f.csv").read_text() == "kept"


def test_sync_tree_copies_the_changed_folders_files(tmp_path: Path) -> None:
    source, target = tmp_path / "downloads", tmp_path / "site"
    _tree(source, {"p/a.csv": "a", "p/b.csv": "b", "q/c.csv": "c"})
    sync_tree(source, target)  # a new folder: copied whole
    assert (target / "q" / "c.csv").read_text() == "c"
    old = 2_000_000_000 * 10**9
    for path in (target / "p", target / "q"):
        os.utime(path, ns=(old, old))  # as copied after the sources were written
    for path in (source / "p", source / "q", source):
        os.utime(path, ns=(old - 10**9, old - 10**9))
    (source / "p" / "a.csv").write_text("a2")  # a changed download is renamed over the old:
    (source / "p" / "b.csv").unlink()  # its folder's time moves, as it does here
    os.utime(source / "p", ns=(old + 10**9, old + 10**9))
    (source / "q" / "c.csv").write_text("c2")  # its folder unchanged: not looked at
    os.utime(source / "q", ns=(old - 10**9, old - 10**9))
    (source / "r").mkdir()
    (source / "r" / "d.csv").write_text("d")
    sync_tree(source, target)
    assert (target / "p" / "a.csv").read_text() == "a2"
    assert not (target / "p" / "b.csv").exists()
    assert (target / "q" / "c.csv").read_text() == "c"  # nothing written in place does that
    assert (target / "r" / "d.csv").read_text() == "d"


def test_a_page_is_written_again_only_when_its_markdown_or_shell_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)  # mkdocs.yml lives there
    site = tmp_path / "site"
    texts = {"measurements/runs/a.md": "# A\n", "measurements/runs/b.md": "# B\n"}
    pages = own_pages.own_pages([Page(path, "", text) for path, text in texts.items()])
    shells = {s: f"<t>RA-SHELL-TITLE</t>{MARKDOWN_HTML}" for s in SHELLS}
    kept, write = own_pages.plan(site, pages, shells, None)
    assert kept == {} and sorted(write) == sorted(texts)  # nothing recorded: all
    made = own_pages.render(pages, shells, own_pages.convert(pages, write), write)
    own_pages.write(site, made, set())
    assert "<t>A</t>" in (site / "measurements/runs/a/index.html").read_text()
    record = own_pages.Record(
        frozenset(),
        {s: own_pages.digest(t) for s, t in shells.items()},
        {p: (key, links) for p, (key, _, links) in made.items()},
    )
    store = Store(tmp_path / "cache")
    own_pages.save_record(store, site, record)
    assert own_pages.read_record(store, site) == record
    again = {**texts, "measurements/runs/b.md": "# B, again\n"}
    changed = own_pages.own_pages([Page(path, "", text) for path, text in again.items()])
    assert own_pages.changed_markdown(changed, record) == ["measurements/runs/b.md"]
    kept, write = own_pages.plan(site, changed, shells, record)
    assert list(kept) == ["measurements/runs/a.md"] and write == ["measurements/runs/b.md"]
    other = {s: t + "<nav>new</nav>" for s, t in shells.items()}  # the navigation changed
    assert own_pages.plan(site, pages, other, record)[1] == list(texts)
    (site / "measurements/runs/a/index.html").unlink()  # its file gone: written again
    assert own_pages.plan(site, pages, shells, record)[1] == ["measurements/runs/a.md"]
    own_pages.write(site, {}, {"measurements/runs/b.md"})  # a page no longer made
    assert not (site / "measurements/runs/b").exists()
    assert own_pages.read_record(store, site) == record
    own_pages.forget_record(store, site)
    assert own_pages.read_record(store, site) is None  # forgotten until saved


MARKDOWN_HTML = (
    '<div class="ra-shell-start"></div><h1>RA-SHELL-TITLE</h1><div class="ra-shell-end"></div>'
)
