"""Read the CSV table under its header into a frame of strings, in memory or, for a file
larger than the memory budget allows, streamed through a temporary Parquet file."""

from __future__ import annotations

import csv
import io
import os
import tempfile
from pathlib import Path
from typing import Any

import polars as pl

from generator.errors import UserError
from generator.ingest.nvtx import is_push_pop_column, is_start_stop_column
from generator.ingest.schema import IDENTITY_COLUMNS

# Both read paths parse the same way: every field a string, checked and converted by us.
_CSV_OPTIONS: dict[str, Any] = {"infer_schema": False, "encoding": "utf8", "raise_if_empty": False}
# The in-memory path peaks below this many times the file's size (measured: 1.13× for a
# 1M-row long export, 520 MB; the margin is for files whose text repeats less).
IN_MEMORY_FACTOR = 2.0
# Columns that repeat a few values over every row (a kernel's name on each of its metric
# rows, a metric's name on each kernel's row): both read paths hold them as categoricals, a
# small integer per row instead of a string, which makes every later filter, join and
# pivot several times cheaper. IDs stay strings: they are checked and parsed as integers.
_REPEATED_COLUMNS = frozenset(
    {*IDENTITY_COLUMNS, "Section Name", "Body Item Label", "Metric Name", "Metric Unit"}
    - {"ID", "Process ID"}
)


def categorical_columns(columns: list[str]) -> list[str]:
    """The columns of a header read as categoricals (NVTX range stacks repeat per kernel)."""
    return [
        c
        for c in columns
        if c.lstrip("\ufeff") in _REPEATED_COLUMNS
        or is_push_pop_column(c)
        or is_start_stop_column(c)
    ]


DEFAULT_MEMORY_BUDGET = 2_000_000_000  # bytes; RA_MEMORY_BUDGET or --memory-budget change it
_SIZE_SUFFIXES = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}


def parse_size(text: str, key: str = "--memory-budget") -> int:
    """'2G' → 2_000_000_000 (SI, like every size in this project); plain numbers are bytes."""
    cleaned = text.strip().upper().removesuffix("B")
    suffix = cleaned[-1:] if cleaned[-1:] in _SIZE_SUFFIXES else ""
    number = cleaned[: len(cleaned) - len(suffix)]
    try:
        value = float(number) * _SIZE_SUFFIXES[suffix]
    except ValueError:
        value = -1
    if value < 0 or value != value:
        raise UserError(
            f"{text!r} is not a size", key=key, fix="write bytes, or a number with K, M or G (2G)"
        )
    return int(value)


def default_memory_budget() -> int:
    text = os.environ.get("RA_MEMORY_BUDGET")
    return parse_size(text, key="RA_MEMORY_BUDGET") if text else DEFAULT_MEMORY_BUDGET


def read_frame(path: Path, header_index: int, memory_budget: int | None = None) -> pl.DataFrame:
    """Every field as a string. A file whose in-memory parse would need more than the budget
    (default: `default_memory_budget()`) is streamed: the same frame in about a third of the
    memory, somewhat slower."""
    budget = default_memory_budget() if memory_budget is None else memory_budget
    if path.stat().st_size * IN_MEMORY_FACTOR > budget:
        return _read_frame_streaming(path, header_index)
    return _read_frame(path, header_index)


def _read_frame(path: Path, header_index: int) -> pl.DataFrame:
    try:
        columns = pl.read_csv(path, skip_lines=header_index, n_rows=0, **_CSV_OPTIONS).columns
        frame = pl.read_csv(
            path,
            skip_lines=header_index,
            schema_overrides=dict.fromkeys(categorical_columns(columns), pl.Categorical),
            **_CSV_OPTIONS,
        )
    except (pl.exceptions.ComputeError, pl.exceptions.NoDataError) as err:
        raise _unparsable(path, header_index, err) from err
    return _checked_frame(path, frame, header_index)


def _unparsable(path: Path, header_index: int, err: Exception) -> UserError:
    """Polars refused the CSV: name the first bad record, found with the csv module."""
    line, problem = _locate_csv_problem(path, header_index)
    return UserError(
        problem or f"the CSV could not be parsed ({str(err).splitlines()[0]})",
        file=path,
        line=line,
        fix="re-export the file; it looks cut off or edited by hand",
    )


def _checked_frame(path: Path, frame: pl.DataFrame, header_index: int) -> pl.DataFrame:
    # A BOM on the header line survives into the first column's name.
    first = frame.columns[0] if frame.columns else ""
    if first.startswith("\ufeff"):
        frame = frame.rename({first: first.lstrip("\ufeff")})
    duplicated = sorted({c for c in frame.columns if c.endswith("_duplicated_0")})
    if duplicated:
        raise UserError(
            f"the header names a column twice: {', '.join(d[:-13] for d in duplicated)}",
            file=path,
            line=header_index + 1,
            fix="re-export the file; two exports may have been pasted together",
        )
    _check_utf8(path, frame, header_index)
    if frame.height == 0:
        raise UserError(
            "the export has a header but no rows",
            file=path,
            line=header_index + 1,
            fix="check that ncu profiled at least one kernel (see its ==PROF== messages)",
        )
    return frame


def _read_frame_streaming(path: Path, header_index: int) -> pl.DataFrame:
    """scan_csv → Parquet (streaming, bounded memory) → frame with categorical repeats."""
    with tempfile.TemporaryDirectory(prefix="ra-ingest-") as folder:
        parquet = Path(folder) / "export.parquet"
        try:
            scan = pl.scan_csv(path, skip_lines=header_index, **_CSV_OPTIONS)
            columns = scan.collect_schema().names()
            scan.with_row_index("__row").sink_parquet(parquet, maintain_order=True)
        except (pl.exceptions.ComputeError, pl.exceptions.NoDataError) as err:
            raise _unparsable(path, header_index, err) from err
        frame = (
            pl.scan_parquet(parquet)
            .with_columns(pl.col(c).cast(pl.Categorical) for c in categorical_columns(columns))
            .collect(engine="streaming")
        )
    # Row order is the file's order: made explicit, the streaming engine may not keep it.
    if not frame["__row"].is_sorted():
        frame = frame.sort("__row")
    return _checked_frame(path, frame.drop("__row"), header_index)


def _locate_csv_problem(path: Path, header_index: int) -> tuple[int | None, str | None]:
    """Slow path, only after Polars failed: find the first bad record with the csv module."""
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as handle:
        lines = handle.readlines()
    body = lines[header_index:]
    reader = csv.reader(io.StringIO("".join(body)), strict=True)
    try:
        header = next(reader)
        for record in reader:
            if len(record) > len(header):
                return (
                    header_index + reader.line_num,
                    f"the row has {len(record)} fields but the header has {len(header)}",
                )
    except csv.Error as err:
        return header_index + reader.line_num, f"the row is malformed ({err})"
    return None, None


def _check_utf8(path: Path, frame: pl.DataFrame, header_index: int) -> None:
    """Polars checks a String column's bytes as it parses them, but not a column read
    straight into a Categorical: invalid UTF-8 there makes every later conversion to Python
    abort the process. Each distinct value is checked here, as bytes (few per column)."""
    for column in frame.columns:
        if frame.schema[column] != pl.Categorical:
            continue
        distinct = pl.col(column).unique().drop_nulls().cast(pl.String).cast(pl.Binary)
        for value in frame.select(distinct).to_series().to_list():
            try:
                value.decode("utf-8")
            except UnicodeDecodeError as err:
                as_bytes = pl.col(column).cast(pl.String).cast(pl.Binary)
                row = frame.select(pl.arg_where(as_bytes == value).first()).item()
                raise UserError(
                    f"column {column!r} holds bytes that are not UTF-8 text ({err.reason})",
                    file=path,
                    line=header_index + 2 + int(row),
                    fix="re-export the file (ncu writes UTF-8); it was damaged or converted",
                ) from None
