"""Each measured run's timed steps (its steps.csv), parsed once per content.

A rebuild reads every ok run's steps.csv: at 1,000 runs, 0.95 s of CSV parsing on the 2-core
VM after one run was added, against 0.03 s to unpickle the same frames from one file. So the
parsed frames are kept in one entry of the build's store (kind `steps`), by each file's content
digest (stat-remembered, `digests.py`); the entry's key is this module's code: a changed parser
is a new entry, never a stale frame. The entry holds the current runs' frames only, and is
written (atomically) only when something was parsed or dropped.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl

from generator.errors import UserError
from generator.ingest.digests import file_digest
from generator.store import Pickled, Store

STEPS_FILE = "steps.csv"
KIND = "steps"
_CODE = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
_FRAMES: Pickled[dict[str, pl.DataFrame]] = Pickled(dict)  # content digest -> frame


def read_steps(folder: Path) -> pl.DataFrame:
    """A run folder's timed iterations (steps.csv rows that have a step time)."""
    path = folder / STEPS_FILE
    if not path.is_file():
        raise UserError(
            "run folder without steps.csv (its run.json says ok)",
            file=folder,
            fix="measure it again (`nox -s measure -- --force`) or delete the folder",
        )
    return pl.read_csv(path).filter(pl.col("step_s").is_not_null())


def _address(store: Store) -> str:
    """The one entry of the current runs' frames, by this module's code."""
    return store.key(KIND, ["the current runs' frames", _CODE])


def stored_path(store: Store) -> Path:
    """Where the store keeps the current runs' frames."""
    return store.path(KIND, _address(store), _FRAMES)


def cached_steps(folders: dict[str, Path], store: Store | None) -> dict[str, pl.DataFrame]:
    """Each run's steps (`read_steps`), by run id, through the store (None: parse every
    file)."""
    if store is None or store.folder is None:
        return {run: read_steps(folder) for run, folder in folders.items()}
    address = _address(store)
    stored = store.read(KIND, address, _FRAMES) or {}
    kept: dict[str, pl.DataFrame] = {}
    found = {}
    for run, folder in folders.items():
        path = folder / STEPS_FILE
        key = file_digest(path) if path.is_file() else ""
        frame = stored.get(key) if key else None
        if frame is None:
            frame = read_steps(folder)  # a missing file raises here
        kept[key] = found[run] = frame
    if kept.keys() != stored.keys():
        store.write(KIND, address, kept, _FRAMES)
    return found
