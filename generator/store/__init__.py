"""The build's one content-keyed store: what was computed once, kept under the content it
was computed from.

`Store(folder, code).get_or_make(kind, key, make)` returns what `make()` returns, read back
when an earlier build made it for an equal key. An entry's address is the digest of its
kind, the kind's version (`KINDS`, the one table of versions), `code` (the digest of the
code that computes entries, for the kinds keyed by it) and the key's parts, so a changed
input, a changed version or changed code is a new entry and never a stale one. Entries
live under `folder/KIND/` (`.cache/roofline-atlas/` by default); deleting the folder, or
one kind's folder, clears them. Every write is atomic (a temporary file or folder, then a
rename); an entry that cannot be read back (a torn disk, another version's pickle) is made
again, never an error. A kind is written by its codec: a pickle by default, Parquet frames
for parsed exports, text for the executed notebook.

Besides entries, the store keeps a build's *state* about a folder it writes (what docs/ or
site/ holds after a build: `read_state`, `save_state`), one versioned JSON file per kind and
folder, since a cache folder may serve several.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from generator.atomic import write_bytes, write_text

if TYPE_CHECKING:  # Polars on use: `site` on an unchanged report answers without it
    import polars as pl

T = TypeVar("T")
KeyPart = str | int | float | bytes | None
Key = Sequence[KeyPart]


@dataclass(frozen=True)
class Kind:
    """One kind of entry: its version (raise it when what an entry holds changes without
    its code changing) and whether the code digest is part of its key."""

    version: int
    by_code: bool = True
    in_memory: bool = False  # also kept in this process once read (many small entries)


# Every kind of entry, in one place. The pages' and traces' entries are keyed by the code
# digest: any change to the code that draws them is a new key.
KINDS: dict[str, Kind] = {
    "memo": Kind(2, in_memory=True),  # generator/memo: a pure function's result
    "checked": Kind(2),  # site/export_cache: an ncu export's checks
    "traces": Kind(4),  # site/trace_cache: a profiler trace's view and page
    "pages": Kind(4),  # site/page_cache: an export's kernel pages
    "runs": Kind(4),  # site/run_page_cache: a run's page
    "ncu": Kind(2, by_code=False),  # ingest/cache: a parsed export (its parser's versions)
    "notebook": Kind(2, by_code=False),  # site/notebook: the executed Explore notebook
    "digests": Kind(3, by_code=False),  # ingest/digests: the inputs' digests by their stat
    "templates": Kind(1, by_code=False),  # pages/template_cache: compiled Jinja templates
    "charts": Kind(1, by_code=False),  # pages/chart_render: a chart's SVG and PDF
    "frames": Kind(1, by_code=False),  # pages/frame_files: a table's CSV and Parquet
    "steps": Kind(1, by_code=False),  # ingest/steps: the current runs' parsed steps.csv
    # state about a folder (`read_state`), not entries:
    "site": Kind(2, by_code=False),  # site/own_pages: what site/ holds
    "written": Kind(4, by_code=False),  # site/written: docs/' cached pages' files by stat
    "held": Kind(2, by_code=False),  # site/written: every file the generated folders hold
}


class Codec(Generic[T]):
    """How an entry of one kind is written and read: `where` it lies (from its base path,
    the folder and key), `write` (atomically), `read` (raises on anything unreadable)."""

    def where(self, base: Path) -> Path:
        return base.with_suffix(".pickle")

    def write(self, path: Path, value: T) -> T:
        """Store `value`; returns it as a later `read` gives it."""
        raise NotImplementedError

    def read(self, path: Path) -> T:
        raise NotImplementedError


class Pickled(Codec[T]):
    """A pickle whose object must be a `type_` (else: another version's, made again)."""

    def __init__(self, type_: type[T]) -> None:
        self.type_ = type_

    def write(self, path: Path, value: T) -> T:
        write_bytes(path, pickle.dumps(value, protocol=5))
        return value

    def read(self, path: Path) -> T:
        found = pickle.loads(path.read_bytes())
        if not isinstance(found, self.type_):
            raise TypeError(f"{path}: a {type(found).__name__}, not a {self.type_.__name__}")
        return found


class Text(Codec[str]):
    """Text in a file called `name` in the entry's own folder (a notebook must keep its
    name: the plugin that renders it matches its include pattern on the file's name)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def where(self, base: Path) -> Path:
        return base / self.name

    def write(self, path: Path, value: str) -> str:
        write_text(path, value)
        return value

    def read(self, path: Path) -> str:
        return path.read_text(encoding="utf-8")


@dataclass(frozen=True)
class Frames:
    """Named frames and a JSON document beside them."""

    frames: dict[str, pl.DataFrame]
    meta: dict[str, Any]


class FramesCodec(Codec[Frames]):
    """A folder of Parquet files and meta.json, written in a staging folder and renamed
    into place whole."""

    def where(self, base: Path) -> Path:
        return base

    def write(self, path: Path, value: Frames) -> Frames:
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=path.parent, prefix=".staging-"))
        try:
            for name, frame in value.frames.items():
                frame.write_parquet(staging / f"{name}.parquet")
            (staging / "meta.json").write_text(json.dumps(value.meta), encoding="utf-8")
            shutil.rmtree(path, ignore_errors=True)  # an unreadable entry: replaced
            os.replace(staging, path)
        except OSError:
            pass  # another build stored it first, or the folder is read-only: not an error
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return value

    def read(self, path: Path) -> Frames:
        import polars as pl

        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        frames = {file.stem: pl.read_parquet(file) for file in sorted(path.glob("*.parquet"))}
        return Frames(frames, meta)


PICKLE: Pickled[Any] = Pickled(object)
_MISSING = object()  # no entry (a result may be None)
FRAMES = FramesCodec()


def key_digest(*parts: KeyPart) -> str:
    """32 hex digits of the parts' SHA-256, each part tagged by its type and length (so
    ("ab", "c") and ("a", "bc"), 1 and "1" are apart)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else repr(part).encode()
        digest.update(f"{type(part).__name__}:{len(data)}:".encode() + data)
    return digest.hexdigest()[:32]


@dataclass
class Store:
    """The entries under `folder` (None: nothing is kept, every `make` is called), keyed
    also by `code`, the digest of the code that computes them. Picklable: a worker process
    given the store reads and writes the same entries."""

    folder: Path | None
    code: str = ""
    _memory: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {"folder": self.folder, "code": self.code, "_memory": {}}

    def key(self, kind: str, key: Key) -> str:
        """The entry's address: the kind, its version, the code digest when the kind is
        keyed by it, and the key's parts."""
        spec = KINDS[kind]  # an unknown kind is a programming error: KeyError
        return key_digest(kind, spec.version, self.code if spec.by_code else None, *key)

    def path(self, kind: str, digest: str, codec: Codec[Any] = PICKLE) -> Path:
        """Where the entry of address `digest` lies (a file or a folder, by its codec)."""
        assert self.folder is not None, "a store without a folder keeps nothing"
        return codec.where(self.folder / kind / digest[:2] / digest)

    def has(self, kind: str, digest: str, codec: Codec[Any] = PICKLE) -> bool:
        return self.folder is not None and self.path(kind, digest, codec).exists()

    def read(self, kind: str, digest: str, codec: Codec[T]) -> T | None:
        """The entry, or None when there is none or it cannot be read."""
        found = self._lookup(kind, digest, codec)
        return None if found is _MISSING else cast(T, found)

    def _lookup(self, kind: str, digest: str, codec: Codec[Any]) -> Any:
        if self.folder is None:
            return _MISSING
        if digest in self._memory:
            return self._memory[digest]
        try:
            found = codec.read(self.path(kind, digest, codec))
        except Exception:  # none yet, a torn write, another version's: made again
            return _MISSING
        if KINDS[kind].in_memory:
            self._memory[digest] = found
        return found

    def write(self, kind: str, digest: str, value: T, codec: Codec[T]) -> T:
        if self.folder is not None:
            value = codec.write(self.path(kind, digest, codec), value)
            if KINDS[kind].in_memory:
                self._memory[digest] = value
        return value

    def get_or_make(
        self, kind: str, key: Key, make: Callable[[], T], codec: Codec[Any] = PICKLE
    ) -> T:
        """`make()`, or what it made for an equal key before (see the module's text)."""
        digest = self.key(kind, key)
        found = self._lookup(kind, digest, codec)
        if found is not _MISSING:
            return cast(T, found)
        made: T = make()
        return cast(T, self.write(kind, digest, made, codec))

    def get_or_make_all(
        self,
        kind: str,
        digests: Sequence[str],
        make: Callable[[list[int]], list[T]],
        codec: Codec[Any] = PICKLE,
    ) -> list[T]:
        """The entries at `digests` (addresses from `key`), the missing ones made together
        by `make(their indices)` (in a process per core, say) and stored."""
        found = [self._lookup(kind, digest, codec) for digest in digests]
        missing = [index for index, item in enumerate(found) if item is _MISSING]
        for index, made in zip(missing, make(missing), strict=True):
            found[index] = self.write(kind, digests[index], made, codec)
        return cast(list[T], found)

    def _state_path(self, kind: str, folder: Path) -> Path:
        assert self.folder is not None
        name = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:16]
        return self.folder / kind / f"{name}.json"

    def read_state(self, kind: str, folder: Path, take: bool = False) -> Any:
        """The JSON last saved about `folder` in this kind's version, or None (none saved,
        unreadable, another version's). `take`: removed either way, until `save_state`: a
        record of what a folder holds is taken before the folder changes, so a build cut
        short leaves none and the next one looks at the folder itself."""
        if self.folder is None:
            return None
        path, version = self._state_path(kind, folder), KINDS[kind].version  # unknown: KeyError
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
            found = saved["data"] if saved["version"] == version else None
        except (OSError, ValueError, TypeError, KeyError):
            found = None
        if take:
            self.drop_state(kind, folder)
        return found

    def drop_state(self, kind: str, folder: Path) -> None:
        """Remove what was saved about `folder` (see `read_state`'s `take`)."""
        if self.folder is not None:
            self._state_path(kind, folder).unlink(missing_ok=True)

    def save_state(self, kind: str, folder: Path, data: Any) -> None:
        if self.folder is not None:
            saved = {"version": KINDS[kind].version, "data": data}
            write_text(self._state_path(kind, folder), json.dumps(saved, separators=(",", ":")))


# The store of the build running in this thread: what the pure functions deep in the
# analysis and the pages (generator/memo's `remembered`, the page templates' compiled
# code) keep their results in, without the store passed through every call between the
# stage and them. Set for the length of a build only (`storing_in`, site/build.py).
_ACTIVE: ContextVar[Store | None] = ContextVar("active_store", default=None)


@contextmanager
def storing_in(store: Store) -> Iterator[Store]:
    """Make `store` the active one inside the block; the one before it after."""
    token = _ACTIVE.set(store)
    try:
        yield store
    finally:
        _ACTIVE.reset(token)


def active_store() -> Store | None:
    """The store of the build running here (`storing_in`), or None outside a build."""
    return _ACTIVE.get()
