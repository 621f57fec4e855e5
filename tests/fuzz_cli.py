"""The command line every fuzzer shares: `--seconds` and `--seed`, one line of results, and
exit status 1 when a crash was found (nox -s fuzz fails on it)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

Fuzz = Callable[[float, int], tuple[int, list[Path]]]
# What ends a fuzz run rather than being a crash: a Rust panic in a library (Polars through
# pyo3) is a BaseException, not an Exception, and is a crash like any other.
NOT_CRASHES = (KeyboardInterrupt, SystemExit, GeneratorExit)


def fuzz_main(
    doc: str, fuzz: Fuzz, label: str, argv: list[str] | None, seconds: float = 60.0
) -> int:
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=seconds, help=f"time budget (default {seconds:g})"
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    cases, crashes = fuzz(args.seconds, args.seed)
    print(f"{label}: {cases} inputs in {args.seconds:g} s, {len(crashes)} crash(es)")
    return 1 if crashes else 0
