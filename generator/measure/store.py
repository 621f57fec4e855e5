"""Run folders in measurements/runs/: written whole or not at all."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import polars as pl


def write_csv(path: Path, rows: Sequence[Mapping[str, object]], columns: list[str]) -> None:
    """Always all `columns`, in order (a phase an inference step lacks is empty)."""
    frame = pl.DataFrame(rows, schema=None if rows else dict.fromkeys(columns, pl.String))
    missing = [pl.lit(None).alias(c) for c in columns if c not in frame.columns]
    frame.with_columns(missing).select(columns).write_csv(path)


STAGING = ".staging-"


def _owner() -> str:
    """Who stages a folder: this host and process, so a later call can tell a dead one's."""
    return f"{socket.gethostname()}~{os.getpid()}~"


def sweep_stale_staging(runs_dir: Path) -> list[Path]:
    """Remove the staging folders that processes of this host left when they were killed
    (SIGKILL leaves no chance to clean up); another host's, or a live process's (a Slurm
    task writing beside this one), stay. Returns what was removed."""
    removed = []
    host = socket.gethostname()
    for folder in runs_dir.glob(f"{STAGING}*") if runs_dir.is_dir() else []:
        parts = folder.name.split("~")
        if len(parts) < 3 or not parts[0].endswith(host) or not parts[1].isdigit():
            continue
        if not _alive(int(parts[1])):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


@contextlib.contextmanager
def staged_run_folder(runs_dir: Path, run_id: str) -> Iterator[Path]:
    """Yield an empty staging folder; on success it replaces runs_dir/run_id in one
    rename, on any error (Ctrl-C included) it is removed and the old folder stays. Its name
    says which host and process staged it (`sweep_stale_staging`)."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=runs_dir, prefix=f"{STAGING}{run_id}-{_owner()}"))
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
