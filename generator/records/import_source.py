"""Measurements collected elsewhere: measurements/imported/<name>/{ncu.csv, source.toml}.

The CSV is kept verbatim; source.toml says where it came from and what it measured, so
every number on the report can be traced to a public file and a citation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from generator.errors import UserError
from generator.models import DATASETS, MODELS, unknown_name
from generator.records.versioned import load_toml, upgrade, validated

SCHEMA_VERSION = 1


class Source(BaseModel):
    """Validated contents of source.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int
    title: str = Field(min_length=1)
    origin: str = Field(min_length=1, description="URL of the file as published")
    device: str = Field(min_length=1, description="catalog id or name of the GPU")
    model: str
    workload: str
    batch: int | None = Field(default=None, gt=0)
    phase: str
    precision: str
    citation: str = Field(min_length=1)
    license: str = ""
    notes: str = ""
    # Optional: the registry model and dataset shape that ran, so the analytic FLOP count
    # (`complexity-tables`) can be set beside the counted one.
    registry_model: str | None = None
    dataset: str | None = None

    @field_validator("registry_model", "dataset")
    @classmethod
    def _known_name(cls, name: str | None, info: ValidationInfo) -> str | None:
        what, table = (
            ("registry model", MODELS)
            if info.field_name == "registry_model"
            else ("dataset", DATASETS)
        )
        if name is not None and name not in table:
            raise ValueError(unknown_name(what, name, table))
        return name


@dataclass(frozen=True)
class Imported:
    name: str
    folder: Path
    csv_path: Path
    source: Source


def load_source(path: Path) -> Source:
    data = upgrade(load_toml(path), path, SCHEMA_VERSION)
    fix = "see docs/methodology.md, 'Importing an export', for the keys source.toml takes"
    return validated(Source, data, path, fix)


def discover(root: Path) -> list[Imported]:
    """Every imported measurement under root/imported, sorted by name."""
    folder = root / "imported"
    if not folder.is_dir():
        return []
    found = []
    # A dot-folder is an `import` still being staged (or one a crash left): not a measurement.
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        csv_path = sub / "ncu.csv"
        source_path = sub / "source.toml"
        for needed in (csv_path, source_path):
            if not needed.is_file():
                raise UserError(
                    f"missing {needed.name}",
                    file=sub,
                    fix="an imported measurement is a folder with ncu.csv and source.toml",
                )
        found.append(Imported(sub.name, sub, csv_path, load_source(source_path)))
    return found
