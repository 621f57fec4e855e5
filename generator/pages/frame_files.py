"""A table's CSV and Parquet downloads, made once per content.

Encoding costs ~1.5 ms a frame, and a report of 1,000 runs has two tables on every run's
page: 3 s of every rebuild, though one more run changes a handful of them. The bytes are
kept under a key of the frame's exact content (`memo.frame_content`), this module's code
and the Polars version that writes them.
"""

from __future__ import annotations

import hashlib
import io
import json
import pickle
from pathlib import Path

import polars as pl

from generator.memo import frame_content

_CODE = Path(__file__).read_bytes()


def _flat(frame: pl.DataFrame) -> pl.DataFrame:
    """Nested columns (lists, structs) as JSON text: CSV cannot hold them."""
    nested = [c for c, t in frame.schema.items() if t.is_nested() or t == pl.Object]
    return frame.with_columns(
        pl.col(c).map_elements(
            lambda v: json.dumps(v.to_list() if isinstance(v, pl.Series) else v, default=str),
            return_dtype=pl.String,
        )
        for c in nested
    )


def frame_bytes(frame: pl.DataFrame) -> tuple[bytes, bytes]:
    """The frame as CSV and as Parquet."""
    flat = _flat(frame)
    parquet = io.BytesIO()
    flat.write_parquet(parquet)
    return flat.write_csv().encode("utf-8"), parquet.getvalue()


def frame_key(frame: pl.DataFrame) -> str:
    digest = hashlib.sha256(_CODE + pl.__version__.encode())
    digest.update(frame_content(frame))
    return digest.hexdigest()[:32]


def cached_frame_bytes(frame: pl.DataFrame, folder: Path | None) -> tuple[bytes, bytes]:
    """`frame_bytes`, from `folder` when it holds them (None: no cache)."""
    if folder is None:
        return frame_bytes(frame)
    key = frame_key(frame)
    path = folder / key[:2] / f"{key}.pickle"
    try:
        csv, parquet = pickle.loads(path.read_bytes())
        if isinstance(csv, bytes) and isinstance(parquet, bytes):
            return csv, parquet
    except Exception:  # none yet, or unreadable (a torn disk): made again
        pass
    made = frame_bytes(frame)
    # written in place: a torn entry does not unpickle, and is made again
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(made, protocol=5))
    return made
