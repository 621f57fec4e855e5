"""Mutation fuzzing of the binary reports: `nox -s fuzz` (or python -m tests.fuzz_reports).

Seeds: the real `.ncu-rep` reports in tests/data/ncu-rep/ and `.nsys-rep` reports in
tests/data/nsys/binary/, mutated as bytes (tests/fuzz_ingest.mutate: flips, cuts, splices)
and, half the time, inside their first kilobytes, where the headers the readers parse sit.
An `.ncu-rep` goes through `summarize` (ncu-report, then the CSV path's stages and the
findings); an `.nsys-rep` through its header and the export, with no nsys on PATH. Every
input must give a summary or raise UserError; any other exception is a crash, saved to
tests/data/fuzz-corpus/crashes/, and the run fails. Deterministic for a given --seed.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

from generator.errors import UserError
from generator.ingest.nsys.binary import exported, writer_version
from generator.summaries.export import summarize_file
from tests.fuzz_cli import NOT_CRASHES, fuzz_main
from tests.fuzz_ingest import mutate

HERE = Path(__file__).resolve().parent
CRASHES = HERE / "data" / "fuzz-corpus" / "crashes"
NCU_REPORTS = sorted((HERE / "data" / "ncu-rep").glob("*.ncu-rep"))
NSYS_REPORTS = sorted((HERE / "data" / "nsys" / "binary").glob("*.nsys-rep"))
HEAD = 1024


def mutated(data: bytes, rng: random.Random) -> bytes:
    """A whole-file mutation, or one of the header only (the rest kept whole)."""
    if rng.random() < 0.5:
        return mutate(data, rng)
    return mutate(data[:HEAD], rng) + data[HEAD:]


def exercise(path: Path, suffix: str) -> None:
    if suffix == ".ncu-rep":
        summarize_file(path, None, "kernel")
        return
    writer_version(path)
    with exported(path):  # no nsys on PATH: the error that names the command
        pass


def fuzz(seconds: float, seed: int, max_cases: int | None = None) -> tuple[int, list[Path]]:
    """Run until the time (or case) budget is spent; return cases run and crash files."""
    rng = random.Random(seed)
    corpus = [(p.read_bytes(), ".ncu-rep") for p in NCU_REPORTS] + [
        (p.read_bytes(), ".nsys-rep") for p in NSYS_REPORTS
    ]
    crashes: list[Path] = []
    deadline = time.monotonic() + seconds
    cases = 0
    path_before = os.environ.get("PATH", "")
    with tempfile.TemporaryDirectory(prefix="ra-fuzz-reports-") as folder:
        os.environ["PATH"] = folder  # no nsys here, whatever the machine has
        try:
            while time.monotonic() < deadline and (max_cases is None or cases < max_cases):
                data, suffix = rng.choice(corpus)
                data = mutated(data, rng)
                target = Path(folder) / f"input{suffix}"
                target.write_bytes(data)
                cases += 1
                try:
                    exercise(target, suffix)
                except UserError:
                    pass
                except BaseException as error:  # a library's panic too (fuzz_cli.NOT_CRASHES)
                    if isinstance(error, NOT_CRASHES):
                        raise
                    CRASHES.mkdir(parents=True, exist_ok=True)
                    crash = CRASHES / f"crash-{seed}-{cases}{suffix}"
                    crash.write_bytes(data)
                    crashes.append(crash)
                    print(f"crash: {crash}\n{traceback.format_exc()}", file=sys.stderr)
        finally:
            os.environ["PATH"] = path_before
    return cases, crashes


def main(argv: list[str] | None = None) -> int:
    return fuzz_main(__doc__ or "", fuzz, "fuzz (binary reports)", argv)


if __name__ == "__main__":
    sys.exit(main())
