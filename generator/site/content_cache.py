"""The store's codec for drawn pages (`trace_cache.py` for profiler traces, `page_cache.py`
for kernel pages, `run_page_cache.py` for run pages): an entry is an (item, page) pair whose
page's downloads are kept in a file of their own beside it and read only when asked for."""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Generic, TypeVar

from generator.atomic import write_bytes
from generator.errors import UserError
from generator.pages.page import Page
from generator.store import Codec

T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class StoredFiles(Mapping[str, bytes]):
    """A stored page's downloads (docs-relative path -> bytes), kept in a file of their own
    beside the entry and read only when asked for: most of an entry's size, which a rebuild
    whose docs/ already holds them never needs (site/written.py). `key`: the entry's key,
    which names these bytes."""

    key: str
    path: Path
    names: tuple[str, ...]

    @cached_property
    def _files(self) -> dict[str, bytes]:
        try:
            found = pickle.loads(self.path.read_bytes())
        except Exception:
            found = None
        if not isinstance(found, dict):
            raise UserError(
                f"{self.path}: a stored page's files could not be read",
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


class PageEntry(Codec[tuple[T, Page]], Generic[T]):
    """An (item, page) pair whose item is a `first`. Written: the page's files (its
    downloads, made) in a file of their own, first, so an entry found is an entry whole.
    Read (and returned by `write`, so the build that made it records it in docs/' manifest,
    site/written.py, as the next one will: else the rebuild after a cold build read and
    compared every stored file): the page's files as `StoredFiles`."""

    def __init__(self, first: type[T]) -> None:
        self.first = first

    def write(self, path: Path, value: tuple[T, Page]) -> tuple[T, Page]:
        item, page = value
        files = dict(page.files or {})
        write_bytes(_files_path(path), pickle.dumps(files, protocol=5))
        entry = (item, replace(page, files={}), tuple(files))
        write_bytes(path, pickle.dumps(entry, protocol=5))
        stored = StoredFiles(path.stem, _files_path(path), tuple(files))
        vars(stored)["_files"] = files  # the cached_property, filled
        return item, replace(page, files=stored)

    def read(self, path: Path) -> tuple[T, Page]:
        item, page, names = pickle.loads(path.read_bytes())
        if not (isinstance(item, self.first) and isinstance(page, Page)):
            raise TypeError(f"{path}: not a stored ({self.first.__name__}, page) pair")
        if not (isinstance(names, tuple) and _files_path(path).is_file()):
            raise FileNotFoundError(_files_path(path))
        return item, replace(page, files=StoredFiles(path.stem, _files_path(path), names))
