"""Mutation fuzzing of the Nsight Systems ingest: `nox -s fuzz` (or python -m
tests.fuzz_nsys).

Seeds: the real `nsys stats` CSV and JSON reports in tests/data/nsys/, SQLite exports built to
NVIDIA's documented schema (tests/nsys_sqlite.py), and rocprofv3 JSONs (tests/rocprof_json.py:
one with every record kind read, and cuts of the real file in tests/data/rocprof/), which are
mutated as documents (keys dropped, values of the wrong type, times reversed, lists cut) or
as bytes (plain or gzipped), and the real rocprofv3 kernel trace CSV, mutated as bytes. A CSV is mutated as bytes and lines
(tests/fuzz_ingest.mutate); an export either as bytes (flipped, cut short) or as a database
(values of the wrong type, NULLs, negative or reversed times, unknown ids, tables or columns
dropped). Each result goes through `summarize` (the summary, its --json form and its text
form), alone or with the other reports of its capture. Every input must give a summary or
raise UserError; any other exception is a crash, saved to tests/data/fuzz-corpus/crashes/,
and the run fails. Deterministic for a given --seed; bounded by --seconds.
"""

from __future__ import annotations

import copy
import json
import random
import shutil
import sqlite3
import sys
import tempfile
import time
import traceback
from pathlib import Path

from generator.errors import UserError
from generator.summaries.nsys import format_nsys_summary, summarize_nsys
from tests.fuzz_cli import NOT_CRASHES, fuzz_main
from tests.fuzz_ingest import mutate as mutate_bytes
from tests.nsys_sqlite import Export, training_steps
from tests.rocprof_json import real_cut, synthetic, write

HERE = Path(__file__).resolve().parent
NSYS = HERE / "data" / "nsys"
CRASHES = HERE / "data" / "fuzz-corpus" / "crashes"
TABLES = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
          "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "StringIds", "TARGET_INFO_GPU",
          "ENUM_CUDA_MEMCPY_OPER"]  # fmt: skip
VALUES = [None, "x", "", -1, 0, 2**62, -(2**62), 1.5, float("nan"), b"\xff\x00"]


def exports(folder: Path) -> list[Path]:
    """SQLite seeds: the training steps, two GPUs, an export with only NVTX ranges, and
    the real exports under tests/data/nsys."""
    two = training_steps()
    two.gpus = {0: "NVIDIA H100 80GB HBM3", 1: "NVIDIA A100-SXM4-80GB"}
    two.kernels += [(n, s, e, 1) for n, s, e, _ in two.kernels]
    only_ranges = Export(ranges=[("step", 0, 1_000, 59), ("load", 5, 50, 60)], gpus={})
    return [
        e.write(folder / f"seed-{i}.sqlite")
        for i, e in enumerate((training_steps(), two, only_ranges))
    ] + sorted(NSYS.glob("*/*.sqlite"))


def captures() -> list[list[Path]]:
    """The real captures' stats reports (CSV or JSON), one list per capture."""
    found = [
        sorted([*p.glob("*.csv"), *p.glob("*.json")]) for p in sorted(NSYS.iterdir()) if p.is_dir()
    ]
    return [reports for reports in found if reports]


def mutate_database(path: Path, rng: random.Random) -> None:
    db = sqlite3.connect(path)
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for _ in range(rng.randint(1, 3)):
            table = rng.choice(tables)
            columns = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
            how = rng.randrange(5)
            if how == 0:
                db.execute(f"DROP TABLE IF EXISTS {table}")
                tables.remove(table)
                if not tables:
                    break
            elif how == 1 and columns:
                column = rng.choice(columns)
                db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid % ? = 0",
                           (rng.choice(VALUES), rng.randint(1, 3)))  # fmt: skip
            elif how == 2 and {"start", "end"} <= set(columns):
                db.execute(f"UPDATE {table} SET start = end + ?", (rng.randint(-10, 10**7),))
            elif how == 3 and columns:
                db.execute(f"DELETE FROM {table} WHERE rowid % 2 = 0")
            elif columns:
                column = rng.choice(columns)
                db.execute(f"ALTER TABLE {table} RENAME COLUMN {column} TO renamed_{column}")
        db.commit()
    except sqlite3.Error:
        pass  # a mutation the database refused: the file is still an input
    finally:
        db.close()


ROCPROF_CSV = HERE / "data" / "rocprof" / "jimw567__rocprof-unified-viewer__decode_kernel_trace.csv"
ROCPROF_VALUES: list[object] = [None, "x", "", -1, 0, 2**62, -(2**62), 1.5, True, [], {}, [{}]]


def rocprof_seeds() -> list[dict[str, object]]:
    """rocprofv3 documents: every record kind, and two cuts of the real file."""
    return [synthetic(), real_cut(200), real_cut(20)]


def _containers(value: object, found: list[dict[str, object] | list[object]]) -> None:
    if isinstance(value, dict):
        found.append(value)
        for item in value.values():
            _containers(item, found)
    elif isinstance(value, list):
        found.append(value)
        for item in value[:50]:  # the real cut's lists are long: their heads suffice
            _containers(item, found)


def mutate_document(document: dict[str, object], rng: random.Random) -> None:
    for _ in range(rng.randint(1, 4)):
        found: list[dict[str, object] | list[object]] = []
        _containers(document, found)
        target = rng.choice(found)
        if isinstance(target, dict) and target:
            key = rng.choice(list(target))
            how = rng.randrange(3)
            if how == 0:
                del target[key]
            elif how == 1:
                target[key] = copy.deepcopy(rng.choice(ROCPROF_VALUES))
            elif "start_timestamp" in target and "end_timestamp" in target:
                target["start_timestamp"], target["end_timestamp"] = (
                    target["end_timestamp"], target["start_timestamp"],
                )  # fmt: skip
        elif isinstance(target, list) and target:
            if rng.random() < 0.5:
                del target[rng.randrange(len(target)) :]
            else:
                target[rng.randrange(len(target))] = copy.deepcopy(rng.choice(ROCPROF_VALUES))


def rocprof_case(rng: random.Random, target: Path, seeds: list[dict[str, object]]) -> Path:
    if rng.random() < 0.2:  # the real kernel trace CSV, mutated as bytes and lines
        path = target / "kernel_trace.csv"
        path.write_bytes(mutate_bytes(ROCPROF_CSV.read_bytes(), rng))
        return path
    document = json.loads(json.dumps(rng.choice(seeds)))  # a copy to mutate
    zipped = rng.random() < 0.2
    path = target / ("results.json.gz" if zipped else "results.json")
    if rng.random() < 0.6:
        mutate_document(document, rng)
        return write(document, path, zipped)
    write(document, path, zipped)
    path.write_bytes(mutate_bytes(path.read_bytes(), rng))
    return path


def case(
    rng: random.Random,
    folder: Path,
    seeds: list[Path],
    csvs: list[list[Path]],
    documents: list[dict[str, object]] | None = None,
) -> list[Path]:
    """One input: a mutated export or rocprofv3 JSON, or a capture's reports with one of
    them mutated."""
    target = folder / "case"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir()
    if documents and rng.random() < 0.3:
        return [rocprof_case(rng, target, documents)]
    if rng.random() < 0.4:
        path = target / "capture.sqlite"
        shutil.copy(rng.choice(seeds), path)
        if rng.random() < 0.6:
            mutate_database(path, rng)
        else:
            path.write_bytes(mutate_bytes(path.read_bytes(), rng))
        return [path]
    reports = rng.choice(csvs)
    chosen = rng.randrange(len(reports))
    out = []
    for index, report in enumerate(reports):
        path = target / report.name
        data = report.read_bytes()
        path.write_bytes(mutate_bytes(data, rng) if index == chosen else data)
        out.append(path)
    return out if rng.random() < 0.7 else [out[chosen]]


def exercise(paths: list[Path]) -> None:
    summary = summarize_nsys(paths)
    json.dumps(summary, allow_nan=False)
    format_nsys_summary(summary)


def signature(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    return f"{type(error).__name__} at {where}"


def fuzz(
    seconds: float, seed: int, max_cases: int | None = None, save: bool = True
) -> tuple[int, dict[str, list[Path]]]:
    rng = random.Random(seed)
    crashes: dict[str, list[Path]] = {}
    deadline = time.monotonic() + seconds
    cases = 0
    with tempfile.TemporaryDirectory(prefix="ra-fuzz-nsys-") as name:
        folder = Path(name)
        seeds, csvs, documents = exports(folder), captures(), rocprof_seeds()
        while time.monotonic() < deadline and (max_cases is None or cases < max_cases):
            paths = case(rng, folder, seeds, csvs, documents)
            cases += 1
            try:
                exercise(paths)
            except UserError:
                continue
            except BaseException as error:  # a library's panic too (fuzz_cli.NOT_CRASHES)
                if isinstance(error, NOT_CRASHES):
                    raise
                key = signature(error)
                if key in crashes:
                    continue
                print(f"crash ({key}):\n{traceback.format_exc()}", file=sys.stderr)
                crashes[key] = []
                if save:
                    target = CRASHES / f"nsys-crash-{seed}-{cases}"
                    target.mkdir(parents=True, exist_ok=True)
                    for path in paths:
                        shutil.copy(path, target / path.name)
                    crashes[key] = [target]
                    print(f"saved: {target}", file=sys.stderr)
    return cases, crashes


def main(argv: list[str] | None = None) -> int:
    return fuzz_main(__doc__ or "", fuzz, "fuzz (nsys)", argv)


if __name__ == "__main__":
    sys.exit(main())
