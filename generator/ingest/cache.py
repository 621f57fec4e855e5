"""Parsed exports kept in the store (kind `ncu`, as Parquet frames), keyed by the file's
content digest and the parser's and metric map's versions: a report rebuild parses nothing
that did not change, and a multi-gigabyte export is parsed once. A build that finds an
export's parse stored reads its frames only when it needs them (`parsed_export`): a
rebuild's checks of unchanged exports come from their own entries."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from generator.ingest.digests import file_digest
from generator.ingest.metric_map import METRIC_COLUMNS
from generator.ingest.ncu_csv import PARSER_VERSION, NcuExport, read_ncu_csv
from generator.store import FRAMES, Frames, Store

# A parsed export has one column per metric-map entry: a changed map is a new key.
MAP_DIGEST = hashlib.sha256(repr(METRIC_COLUMNS).encode()).hexdigest()[:8]
DEFAULT_CACHE = Path(".cache") / "roofline-atlas"  # beside measurements/, git-ignored
KIND = "ncu"


@dataclass(frozen=True)
class ParsedExport:
    """An export whose parse is in the store: its content key now, its frames on first use.
    Reading every stored parse was most of the load stage of a rebuild after one more run
    at 1,000 runs, whose checks (site/export_cache.py) needed none of them: load took
    0.74 s before, 0.48 s after (medians of six paired rebuilds)."""

    path: Path
    store: Store
    content_key: str

    @cached_property
    def export(self) -> NcuExport:
        # a store emptied since the key was taken: parsed again (cached_read)
        return cached_read(self.path, self.store)


def _key(path: Path, store: Store) -> str:
    return store.key(KIND, [file_digest(path), PARSER_VERSION, MAP_DIGEST])


def parsed_export(path: Path, store: Store) -> ParsedExport | NcuExport:
    """The export's stored parse, its frames read when asked for, or, when it is not stored,
    the export parsed now (so that a bad file fails the build's load, not a later stage)."""
    key = _key(path, store)
    if store.has(KIND, key, FRAMES):
        return ParsedExport(path, store, key)
    return cached_read(path, store)


def cached_read(path: Path, store: Store, memory_budget: int | None = None) -> NcuExport:
    """read_ncu_csv through the store; errors are never stored (a bad file is re-read)."""
    key = _key(path, store)
    found = store.read(KIND, key, FRAMES)
    try:
        if found is not None:
            return NcuExport(
                path=path,
                layout=found.meta["layout"],
                kernels=found.frames["kernels"],
                metrics=found.frames["metrics"],
                preamble_lines=found.meta["preamble_lines"],
                notes=tuple(found.meta.get("notes", ())),
                content_key=key,
            )
    except (KeyError, TypeError):
        pass  # another version's entry: parsed again, and replaced
    export = replace(read_ncu_csv(path, memory_budget), content_key=key)
    frames = {"kernels": export.kernels, "metrics": export.metrics}
    meta = {"layout": export.layout, "preamble_lines": export.preamble_lines,
            "notes": list(export.notes)}  # fmt: skip
    store.write(KIND, key, Frames(frames, meta), FRAMES)
    return export
