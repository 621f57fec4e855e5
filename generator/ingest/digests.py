"""Files' content digests, computed once per content.

Every build keys its caches by the digests of its inputs (the input fingerprint, the parse
and trace caches): at 1,000 runs that is ~370 MB read and hashed, twice, ~1.8 s of a
rebuild that changes one run. A digest is remembered under the file's device, inode, size,
and modification and change times (ctime moves on every write and no tool can set it back),
in this process and, between builds, in a small JSON store in the cache folder. As git
does with its index, a file changed less than `RACY_NS` before the digest was taken is not
remembered across builds: a second write in the same clock tick would keep every time.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from generator.atomic import write_text

CHUNK = 8 * 1024 * 1024
RACY_NS = 2_000_000_000
STORE_VERSION = 2
STORE = "digests.json"  # in the cache folder
_Key = tuple[int, int, int, int, int]
_memo: dict[_Key, str] = {}


@dataclass
class _Store:
    """The store this process reads from and saves to, and what it held when read."""

    path: Path | None = None
    remembered: dict[_Key, str] = field(default_factory=dict)


_store = _Store()


def _key(path: Path) -> _Key:
    """Where the bytes are (device and inode: a file's name says nothing of its content,
    and resolving it costs a stat per folder) and the times any write moves."""
    stat = os.stat(path)
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()[:32]


def file_digest(path: Path) -> str:
    """The file's content digest (32 hex digits of its SHA-256)."""
    key = _key(path)
    if key not in _memo:
        _memo[key] = _store.remembered.get(key) or _digest(path)
    return _memo[key]


def use_store(cache_dir: Path) -> None:
    """Read the digests remembered by earlier builds from the cache folder's store (a
    missing or unreadable store is an empty one; one already in use is not read again), and
    remember this process's there on `save_store`."""
    path = cache_dir / STORE
    if _store.path == path:
        return
    remembered: dict[_Key, str] = {}
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        if document.get("version") == STORE_VERSION:
            remembered = {tuple(entry[:5]): entry[5] for entry in document["files"]}
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        pass
    _store.path, _store.remembered = path, remembered


def save_store() -> None:
    """The digests this process used, but for files changed too recently to trust."""
    if _store.path is None:
        return
    settled = time.time_ns() - RACY_NS
    files = [[*key, digest] for key, digest in _memo.items() if key[4] < settled]
    write_text(_store.path, json.dumps({"version": STORE_VERSION, "files": files}))
