"""Parsed exports cached as Parquet, keyed by the file's content hash and the parser
version: a report rebuild parses nothing that did not change, and a multi-gigabyte export
is parsed once. A build that finds an export's parse cached reads its frames only when it needs
them (`parsed_export`): a rebuild's checks of unchanged exports come from their own cache."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

import polars as pl

from generator.ingest.digests import file_digest
from generator.ingest.metric_map import METRIC_COLUMNS
from generator.ingest.ncu_csv import PARSER_VERSION, NcuExport, read_ncu_csv

# A parsed export has one column per metric-map entry: a changed map is a new cache key.
MAP_DIGEST = hashlib.sha256(repr(METRIC_COLUMNS).encode()).hexdigest()[:8]
DEFAULT_CACHE = Path(".cache") / "roofline-atlas"  # beside measurements/, git-ignored


@dataclass(frozen=True)
class ParsedExport:
    """An export whose parse is in the cache: its content key now, its frames on first use.
    Reading every cached parse was most of the load stage of a rebuild after one more run
    at 1,000 runs, whose checks (site/export_cache.py) needed none of them: load took
    0.74 s before, 0.48 s after (medians of six paired rebuilds)."""

    path: Path
    cache_root: Path
    content_key: str

    @cached_property
    def export(self) -> NcuExport:
        # a cache emptied since the key was taken: parsed again (cached_read)
        return cached_read(self.path, self.cache_root)


def _folder(path: Path, cache_root: Path) -> Path:
    return cache_root / "ncu" / f"{file_digest(path)}-p{PARSER_VERSION}-m{MAP_DIGEST}"


def parsed_export(path: Path, cache_root: Path) -> ParsedExport | NcuExport:
    """The export's cached parse, its frames read when asked for, or, when it is not cached,
    the export parsed now (so that a bad file fails the build's load, not a later stage)."""
    folder = _folder(path, cache_root)
    if (folder / "meta.json").is_file():
        return ParsedExport(path, cache_root, folder.name)
    return cached_read(path, cache_root)


def cached_read(path: Path, cache_root: Path, memory_budget: int | None = None) -> NcuExport:
    """read_ncu_csv through the cache; errors are never cached (a bad file is re-read)."""
    folder = _folder(path, cache_root)
    meta_path = folder / "meta.json"
    try:
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
    except FileNotFoundError:
        pass  # not cached
    except (OSError, ValueError, KeyError, pl.exceptions.PolarsError):
        shutil.rmtree(folder, ignore_errors=True)  # a torn or foreign entry: parsed again
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
