"""Input digests remembered between builds (ingest/digests.py): read back only for a file
whose size, inode and times are those it had, never for one changed since or too recently."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from generator.ingest import digests


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def _new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digests, "_memo", {})
    monkeypatch.setattr(digests, "_store", digests._Store())


def test_a_digest_is_remembered_until_the_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(digests, "RACY_NS", 0)  # the file below was just written
    _new_process(monkeypatch)
    data = tmp_path / "trace.json"
    data.write_bytes(b"one")
    cache = tmp_path / "cache"
    digests.use_store(cache)
    assert digests.file_digest(data) == _sha(b"one")
    digests.save_store()
    # the next build reads it back: the store's digest is used, not the file's bytes
    (entry,) = json.loads((cache / digests.STORE).read_text())["files"]
    entry[5] = "remembered"
    (cache / digests.STORE).write_text(
        json.dumps({"version": digests.STORE_VERSION, "files": [entry]})
    )
    _new_process(monkeypatch)
    digests.use_store(cache)
    assert digests.file_digest(data) == "remembered"
    # a write moves the change time, even when size and modification time are put back
    before = data.stat()
    data.write_bytes(b"two")
    os.utime(data, ns=(before.st_atime_ns, before.st_mtime_ns))
    _new_process(monkeypatch)
    digests.use_store(cache)
    assert digests.file_digest(data) == _sha(b"two")


def test_a_file_changed_just_now_is_not_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _new_process(monkeypatch)
    data = tmp_path / "trace.json"
    data.write_bytes(b"one")
    digests.use_store(tmp_path)
    digests.file_digest(data)
    digests.save_store()  # within RACY_NS of the write: left out
    assert json.loads((tmp_path / digests.STORE).read_text())["files"] == []


def test_an_unreadable_store_is_an_empty_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _new_process(monkeypatch)
    (tmp_path / digests.STORE).write_text("{torn")
    data = tmp_path / "trace.json"
    data.write_bytes(b"one")
    digests.use_store(tmp_path)
    assert digests.file_digest(data) == _sha(b"one")
