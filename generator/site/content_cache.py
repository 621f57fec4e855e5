"""What the content-keyed caches of drawn pages share (`trace_cache.py` for profiler traces,
`page_cache.py` for kernel pages): the digest of the code and libraries that make an entry,
where an entry lives, reading one back, and computing the misses on every core."""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TypeVar

from generator.atomic import write_bytes
from generator.errors import UserError
from generator.pages.page import Page
from generator.pages.workers import cores, new_pool, shared_pool
from generator.site.stamp import LIBRARIES, library_versions

CACHE_VERSION = 3  # 3: an entry's page files apart (write_entry)
PARALLEL_FROM = 8  # fewer misses than this: a process pool's start-up costs more than it saves
_PACKAGE = Path(__file__).resolve().parents[1]
# The code a cached entry is computed by: a change to any of it is a new key.
_CODE_DIRS = ("memo", "ingest", "analysis", "findings", "catalog", "records", "charts", "pages")
_CACHES = ("content_cache.py", "trace_cache.py", "page_cache.py", "export_cache.py")
A = TypeVar("A")
R = TypeVar("R")
T = TypeVar("T")


def code_digest() -> str:
    """The code and libraries that compute and draw a cached entry: the folders above, the
    package's top-level modules (formatting.py), the caches themselves, and the versions of
    the libraries whose output a cached page holds (specs, SVG and PDF, CSV and Parquet)."""
    digest = hashlib.sha256(f"v{CACHE_VERSION}".encode())
    for folder in _CODE_DIRS:
        for path in sorted((_PACKAGE / folder).rglob("*")):
            if path.suffix in (".py", ".toml", ".j2") and "__pycache__" not in path.parts:
                digest.update(path.read_bytes())
    for path in sorted(_PACKAGE.glob("*.py")):
        digest.update(path.read_bytes())
    for name in _CACHES:
        digest.update((_PACKAGE / "site" / name).read_bytes())
    digest.update(library_versions(LIBRARIES).encode())
    return digest.hexdigest()[:16]


def entry_path(cache_dir: Path, kind: str, key: str) -> Path:
    return cache_dir / kind / key[:2] / f"{key}.pickle"


def read_pickled(path: Path) -> object | None:
    """A cache entry's object, or None when there is none or it cannot be read (a file from
    another version or a torn disk: the caller computes it again)."""
    try:
        found: object = pickle.loads(path.read_bytes())
    except Exception:
        return None
    return found


@dataclass(frozen=True, eq=False)
class StoredFiles(Mapping[str, bytes]):
    """A cached page's downloads (docs-relative path -> bytes), kept in a file of their own
    beside the entry and read only when asked for: most of an entry's size, which a rebuild
    whose docs/ already holds them never needs (site/written.py). `key`: the entry's key,
    which names these bytes."""

    key: str
    path: Path
    names: tuple[str, ...]

    @cached_property
    def _files(self) -> dict[str, bytes]:
        found = read_pickled(self.path)
        if not isinstance(found, dict):
            raise UserError(
                f"{self.path}: a cached page's files could not be read",
                fix=f"delete the folder {self.path.parent} and build again",
            )
        return found

    def __getitem__(self, name: str) -> bytes:
        return self._files[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def _files_path(path: Path) -> Path:
    return path.with_suffix(".files.pickle")


def write_entry(path: Path, item: object, page: Page) -> Page:
    """A cached (`item`, page) pair: the page's files (its downloads, made) in a file of
    their own, written first, so an entry found is an entry whole. Returns the page as a
    later `read_entry` gives it (its files `StoredFiles`, here already in memory), so the
    build that made it records it in docs/' manifest (site/written.py) as the next one
    will: else the rebuild after a cold build read and compared every cached file."""
    files = dict(page.files or {})
    write_bytes(_files_path(path), pickle.dumps(files, protocol=5))
    entry = (item, replace(page, files={}), tuple(files))
    write_bytes(path, pickle.dumps(entry, protocol=5))
    stored = StoredFiles(path.stem, _files_path(path), tuple(files))
    vars(stored)["_files"] = files  # the cached_property, filled
    return replace(page, files=stored)


def read_entry(path: Path, first: type[T]) -> tuple[T, Page] | None:
    """A cached (`first`, page) pair, its page's files read when asked for (`StoredFiles`),
    or None (see `read_pickled`)."""
    found = read_pickled(path)
    if not (isinstance(found, tuple) and len(found) == 3):
        return None
    item, page, names = found
    if not (isinstance(item, first) and isinstance(page, Page) and isinstance(names, tuple)):
        return None
    if not _files_path(path).is_file():
        return None
    return item, replace(page, files=StoredFiles(path.stem, _files_path(path), names))


def map_on_cores(function: Callable[[A], R], items: list[A]) -> list[R]:
    """`function` over `items`, in a process per core when there are enough of them that
    the processes' start-up (imports: ~1 s) pays; `function` must be picklable. Inside a
    build, the build's shared pool (pages/workers.py)."""
    workers = min(cores(), len(items))
    if len(items) < PARALLEL_FROM or workers < 2:
        return [function(item) for item in items]
    if (pool := shared_pool()) is not None:
        return list(pool.map(function, items, chunksize=4))
    with new_pool(workers) as own:
        return list(own.map(function, items, chunksize=4))
