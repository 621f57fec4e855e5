"""Each measured run's timed steps (its steps.csv), parsed once per content.

A rebuild reads every ok run's steps.csv: at 1,000 runs, 0.95 s of CSV parsing on the 2-core
VM after one run was added, against 0.03 s to unpickle the same frames from one file. So the
parsed frames are kept in one store in the cache folder, keyed by each file's content digest
(stat-remembered, `digests.py`) and by this module's code: a changed parser is a new store,
never a stale frame. The store holds the current runs' frames only, and is written (atomically)
only when something was parsed or dropped.
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

import polars as pl

from generator.atomic import write_bytes
from generator.errors import UserError
from generator.ingest.digests import file_digest

STEPS_FILE = "steps.csv"
STORE = "steps.pickle"  # in the cache folder
_CODE = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


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


def _stored(path: Path) -> dict[str, pl.DataFrame]:
    """The store's frames by content digest; none when it is missing, unreadable (a torn
    disk) or written by other code."""
    try:
        code, frames = pickle.loads(path.read_bytes())
    except Exception:
        return {}
    return frames if code == _CODE and isinstance(frames, dict) else {}


def cached_steps(folders: dict[str, Path], cache_dir: Path | None) -> dict[str, pl.DataFrame]:
    """Each run's steps (`read_steps`), by run id, through the store in `cache_dir` (None:
    parse every file)."""
    if cache_dir is None:
        return {run: read_steps(folder) for run, folder in folders.items()}
    store = cache_dir / STORE
    stored = _stored(store)
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
        write_bytes(store, pickle.dumps((_CODE, kept), protocol=5))
    return found
