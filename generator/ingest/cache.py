"""Parsed exports cached as Parquet, keyed by the file's content hash and the parser
version: a report rebuild parses nothing that did not change, and a multi-gigabyte export
is parsed once."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

import polars as pl

from generator.ingest.digests import file_digest
from generator.ingest.metric_map import METRIC_COLUMNS
from generator.ingest.ncu_csv import PARSER_VERSION, NcuExport, read_ncu_csv

# A parsed export has one column per metric-map entry: a changed map is a new cache key.
MAP_DIGEST = hashlib.sha256(repr(METRIC_COLUMNS).encode()).hexdigest()[:8]
DEFAULT_CACHE = Path(".cache") / "roofline-atlas"  # beside measurements/, git-ignored


def cached_read(path: Path, cache_root: Path, memory_budget: int | None = None) -> NcuExport:
    """read_ncu_csv through the cache; errors are never cached (a bad file is re-read)."""
    folder = cache_root / "ncu" / f"{file_digest(path)}-p{PARSER_VERSION}-m{MAP_DIGEST}"
    meta_path = folder / "meta.json"
    if meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        return NcuExport(
            path=path,
            layout=meta["layout"],
            kernels=pl.read_parquet(folder / "kernels.parquet"),
            metrics=pl.read_parquet(folder / "metrics.parquet"),
            preamble_lines=meta["preamble_lines"],
            notes=tuple(meta.get("notes", ())),
            content_key=folder.name,
        )
    export = replace(read_ncu_csv(path, memory_budget), content_key=folder.name)
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".staging-"))
    try:
        export.kernels.write_parquet(staging / "kernels.parquet")
        export.metrics.write_parquet(staging / "metrics.parquet")
        (staging / "meta.json").write_text(
            json.dumps(
                {
                    "layout": export.layout,
                    "preamble_lines": export.preamble_lines,
                    "notes": list(export.notes),
                }
            )
        )
        os.replace(staging, folder)
    except OSError:
        pass  # another build cached it first, or the cache is read-only: not an error
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return export
