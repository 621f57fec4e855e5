"""Measurements collected elsewhere: measurements/imported/<name>/ with source.toml and an
ncu export (ncu.csv), a torch.profiler trace (trace.json.gz or trace.json), or both.

The files are kept verbatim; source.toml says where it came from and what it measured, so
every number on the report can be traced to a public file and a citation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from generator.errors import UserError
from generator.models import DATASETS, MODELS, unknown_name
from generator.records.run import TRACE_FILE
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


@dataclass(frozen=True)
class ImportedTrace:
    name: str
    folder: Path
    trace_path: Path
    source: Source
    csv_path: Path | None  # an ncu export of the same work beside it, to compare FLOPs


@dataclass(frozen=True)
class ImportedFolder:
    """A capture of one input kind (`site/kinds.py`): its files in the kind's folder of
    <name>/, as the user gave them or as `import` wrote them."""

    name: str
    folder: Path
    source: Source


# A multi-rank capture: ranks/rank-N.json.gz, analysed in ranks-analysis.parquet.
ImportedCapture = ImportedFolder
# An Nsight Systems (or rocprofv3) capture: nsys/ holds its files.
ImportedNsys = ImportedFolder


TRACE_FILES = (TRACE_FILE, "trace.json")
# A binary ncu report, kept verbatim beside the ncu.csv read from it (the report reads that).
NCU_REPORT_FILE = "report.ncu-rep"
RANKS_DIR = "ranks"  # a multi-rank capture's traces, one per rank
NSYS_DIR = "nsys"  # an Nsight Systems capture: its SQLite export or stats CSV reports


def trace_file(folder: Path) -> Path | None:
    return next((folder / n for n in TRACE_FILES if (folder / n).is_file()), None)


def load_source(path: Path) -> Source:
    data = upgrade(load_toml(path), path, SCHEMA_VERSION)
    fix = "see docs/methodology.md, 'Importing an export', for the keys source.toml takes"
    return validated(Source, data, path, fix)


def _folders(root: Path) -> list[Path]:
    folder = root / "imported"
    if not folder.is_dir():
        return []
    # A dot-folder is an `import` still being staged (or one a crash left): not a measurement.
    found = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    for sub in found:
        if not (sub / "source.toml").is_file():
            raise UserError("missing source.toml", file=sub, fix=_FOLDER_FIX)
    return found


_FOLDER_FIX = (
    "an imported measurement is a folder with source.toml and ncu.csv, trace.json.gz, "
    "or the folder of a kind of capture (docs/methodology.md, 'Importing an export')"
)


def check_imported(root: Path, kind_folders: Sequence[str]) -> None:
    """Every imported folder holds something the report reads: ncu.csv, a trace, or the
    folder of one of the input kinds (`kind_folders`, e.g. ranks/ or nsys/)."""
    others = [TRACE_FILE, *(f"{name}/" for name in kind_folders)]
    wanted = ", ".join(others[:-1]) + f" or {others[-1]}" if len(others) > 1 else others[0]
    for sub in _folders(root):
        if (
            not (sub / "ncu.csv").is_file()
            and trace_file(sub) is None
            and not any((sub / name).is_dir() for name in kind_folders)
        ):
            raise UserError(f"missing ncu.csv (or {wanted})", file=sub, fix=_FOLDER_FIX)


def discover(root: Path) -> list[Imported]:
    """Every imported ncu export under root/imported, sorted by name."""
    return [
        Imported(sub.name, sub, sub / "ncu.csv", load_source(sub / "source.toml"))
        for sub in _folders(root)
        if (sub / "ncu.csv").is_file()
    ]


def discover_traces(root: Path) -> list[ImportedTrace]:
    """Every imported profiler trace under root/imported, sorted by name."""
    found = []
    for sub in _folders(root):
        trace = trace_file(sub)
        if trace is not None:
            csv_path = sub / "ncu.csv"
            found.append(
                ImportedTrace(
                    sub.name,
                    sub,
                    trace,
                    load_source(sub / "source.toml"),
                    csv_path if csv_path.is_file() else None,
                )
            )
    return found


def discover_folders(root: Path, kind_folder: str) -> list[ImportedFolder]:
    """Every imported folder under root/imported holding `kind_folder`, sorted by name."""
    return [
        ImportedFolder(sub.name, sub, load_source(sub / "source.toml"))
        for sub in _folders(root)
        if (sub / kind_folder).is_dir()
    ]


def discover_captures(root: Path) -> list[ImportedFolder]:
    """Every imported multi-rank capture under root/imported, sorted by name."""
    return discover_folders(root, RANKS_DIR)


def discover_nsys(root: Path) -> list[ImportedFolder]:
    """Every imported Nsight Systems capture under root/imported, sorted by name."""
    return discover_folders(root, NSYS_DIR)
