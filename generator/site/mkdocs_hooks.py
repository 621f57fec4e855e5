"""MkDocs hooks (`hooks:` in mkdocs.yml and the build's config): find and copy the pages'
downloads, keep the search index whole in a `mkdocs build --dirty`, and put generated text
into hand-written pages.

The downloads (`DATA_DIR/...`) lie beside docs_dir (`paths.downloads_root`), so MkDocs
never lists them; a page's link to one is checked and rewritten as before, from a File
made when the link asks for it (`_WithDownloads`), and after the build they are copied into
the site at the same paths: all of them, or in a dirty build those written since.

A hand-written page may hold a marker `<!-- generated: NAME -->`; the build replaces it
with the Markdown a generated page left in `INCLUDES_DIR/NAME.md.txt` (the
Methodology page states the intervals' coverage this way). Such a page is rendered again
in a dirty build when what it includes is newer than its HTML, though its own source has
not changed.

A dirty build writes into an empty folder (publish.py moves what it wrote into the live
site afterwards), so MkDocs' own check ("is this file newer than its output?") is replaced
by "was this file written since the live site was built?" (`_changed_since`), and the
notebook, whose source time says nothing of its measurements, is rendered every time.

A dirty build renders only the pages whose source is newer than their HTML, and the search
plugin indexes only the pages it rendered, so the index it writes would lose every other
page. Here the previous index's entries of the pages not rendered this time are put back,
in the order a full build writes them (its pages' order), so the file equals a full
build's. Pages that exclude themselves from search (`search: exclude: true`, the page
per run) get one entry with their title and no text, so a search for a run finds it.
Loaded by MkDocs from this file's path, not imported by the generator.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from generator.pages.paths import DATA_DIR, INCLUDES_DIR, downloads_root, is_download
from generator.pages.template_cache import keep_compiled
from generator.site.stamp import (
    CHANGED_SINCE_ENV,
    DIRTY_ENV,
    LIVE_SITE_ENV,
    RENDER_ALWAYS_ENV,
    TEMPLATE_CACHE_ENV,
)

_INDEX = Path("search") / "search_index.json"
_MARKER = re.compile(r"<!-- generated: ([a-z0-9-]+) -->")
WITH_INCLUDES = ("methodology.md",)  # hand-written pages that hold a marker

_state: dict[str, Any] = {
    "previous": None, "order": [], "rendered": set(), "titles": {}, "once": {}, "stale": set()
}  # fmt: skip


def _page_of(location: str) -> str:
    return location.split("#", 1)[0]


def _live(config: MkDocsConfig) -> Path:
    """The site a dirty build updates (its outputs' times, its search index)."""
    return Path(os.environ.get(LIVE_SITE_ENV) or config.site_dir)


def _changed_since(cutoff_ns: int) -> Any:
    """File.is_modified as "written since the live site was built": the source's time from
    `cutoff_ns` on (publish.py: the previous build's start, by the file system's clock), or
    a source in `_state["stale"]` (the notebook, a page whose includes changed). One stat a
    file; comparing with the live copy's time cost a path computation and two stats, 1 s at
    25,000 files."""

    def is_modified(file: File) -> bool:
        if file._content is not None or file.src_uri in _state["stale"]:
            return True
        assert file.abs_src_path is not None
        return os.stat(file.abs_src_path).st_mtime_ns >= cutoff_ns

    return is_modified


def on_pre_build(config: MkDocsConfig) -> None:
    always = set(filter(None, os.environ.get(RENDER_ALWAYS_ENV, "").split(os.pathsep)))
    _state.update(previous=None, order=[], rendered=set(), titles={}, once={}, stale=always)
    if os.environ.get(DIRTY_ENV) != "1":
        return
    File.is_modified = _changed_since(int(os.environ[CHANGED_SINCE_ENV]))  # type: ignore[method-assign]
    index = _live(config) / _INDEX
    if index.is_file():
        _state["previous"] = json.loads(index.read_text(encoding="utf-8"))


def _includes_changed(source: Path, rendered: Path, downloads: Path) -> bool:
    """Whether any text `source` includes is newer than its rendered page (the write stage
    keeps an unchanged file's time, so only a real change counts)."""
    built = rendered.stat().st_mtime
    for name in _MARKER.findall(source.read_text(encoding="utf-8")):
        included = downloads / INCLUDES_DIR / f"{name}.md.txt"
        if not included.is_file() or included.stat().st_mtime >= built:
            return True
    return False


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    if os.environ.get(DIRTY_ENV) == "1":
        # The 404 page shows the navigation and the config, which a dirty build has as the
        # live site's (publish.py), so the live page stays: drawing the whole navigation
        # again was a fifth of a dirty build at 1,000 runs.
        config.theme.static_templates.discard("404.html")
    return config


@event_priority(-50)  # after mkdocs-jupyter has wrapped the notebook's file
def on_files(files: Files, config: MkDocsConfig) -> Files:
    for name in WITH_INCLUDES:
        file = files.get_file_from_path(name)
        if file is None or file.abs_src_path is None:
            continue
        rendered = _live(config) / os.path.relpath(file.abs_dest_path, config.site_dir)
        if rendered.is_file() and _includes_changed(
            Path(file.abs_src_path), rendered, _downloads(config)
        ):
            _state["stale"].add(file.src_uri)  # a dirty build renders it again
    return _WithDownloads(files, config)


def _downloads(config: MkDocsConfig) -> Path:
    return downloads_root(Path(config.docs_dir))


class _WithDownloads(Files):
    """The docs' files, and a download (`paths.downloads_root`, beside docs_dir) when a page
    links one: MkDocs checks and rewrites such a link as it did when the downloads lay in
    docs_dir, from a File made when asked for, but never lists, wraps or copies them all
    (22,000 files at 1,000 runs: a second of every build). `_copy_downloads` copies them."""

    def __init__(self, files: Files, config: MkDocsConfig) -> None:
        super().__init__(files)
        self._root = str(_downloads(config))
        self._config = config

    def get_file_from_path(self, path: str) -> File | None:
        found = super().get_file_from_path(path)
        if found is None and is_download(path) and os.path.isfile(os.path.join(self._root, path)):
            config = self._config
            found = File(path, self._root, config.site_dir, config.use_directory_urls)
        return found


def _copy_downloads(config: MkDocsConfig) -> None:
    """The downloads into the built site at their docs-relative paths: all of them, or in a
    dirty build those written since the live site was built (`_changed_since`'s rule). A
    folder last changed before then holds no such file, and its files are not looked at:
    a download is written new (an entry made) or renamed over its old copy (site/files.py,
    atomic.py), either of which stamps its folder (22,690 stat calls at 1,000 runs)."""
    root = str(_downloads(config))
    since = int(os.environ[CHANGED_SINCE_ENV]) if os.environ.get(DIRTY_ENV) == "1" else None
    for folder, _, names in os.walk(os.path.join(root, DATA_DIR)):
        if since is not None and os.stat(folder).st_mtime_ns < since:
            continue
        target = os.path.join(config.site_dir, os.path.relpath(folder, root))
        made = False
        for name in names:
            source = os.path.join(folder, name)
            if since is not None and os.stat(source).st_mtime_ns < since:
                continue
            if not made:
                os.makedirs(target, exist_ok=True)
                made = True
            shutil.copyfile(source, os.path.join(target, name))


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    def included(match: re.Match[str]) -> str:
        path = _downloads(config) / INCLUDES_DIR / f"{match.group(1)}.md.txt"
        return path.read_text(encoding="utf-8") if path.is_file() else ""

    return _MARKER.sub(included, markdown)


def _once(key: str, draw: Any) -> Any:
    """`draw()` the first time `key` is asked for in a build, its HTML after that (the
    theme's main.html: the navigation of the pages per run)."""
    once: dict[str, Any] = _state["once"]
    if key not in once:
        once[key] = draw()
    return once[key]


def on_env(env: Any, config: MkDocsConfig, files: Files) -> Any:
    _state["order"] = [f.page.url for f in files.documentation_pages() if f.page is not None]
    env.globals["ra_once"] = _once
    if folder := os.environ.get(TEMPLATE_CACHE_ENV):
        keep_compiled(env, Path(folder))  # the theme's ~40 templates: 0.3 s to compile
    return env


def on_page_context(context: Any, page: Page, config: MkDocsConfig, nav: Any) -> Any:
    _state["rendered"].add(page.url)
    if (page.meta.get("search") or {}).get("exclude"):
        # A page per run: its body is not indexed (thousands of near-identical tables, a
        # third of a build), but its title is, so a search for a run finds its page.
        _state["titles"][page.url] = page.title or ""
    return context


@event_priority(-100)  # after the search plugin has written its (partial) index
def on_post_build(config: MkDocsConfig) -> None:
    _copy_downloads(config)
    previous = _state["previous"]
    path = Path(config.site_dir) / _INDEX
    if not path.is_file():
        return
    order = {url: i for i, url in enumerate(_state["order"])}
    fresh = json.loads(path.read_text(encoding="utf-8"))
    titles = [{"location": url, "title": title, "text": ""}
              for url, title in _state["titles"].items()]  # fmt: skip
    kept = [
        entry
        for entry in (previous or {"docs": []})["docs"]
        if _page_of(entry["location"]) in order
        and _page_of(entry["location"]) not in _state["rendered"]
    ] + titles
    # sorted() is stable: each page's own entries keep their order.
    docs = sorted(kept + fresh["docs"], key=lambda e: order[_page_of(e["location"])])
    data = json.dumps({"config": fresh["config"], "docs": docs}, separators=(",", ":"), default=str)
    path.unlink()  # a new file, never a write into one a previous site may share
    path.write_text(data, encoding="utf-8")


class _DirtyNotice(logging.Filter):
    """Drops MkDocs' warning that a dirty build may leave the navigation stale: publish.py
    builds dirty only when the navigation and config are those of the previous build, and
    the warning would fail `--strict`."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("A 'dirty' build is being performed")


logging.getLogger("mkdocs.commands.build").addFilter(_DirtyNotice())
