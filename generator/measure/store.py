"""Run folders in measurements/runs/: written whole or not at all."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl

from generator.errors import UserError

RUN_SCHEMA_VERSION = 1


def write_csv(path: Path, rows: list[dict[str, Any]], columns: list[str]) -> None:
    """Always all `columns`, in order (a phase an inference step lacks is empty)."""
    frame = pl.DataFrame(rows, schema=None if rows else dict.fromkeys(columns, pl.String))
    missing = [pl.lit(None).alias(c) for c in columns if c not in frame.columns]
    frame.with_columns(missing).select(columns).write_csv(path)


@contextlib.contextmanager
def staged_run_folder(runs_dir: Path, run_id: str) -> Iterator[Path]:
    """Yield an empty staging folder; on success it replaces runs_dir/run_id in one
    rename, on any error (Ctrl-C included) it is removed and the old folder stays."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=runs_dir, prefix=f".staging-{run_id}-"))
    staging.chmod(0o755)  # mkdtemp makes it private; a run folder is for everyone to read
    try:
        yield staging
        final = runs_dir / run_id
        if final.exists():
            retired = Path(tempfile.mkdtemp(dir=runs_dir, prefix=f".retired-{run_id}-"))
            os.replace(final, retired / run_id)
            os.replace(staging, final)
            shutil.rmtree(retired, ignore_errors=True)
        else:
            os.replace(staging, final)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def load_json(path: Path, fix: str) -> Any:
    """A JSON file, or a UserError naming its file and line."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise UserError(
            f"not valid JSON: {error.msg}", file=path, line=error.lineno, fix=fix
        ) from None


def read_run(folder: Path) -> dict[str, Any] | None:
    """run.json of a run folder, or None when there is none; a future schema is an error."""
    path = folder / "run.json"
    if not path.exists():
        return None
    data = load_json(path, fix="delete the run folder and measure it again (`--force`)")
    version = data.get("schema_version")
    if not isinstance(version, int) or version > RUN_SCHEMA_VERSION:
        raise UserError(
            f"run.json schema_version {version!r} is not one this tool reads "
            f"(it reads up to {RUN_SCHEMA_VERSION})",
            file=path,
            key="schema_version",
            fix="update Roofline Atlas (git pull) to read runs written by a newer version",
        )
    return dict(data)
