"""benchmarks/results.json (written by `nox -s bench`): one entry per file size."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from generator.errors import UserError
from generator.records.versioned import load_json

RESULTS_FILE = Path("benchmarks") / "results.json"


@dataclass(frozen=True)
class BenchmarkResults:
    entries: list[dict[str, Any]]  # as benchmarks/run.py writes them, smallest size first

    def frame(self) -> pl.DataFrame:
        """The scalar fields, one row per file size."""
        return pl.DataFrame(
            [
                {k: v for k, v in e.items() if isinstance(v, int | float | str)}
                for e in self.entries
            ],
            infer_schema_length=None,
        )


def read_benchmarks(repository: Path) -> BenchmarkResults | None:
    """None when the benchmark was never run here."""
    path = repository / RESULTS_FILE
    if not path.is_file():
        return None
    data = load_json(path, fix="run `nox -s bench` again")
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise UserError(
            "expected a list of one object per file size", file=path, fix="run `nox -s bench` again"
        )
    return BenchmarkResults(data)
