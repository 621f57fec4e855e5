"""Mutation fuzzing of the ncu CSV ingest: `nox -s fuzz` (or python -m tests.fuzz_ingest).

Starts from the files in tests/data/fuzz-corpus/ and tests/data/bad/, applies random
byte- and line-level mutations, and feeds each result to read_ncu_csv and the roofline
summary. Every input must either parse or raise UserError: any other exception is a
crash, saved to tests/data/fuzz-corpus/crashes/ so it can become a test, and the run fails.
Deterministic for a given --seed; bounded by --seconds.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

from generator.errors import UserError
from generator.ingest import read_ncu_csv
from generator.summaries.export import check_export
from tests.fuzz_cli import NOT_CRASHES, fuzz_main

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "data" / "fuzz-corpus"
BAD = HERE / "data" / "bad"
CRASHES = CORPUS / "crashes"
TOKENS = [
    b'"', b",", b"\n", b"\r\n", b'""', b"n/a", b"nan", b"-1", b"1e309", b"1,000,000",
    b"Kbyte", b"furlong", b"\x00", b"\xff\xfe", b"\xef\xbb\xbf", b'"ID","Process ID"',
    b"Metric Value", b"cycle/nsecond", b"%", b"0", b"", b"9" * 40,
]  # fmt: skip


def seeds() -> list[bytes]:
    files = sorted(CORPUS.glob("*.csv")) + sorted(CORPUS.glob("regressions/*.csv"))
    files += sorted(BAD.glob("*.csv"))
    return [p.read_bytes() for p in files]


def mutate(data: bytes, rng: random.Random) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(6)
        position = rng.randrange(len(data) + 1)
        if choice == 0 and data:  # flip a byte
            data[min(position, len(data) - 1)] = rng.randrange(256)
        elif choice == 1:  # insert a token
            data[position:position] = rng.choice(TOKENS)
        elif choice == 2 and data:  # delete a slice
            data[position : position + rng.randint(1, 64)] = b""
        elif choice == 3:  # truncate
            data = data[:position]
        elif choice == 4:  # duplicate a line
            lines = bytes(data).split(b"\n")
            index = rng.randrange(len(lines))
            lines.insert(index, lines[index])
            data = bytearray(b"\n".join(lines))
        else:  # swap two lines
            lines = bytes(data).split(b"\n")
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
            data = bytearray(b"\n".join(lines))
    return bytes(data)


def exercise(path: Path) -> None:
    """What a user's command does with a file: parse, sum, check."""
    check_export(read_ncu_csv(path), None, "train_step")


def fuzz(seconds: float, seed: int, max_cases: int | None = None) -> tuple[int, list[Path]]:
    """Run until the time (or case) budget is spent; return cases run and crash files."""
    rng = random.Random(seed)
    corpus = seeds()
    crashes: list[Path] = []
    deadline = time.monotonic() + seconds
    cases = 0
    with tempfile.TemporaryDirectory(prefix="ra-fuzz-") as folder:
        target = Path(folder) / "input.csv"
        while time.monotonic() < deadline and (max_cases is None or cases < max_cases):
            data = mutate(rng.choice(corpus), rng)
            target.write_bytes(data)
            cases += 1
            try:
                exercise(target)
            except UserError:
                pass
            except BaseException as error:  # a library's panic too (fuzz_cli.NOT_CRASHES)
                if isinstance(error, NOT_CRASHES):
                    raise
                CRASHES.mkdir(parents=True, exist_ok=True)
                crash = CRASHES / f"crash-{seed}-{cases}.csv"
                crash.write_bytes(data)
                crashes.append(crash)
                print(f"crash: {crash}\n{traceback.format_exc()}", file=sys.stderr)
    return cases, crashes


def main(argv: list[str] | None = None) -> int:
    return fuzz_main(__doc__ or "", fuzz, "fuzz", argv)


if __name__ == "__main__":
    sys.exit(main())
