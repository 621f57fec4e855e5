"""Files' content digests, computed once per content.

Every build keys its caches by the digests of its inputs (the input fingerprint, the parse
and trace caches): at 1,000 runs that is ~370 MB read and hashed, twice, ~1.8 s of a
rebuild that changes one run. A digest is remembered under the file's device, inode, size,
and modification and change times (ctime moves on every write and no tool can set it back),
in this process and, between builds, as one JSON entry of the build's store (kind
`digests`: `recall_digests` reads it, `keep_digests` writes it). As git
does with its index, a file changed less than `RACY_NS` before the digest was taken is not
remembered across builds: a second write in the same clock tick would keep every time.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from generator.store import Store, Text

CHUNK = 8 * 1024 * 1024
RACY_NS = 2_000_000_000
KIND = "digests"
TABLE = Text("digests.json")  # the one entry of its kind: every file's digest by its stat
_Key = tuple[int, int, int, int, int]
_memo: dict[_Key, str] = {}  # the digests this process used
_recalled: dict[_Key, str] = {}  # the digests earlier builds used (`recall_digests`)
_recalled_from: set[Path] = set()  # the stores they were read from


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
        _memo[key] = _recalled.get(key) or _digest(path)
    return _memo[key]


def recall_digests(store: Store) -> None:
    """Take the digests earlier builds kept in `store` as known (an entry missing or
    unreadable: none known); a store read already is not read again."""
    if store.folder is None or store.folder in _recalled_from:
        return
    _recalled_from.add(store.folder)
    text = store.read(KIND, store.key(KIND, []), TABLE)
    try:
        document = json.loads(text or "{}")
        entries = {tuple(entry[:5]): entry[5] for entry in document.get("files", [])}
    except (ValueError, TypeError, IndexError, AttributeError):
        entries = {}
    _recalled.update(entries)


def keep_digests(store: Store) -> None:
    """Keep the digests this process used in `store`, but for files changed too recently
    to trust."""
    settled = time.time_ns() - RACY_NS
    files = [[*key, digest] for key, digest in _memo.items() if key[4] < settled]
    store.write(KIND, store.key(KIND, []), json.dumps({"files": files}), TABLE)
