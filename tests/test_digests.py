"""Input digests remembered between builds (ingest/digests.py): read back only for a file
whose size, inode and times are those it had, never for one changed since or too recently."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from generator.ingest import digests
from generator.store import Store


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def _new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digests, "_memo", {})
    monkeypatch.setattr(digests, "_recalled", {})
    monkeypatch.setattr(digests, "_recalled_from", set())


def _table(store: Store) -> Path:
    return store.path(digests.KIND, store.key(digests.KIND, []), digests.TABLE)


def test_a_digest_is_remembered_until_the_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(digests, "RACY_NS", 0)  # the file below was just written
    _new_process(monkeypatch)
    data = tmp_path / "trace.json"
    data.write_bytes(b"one")
    store = Store(tmp_path / "cache")
    digests.recall_digests(store)
    assert digests.file_digest(data) == _sha(b"one")
    digests.keep_digests(store)
    # the next build reads it back: the store's digest is used, not the file's bytes
    (entry,) = json.loads(_table(store).read_text())["files"]
    entry[5] = "remembered"
    _table(store).write_text(json.dumps({"files": [entry]}))
    _new_process(monkeypatch)
    digests.recall_digests(store)
    assert digests.file_digest(data) == "remembered"
    # a write moves the change time, even when size and modification time are put back
    before = data.stat()
    data.write_bytes(b"two")
    os.utime(data, ns=(before.st_atime_ns, before.st_mtime_ns))
    _new_process(monkeypatch)
    digests.recall_digests(store)
    assert digests.file_digest(data) == _sha(b"two")


def test_a_file_changed_just_now_is_not_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _new_process(monkeypatch)
    data = tmp_path / "trace.json"
    data.write_bytes(b"one")
    store = Store(tmp_path)
    digests.recall_digests(store)
    digests.file_digest(data)
    digests.keep_digests(store)  # within RACY_NS of the write: left out
    assert json.loads(_table(store).read_text())["files"] == []


def test_an_unreadable_store_is_an_empty_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _new_process(monkeypatch)
    store = Store(tmp_path)
    _table(store).parent.mkdir(parents=True)
    _table(store).write_text("{torn")
    data = tmp_path / "trace.json"
    data.write_bytes(b"one")
    digests.recall_digests(store)
    assert digests.file_digest(data) == _sha(b"one")
    _table(store).write_text('{"files": [[1, 2]]}')  # entries of another shape
    _new_process(monkeypatch)
    digests.recall_digests(store)
    assert digests.file_digest(data) == _sha(b"one")
