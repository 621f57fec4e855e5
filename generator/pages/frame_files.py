"""A table's CSV and Parquet downloads, made once per content.

Encoding costs ~1.5 ms a frame, and a report of 1,000 runs has two tables on every run's
page: 3 s of every rebuild, though one more run changes a handful of them. The bytes are
kept in the store (kind `frames`) under a key of the frame's exact content
(`memo.frame_content`), this module's code and the Polars version that writes them.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import polars as pl

from generator.memo import frame_content
from generator.store import Pickled, Store

_CODE = Path(__file__).read_bytes()
KIND = "frames"  # the store's kind (generator/store)
_PAIR = Pickled(tuple)  # (CSV, Parquet)


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


def cached_frame_bytes(frame: pl.DataFrame, store: Store | None) -> tuple[bytes, bytes]:
    """`frame_bytes`, from the store's `frames` entry when it holds them (None: no cache)."""
    if store is None:
        return frame_bytes(frame)
    return store.get_or_make(KIND, [frame_key(frame)], lambda: frame_bytes(frame), _PAIR)
