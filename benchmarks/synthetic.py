"""Synthetic measurement sets for the report-at-scale benchmark: the real measurements/
folder with its run folders and imports replicated under new ids.

A replica is a real record with a new name and nothing else changed, so it loads and
validates exactly as the real one does: `run.json` gets the new `run_id` (the only place a
run's id is written inside its folder) and `complexity/imported.csv` a row for each new
import name. Files are hard-linked where the filesystem allows (nothing in a site build
writes into measurements/), else copied; but each replica's trace.json.gz gets its own
gzip header time and its ncu.csv a `==PROF==` line of its own, so that no two replicas share a
content-keyed cache entry (the parse and trace caches would otherwise do the work of a
thousand runs once per real run, which a set of distinct runs never gets). A run's stored
trace work (trace-analysis.parquet, which `measure` writes) is copied with the replica's
trace digest in it, as `measure` would have written it for that trace.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import polars as pl

from generator.analysis.trace_work import WORK_FILE, WORK_KEY
from generator.atomic import write_json, write_via
from generator.ingest.digests import file_digest
from generator.records.run import RUN_FILE

IMPORTED_ANALYTIC = Path("complexity") / "imported.csv"


def real_runs(measurements: Path) -> list[Path]:
    """The real run folders, by id (the order replicas cycle through them)."""
    folder = measurements / "runs"
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def real_imports(measurements: Path) -> list[Path]:
    folder = measurements / "imported"
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def replica_id(original: str, index: int) -> str:
    """A new, unique id that still says which real run it copies."""
    return f"{original}-x{index:05d}"


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:  # another filesystem, or links not allowed
        shutil.copy2(source, target)


def _distinct_trace(source: Path, target: Path, index: int) -> None:
    """The same gzip stream with the replica's index as its header time (bytes 4-7, which
    no checksum covers): the same JSON, other bytes."""
    data = bytearray(source.read_bytes())
    data[4:8] = (index + 1).to_bytes(4, "little")
    target.write_bytes(bytes(data))


def _distinct_csv(source: Path, target: Path, index: int) -> None:
    """ncu.csv behind one `==PROF==` line naming the replica, as ncu writes its own
    messages before the table (the reader skips them)."""
    line = f"==PROF== Roofline Atlas synthetic replica {index}\n".encode()
    target.write_bytes(line + source.read_bytes())


DISTINCT = {"trace.json.gz": _distinct_trace, "ncu.csv": _distinct_csv}


def _restamp_work(source: Path, target: Path) -> None:
    """The stored work of the original trace, for the replica's trace: the same work (the
    replica's JSON is the original's), stamped with the replica's trace digest, as
    `measure` would have written it for that file."""
    stored = source / WORK_FILE
    if not stored.is_file():
        return
    meta = json.loads(pl.read_parquet_metadata(stored)[WORK_KEY])
    meta["trace_digest"] = file_digest(target / "trace.json.gz")
    points = pl.read_parquet(stored)
    text = json.dumps(meta, separators=(",", ":"))
    write_via(
        target / WORK_FILE, lambda temp: points.write_parquet(temp, metadata={WORK_KEY: text})
    )


def _copy_folder(source: Path, target: Path) -> None:
    """The folder and what is in it (a multi-rank capture's ranks/ too), files linked."""
    target.mkdir(parents=True)
    for path in source.iterdir():
        if path.is_file():
            _link_or_copy(path, target / path.name)
        elif path.is_dir():
            _copy_folder(path, target / path.name)


def replicate_run(source: Path, runs_dir: Path, index: int) -> str:
    """One replica of the run folder `source`; returns its id."""
    run_id = replica_id(source.name, index)
    target = runs_dir / run_id
    target.mkdir(parents=True)
    for path in source.iterdir():
        if path.name in DISTINCT:
            DISTINCT[path.name](path, target / path.name, index)
        elif path.is_file() and path.name not in (RUN_FILE, WORK_FILE):
            _link_or_copy(path, target / path.name)
    _restamp_work(source, target)
    record = json.loads((source / RUN_FILE).read_text(encoding="utf-8"))
    write_json(target / RUN_FILE, {**record, "run_id": run_id})
    return run_id


def _replicate_imports(source: Path, dest: Path, count: int) -> list[str]:
    originals = real_imports(source)
    names = []
    for index in range(count):
        original = originals[index % len(originals)]
        name = f"{original.name}-x{index:03d}"
        _copy_folder(original, dest / "imported" / name)
        names.append((original.name, name))
    _analytic_rows(dest / IMPORTED_ANALYTIC, dict((new, old) for old, new in names))
    return [new for _, new in names]


def _analytic_rows(path: Path, copies: dict[str, str]) -> None:
    """imported.csv: each replica gets the analytic row of the import it copies."""
    if not path.is_file():
        return
    frame = pl.read_csv(path)
    rows = frame.to_dicts()
    by_name = {row["name"]: row for row in rows}
    extra = [{**by_name[old], "name": new} for new, old in copies.items() if old in by_name]
    table = pl.DataFrame(rows + extra, schema=frame.schema)
    write_via(path, table.write_csv)


def make_measurements(source: Path, dest: Path, runs: int, imports: int) -> list[str]:
    """dest/ becomes a measurements folder with `runs` replicated runs and `imports`
    replicated imports (and none of the originals); returns the run ids."""
    originals = real_runs(source)
    if not originals or not real_imports(source):
        raise SystemExit(f"{source} has no run folders or no imports to replicate")
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(source, dest, ignore=skip, dirs_exist_ok=False)
    for folder in (*real_runs(dest), *real_imports(dest)):
        shutil.rmtree(folder)
    ids = [replicate_run(originals[i % len(originals)], dest / "runs", i) for i in range(runs)]
    _replicate_imports(source, dest, imports)
    return ids


def add_run(source: Path, dest: Path, index: int) -> str:
    """One more replica in an existing synthetic set (the incremental rebuild's input)."""
    originals = real_runs(source)
    return replicate_run(originals[index % len(originals)], dest / "runs", index)
