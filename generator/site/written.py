"""What docs/ holds of the cached pages' files, so that a rebuild neither reads those files
back from the cache nor compares them with docs/ when their page is the one written before.

At 1,000 runs the trace pages' downloads are ~380 MB: a rebuild after one more run read them
all from the cache and all from docs/ to find that 999 pages' worth had not changed. After
each write, for every page whose files came from a cache entry (`StoredFiles`), a manifest
(the store's state of kind `written`) records the entry's key and the size and modification time in
nanoseconds of each of its files and of the page's Markdown as found in docs/. The next
build leaves them untouched, unread, when the page's entry's key is the one recorded and
every file still has the recorded size and time.
Anything else (another key, a file changed or gone, no manifest, an unreadable one) goes
the usual way: read, compared, written where it differs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from generator.pages.downloads import attach_downloads
from generator.pages.page import Page
from generator.pages.paths import downloads_root, is_download
from generator.site.content_cache import StoredFiles
from generator.site.files import replace_generated
from generator.store import Store

_Recorded = dict[str, tuple[str, dict[str, tuple[int, int]]]]  # page -> (key, file -> stat)


@dataclass(frozen=True)
class Held:
    """What the generated folders hold after a write: the pages under docs/ and the
    downloads beside it (`downloads_root`), as paths relative to each. Saved when the
    build is done (`save_held`), so that the next write finds the files no page makes any
    more without walking the folders: at 1,000 runs two walks of the 22,690 downloads took
    0.3 s of a rebuild after one more run (timed while the test suite ran beside it). A
    write takes it away before it writes (`take_held`): a build cut short leaves none, and
    the next one walks."""

    docs: frozenset[str]
    downloads: frozenset[str]


def write_docs(
    pages: list[Page],
    docs_dir: Path,
    store: Store,
    drawn: dict[str, tuple[bytes, bytes]] | None = None,
) -> tuple[list[Page], Held]:
    """The pages written into docs_dir's generated folder and their downloads beside it
    (`downloads_root`; `drawn`: their charts' files, see attach_downloads), the cached files
    docs/ holds as recorded left untouched; the pages as written, downloads linked, and
    what the folders hold now."""
    recorded = read_manifest(store, docs_dir)
    previous = take_held(store, docs_dir)
    to_link, kept = set_aside_unchanged(pages, docs_dir, recorded)
    linked, files = attach_downloads(to_link, store, drawn, keep_tables=True)
    markdown = {page.path: page.markdown for page in linked if page.path not in kept}
    held = []
    for root, download in ((docs_dir, False), (downloads_root(docs_dir), True)):
        held.append(
            replace_generated(
                root,
                {} if download else markdown,
                {name: data for name, data in files.items() if is_download(name) == download},
                {name for name in kept if is_download(name) == download},
                None if previous is None else (previous.downloads if download else previous.docs),
            )
        )
    unchanged = {page: entry for page, entry in recorded.items() if page in kept}
    save_manifest(store, pages, docs_dir, unchanged, recorded)
    return linked, Held(*held)


def take_held(store: Store, docs_dir: Path) -> Held | None:
    """What the last finished build left in the generated folders, or None (none saved,
    or not readable); removed from the store either way, until `save_held`."""
    data = store.read_state("held", docs_dir, take=True)
    try:
        return Held(frozenset(map(str, data["docs"])), frozenset(map(str, data["downloads"])))
    except (TypeError, KeyError):
        return None


def save_held(store: Store, docs_dir: Path, held: Held) -> None:
    """Called once nothing more is written into the generated folders (the chart files
    drawn while MkDocs ran included)."""
    store.save_state(
        "held", docs_dir, {"docs": sorted(held.docs), "downloads": sorted(held.downloads)}
    )


def _roots(docs_dir: Path) -> tuple[str, str]:
    return str(docs_dir), str(downloads_root(docs_dir))


def _located(roots: tuple[str, str], name: str) -> str:
    """Where a docs-relative page or download lies (`_roots`: docs/, `downloads_root`)."""
    return os.path.join(roots[is_download(name)], name)


def read_manifest(store: Store, docs_dir: Path) -> _Recorded:
    try:
        return {
            page: (str(key), {name: (int(s[0]), int(s[1])) for name, s in files.items()})
            for page, (key, files) in store.read_state("written", docs_dir).items()
        }
    except (ValueError, TypeError, KeyError, AttributeError, IndexError):
        return {}  # none yet, or not ours: every page goes the usual way


def set_aside_unchanged(
    pages: list[Page], docs_dir: Path, recorded: _Recorded
) -> tuple[list[Page], set[str]]:
    """The pages, without the cached files docs/ already holds as recorded, and the
    docs-relative paths of those files and of their pages' Markdown (to be left untouched:
    an entry's key stands for its page as well)."""
    kept: set[str] = set()
    out = []
    roots = _roots(docs_dir)
    for page in pages:
        files = page.files
        if isinstance(files, StoredFiles) and _as_recorded(
            recorded.get(page.path), _recorded_names(page.path, files), files.key, roots
        ):
            kept.update(files.names)
            kept.add(page.path)
            page = replace(page, files={})
        out.append(page)
    return out, kept


def _recorded_names(page: str, files: StoredFiles) -> set[str]:
    return {page, *files.names}


def _as_recorded(
    entry: tuple[str, dict[str, tuple[int, int]]] | None,
    names: set[str],
    key: str,
    roots: tuple[str, str],
) -> bool:
    if entry is None or entry[0] != key or set(entry[1]) != names:
        return False
    for name, (size, mtime_ns) in entry[1].items():
        try:
            stat = os.stat(_located(roots, name))
        except OSError:
            return False
        if stat.st_size != size or stat.st_mtime_ns != mtime_ns:
            return False
    return True


def save_manifest(
    store: Store,
    pages: list[Page],
    docs_dir: Path,
    unchanged: _Recorded | None = None,
    previous: _Recorded | None = None,
) -> None:
    """What docs/ now holds of each cached page's files (after the write). `unchanged`: the
    entries of the pages left untouched, kept as they are (not stat'ed again: 22,000 files
    at 1,000 runs); `previous`: the manifest as read, not written again when it holds."""
    recorded = {}
    roots = _roots(docs_dir)
    for page in pages:
        if not isinstance(page.files, StoredFiles):
            continue
        entry = (unchanged or {}).get(page.path)
        if entry is None:
            stats = {}
            for name in _recorded_names(page.path, page.files):
                stat = os.stat(_located(roots, name))
                stats[name] = (stat.st_size, stat.st_mtime_ns)
            entry = (page.files.key, stats)
        recorded[page.path] = entry
    if recorded != previous:
        store.save_state("written", docs_dir, recorded)
