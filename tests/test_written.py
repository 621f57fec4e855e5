"""Cached pages' files left untouched in docs/ when their entry is the one written before
(site/written.py), and read from the cache only when they must be written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.pages.page import Page
from generator.site.content_cache import PageEntry, StoredFiles
from generator.site.written import (
    read_manifest,
    set_aside_unchanged,
    write_docs,
)
from generator.store import Store

ENTRY: PageEntry[dict[str, str]] = PageEntry(dict)
CSV = "measurements/data/traces-run-a/ops.csv"
PAGE = "measurements/traces/run-a.md"


def _cached(tmp_path: Path, key: str, content: bytes) -> Page:
    entry = tmp_path / "cache" / "traces" / f"{key}.pickle"
    page = Page(PAGE, "a", "# a\n", files={CSV: content})
    ENTRY.write(entry, ({"view": key}, page))
    found = ENTRY.read(entry)
    assert isinstance(found[1].files, StoredFiles)
    return found[1]


def _write(tmp_path: Path, pages: list[Page]) -> set[str]:
    """write_docs, and the cached files it left untouched."""
    docs, cache = tmp_path / "docs", tmp_path / "cache"
    kept = set_aside_unchanged(pages, docs, read_manifest(Store(cache), docs))[1]
    write_docs(pages, docs, Store(cache), drawn={})
    return kept


def _loaded(page: Page) -> bool:
    return "_files" in vars(page.files)  # StoredFiles read its pickle


def test_a_page_written_before_is_neither_read_nor_compared(tmp_path: Path) -> None:
    assert _write(tmp_path, [_cached(tmp_path, "k1", b"op,time\n")]) == set()
    assert (tmp_path / "docs-downloads" / CSV).read_bytes() == b"op,time\n"
    again = _cached(tmp_path, "k1", b"op,time\n")
    assert _write(tmp_path, [again]) == {CSV, PAGE}
    assert not _loaded(again)
    assert (tmp_path / "docs-downloads" / CSV).read_bytes() == b"op,time\n"  # kept, not removed
    assert (tmp_path / "docs" / PAGE).read_text() == "# a\n"


def test_an_edited_page_is_written_again(tmp_path: Path) -> None:
    _write(tmp_path, [_cached(tmp_path, "k1", b"op,time\n")])
    page = tmp_path / "docs" / PAGE
    page.write_text("# edited, longer\n")
    assert _write(tmp_path, [_cached(tmp_path, "k1", b"op,time\n")]) == set()
    assert page.read_text() == "# a\n"
    assert _write(tmp_path, [_cached(tmp_path, "k1", b"op,time\n")]) == {CSV, PAGE}


def test_another_entry_or_a_changed_file_is_written_again(tmp_path: Path) -> None:
    _write(tmp_path, [_cached(tmp_path, "k1", b"op,time\n")])
    other = _cached(tmp_path, "k2", b"op,time,flops\n")  # the trace changed
    assert _write(tmp_path, [other]) == set()
    assert _loaded(other)
    assert (tmp_path / "docs-downloads" / CSV).read_bytes() == b"op,time,flops\n"
    # docs/ edited behind the build's back: its size or time no longer as recorded
    path = tmp_path / "docs-downloads" / CSV
    path.write_bytes(b"edited\n")
    assert _write(tmp_path, [_cached(tmp_path, "k2", b"op,time,flops\n")]) == set()
    assert path.read_bytes() == b"op,time,flops\n"
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))  # same size, touched
    assert _write(tmp_path, [_cached(tmp_path, "k2", b"op,time,flops\n")]) == set()
    path.unlink()  # gone
    assert _write(tmp_path, [_cached(tmp_path, "k2", b"op,time,flops\n")]) == set()
    assert path.read_bytes() == b"op,time,flops\n"


def test_an_unreadable_manifest_means_every_page_is_written(tmp_path: Path) -> None:
    _write(tmp_path, [_cached(tmp_path, "k1", b"x\n")])
    store, docs = Store(tmp_path / "cache"), tmp_path / "docs"
    (manifest,) = (tmp_path / "cache" / "written").glob("*.json")
    for text in ("{", '{"version": 4, "data": {"p": 3}}', '{"version": 0, "data": {}}'):
        manifest.write_text(text, encoding="utf-8")
        assert read_manifest(store, docs) == {}
        assert _write(tmp_path, [_cached(tmp_path, "k1", b"x\n")]) == set()


def test_an_entry_without_its_files_is_not_found(tmp_path: Path) -> None:
    page = _cached(tmp_path, "k1", b"x\n")
    assert isinstance(page.files, StoredFiles)
    page.files.path.unlink()
    with pytest.raises(FileNotFoundError):  # the store makes it again (generator/store)
        ENTRY.read(tmp_path / "cache" / "traces" / "k1.pickle")


def test_a_page_just_made_is_recorded_as_one_read_back(tmp_path: Path) -> None:
    # A cold build makes its pages and stores them; the rebuild after it must find their
    # files recorded, not read and compare every one.
    entry = tmp_path / "cache" / "traces" / "k1.pickle"
    _, made = ENTRY.write(entry, ({"view": "k1"}, Page(PAGE, "a", "# a\n", files={CSV: b"x\n"})))
    assert isinstance(made.files, StoredFiles) and _loaded(made)  # not read back from disk
    assert made.files.key == "k1" and dict(made.files) == {CSV: b"x\n"}
    assert _write(tmp_path, [made]) == set()
    again = _cached(tmp_path, "k1", b"x\n")
    assert _write(tmp_path, [again]) == {CSV, PAGE}
    assert not _loaded(again)
