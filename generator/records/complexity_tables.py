"""measurements/complexity/: the complexity checks as CSV tables plus `tables.json`, which
says how and from what they were generated. Written with torch (`complexity-tables`), read
without it by the report."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
from pydantic import BaseModel, ConfigDict

from generator.atomic import write_json, write_via
from generator.records.versioned import load_json, upgrade, validated

TABLES_SCHEMA_VERSION = 1
META_FILE = "tables.json"
_FIX = "regenerate them: `python -m generator complexity-tables` (needs torch)"


class TablesMeta(BaseModel):
    model_config = ConfigDict(extra="allow")

    schema_version: int = TABLES_SCHEMA_VERSION
    generated_at: str
    torch: str
    torchvision: str
    command: str
    source_hash: str
    tables: list[str]


@dataclass(frozen=True)
class ComplexityTables:
    meta: TablesMeta | None = None  # None: never generated
    frames: dict[str, pl.DataFrame] = field(default_factory=dict)  # file name -> table


def read_meta(folder: Path) -> TablesMeta | None:
    path = folder / META_FILE
    if not path.is_file():
        return None
    data = upgrade(load_json(path, fix=_FIX), path, TABLES_SCHEMA_VERSION)
    return validated(TablesMeta, data, path, _FIX)


def read_tables(folder: Path) -> ComplexityTables:
    """What the report shows; empty when the tables were never generated."""
    meta = read_meta(folder)
    if meta is None:
        return ComplexityTables()
    frames = {n: pl.read_csv(folder / n) for n in meta.tables if (folder / n).is_file()}
    return ComplexityTables(meta, frames)


def write_tables(
    folder: Path, tables: dict[str, list[dict[str, Any]]], meta: TablesMeta
) -> list[Path]:
    """Each table as CSV, then tables.json last (a reader trusts only what it names)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, rows in tables.items():
        write_via(folder / name, pl.DataFrame(rows, infer_schema_length=None).write_csv)
        written.append(folder / name)
    write_json(folder / META_FILE, meta.model_dump(mode="json"))
    return [*written, folder / META_FILE]
