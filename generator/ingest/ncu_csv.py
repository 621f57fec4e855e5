"""Read an Nsight Compute CSV export (long `--csv` or wide `--page raw --csv`) with Polars.

Result: a tidy kernel table (one row per kernel launch, known metrics in SI base units) and
the long metric table with every row of the file, unknown metrics included. Any malformed
input raises `UserError` naming the file and line; nothing is written anywhere.
"""

from __future__ import annotations

import csv
import io
import itertools
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
from polars._typing import PolarsDataType

from generator.errors import UserError
from generator.ingest.metric_map import DIMENSIONS, METRIC_COLUMN_NAMES, METRIC_COLUMNS, alias_rows
from generator.ingest.nvtx import (
    is_push_pop_column,
    is_start_stop_column,
    push_pop_ranges,
    start_stop_ranges,
)
from generator.ingest.units import known_unit_examples, parse_unit

HEADER_SCAN_LINES = 10_000
HEADER_SCAN_BYTES = 16 * 1024 * 1024
MISSING_VALUES = ("", "n/a", "N/A")

# Columns that describe the launch, not a metric (long and raw pages).
IDENTITY_COLUMNS: dict[str, str] = {
    "ID": "kernel_id",
    "Process ID": "process_id",
    "Process Name": "process_name",
    "Host Name": "host_name",
    "Kernel Name": "kernel_name",
    "Kernel Time": "kernel_time",
    "Context": "context",
    "Stream": "stream",
    "Block Size": "block_size",
    "Grid Size": "grid_size",
    "Device": "device",
    "CC": "cc",
}
DEVICE_NAME_METRIC = "device__attribute_display_name"  # e.g. "NVIDIA L4"
LONG_REQUIRED = ("ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value")
KERNEL_KEY = ("process_id", "kernel_id")

_IDENTITY_TYPES: dict[str, PolarsDataType] = {
    "process_id": pl.Int64,
    "kernel_id": pl.Int64,
    "process_name": pl.String,
    "host_name": pl.String,
    "kernel_name": pl.String,
    "kernel_time": pl.String,
    "context": pl.String,
    "stream": pl.String,
    "block_size": pl.String,
    "grid_size": pl.String,
    "device": pl.String,
    "cc": pl.String,
    "device_name": pl.String,  # from device__attribute_display_name, when exported
    "nvtx_push_pop": pl.List(pl.String),
    "nvtx_start_stop": pl.List(pl.String),
    "nvtx_range": pl.String,
    "line": pl.Int64,
}
_METRIC_COLUMN_TYPES: dict[str, PolarsDataType] = {name: pl.Float64 for name in METRIC_COLUMN_NAMES}
KERNEL_SCHEMA = pl.Schema({**_IDENTITY_TYPES, **_METRIC_COLUMN_TYPES})
_METRIC_ROW_TYPES: dict[str, PolarsDataType] = {
    "process_id": pl.Int64,
    "kernel_id": pl.Int64,
    "section": pl.String,
    "label": pl.String,
    "metric": pl.String,
    "unit": pl.String,
    "value_text": pl.String,
    "value": pl.Float64,  # in base_unit; null when missing or not a number
    "base_unit": pl.String,
    "line": pl.Int64,
}
METRIC_SCHEMA = pl.Schema(_METRIC_ROW_TYPES)


@dataclass(frozen=True)
class NcuExport:
    """One parsed export."""

    path: Path
    layout: str  # "long" or "raw"
    kernels: pl.DataFrame  # KERNEL_SCHEMA, sorted by process_id, kernel_id
    metrics: pl.DataFrame  # METRIC_SCHEMA, in file order
    preamble_lines: int  # lines before the header (==PROF==, program output)


# Both read paths parse the same way: every field a string, checked and converted by us.
_CSV_OPTIONS: dict[str, Any] = {"infer_schema": False, "encoding": "utf8", "raise_if_empty": False}
# Bump when parsing changes what a file turns into: cached parses are keyed by it.
PARSER_VERSION = 1
# The in-memory path peaks at about this many times the file's size.
IN_MEMORY_FACTOR = 3.2
# Columns that repeat one value per kernel on every metric row: the streaming path holds
# them as categoricals (a code per row instead of a kernel name per row).
_REPEATED_COLUMNS = frozenset(
    {*IDENTITY_COLUMNS, "Section Name", "Body Item Label"} - {"ID", "Process ID"}
)


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


def read_ncu_csv(path: str | Path, memory_budget: int | None = None) -> NcuExport:
    """Parse one ncu CSV export. Raises UserError on anything malformed.

    A file whose in-memory parse would need more than `memory_budget` bytes (default:
    `default_memory_budget()`) is read by the streaming engine into a temporary Parquet
    file first, then parsed from it with its repeated string columns as categoricals:
    the same result, in about a third of the memory, somewhat slower."""
    path = Path(path)
    header_index = _find_header(path)
    size = path.stat().st_size
    budget = default_memory_budget() if memory_budget is None else memory_budget
    if size * IN_MEMORY_FACTOR > budget:
        frame = _read_frame_streaming(path, header_index)
    else:
        frame = _read_frame(path, header_index)
    header_line = header_index + 1  # 1-based line number of the header
    if "Metric Name" in frame.columns:
        long = _long_rows(path, frame, header_line)
        layout = "long"
    else:
        long = _raw_to_long(path, frame, header_line)
        layout = "raw"
    metrics = _convert_values(path, long)
    kernels = _kernel_table(path, metrics)
    _check_one_kind_of_device(path, kernels)
    return NcuExport(
        path=path,
        layout=layout,
        kernels=kernels,
        metrics=metrics.select(METRIC_SCHEMA.names()),
        preamble_lines=header_index,
    )


# --- finding and reading the table -------------------------------------------------------


def _find_header(path: Path) -> int:
    """Index (0-based) of the line that starts the CSV table."""
    try:
        handle = path.open("rb")
    except OSError as err:
        raise UserError(f"cannot open: {err.strerror}", file=path) from err
    with handle:
        head = handle.read(4)
        if not head:
            raise UserError(
                "the file is empty (0 bytes)",
                file=path,
                fix="re-export it: ncu --import REPORT.ncu-rep --csv > FILE.csv",
            )
        if head.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise UserError(
                "the file is UTF-16 encoded; ncu CSV exports are UTF-8",
                file=path,
                fix="convert it: iconv -f UTF-16 -t UTF-8 FILE.csv > FILE-utf8.csv",
            )
        handle.seek(0)
        scanned = 0
        for index, raw in enumerate(handle):
            if index >= HEADER_SCAN_LINES or scanned > HEADER_SCAN_BYTES:
                break
            scanned += len(raw)
            if b"\x00" in raw:
                raise UserError(
                    "this is a binary file, not a CSV export (NUL byte found)",
                    file=path,
                    line=index + 1,
                    fix="export the report as CSV: ncu --import REPORT.ncu-rep --csv > FILE.csv",
                )
            text = raw.lstrip(b"\xef\xbb\xbf").lstrip()
            if text.startswith((b'"ID",', b"ID,")):
                return index
    raise UserError(
        f'no ncu CSV header found (a line starting with "ID","Process ID",...) '
        f"in the first {min(index + 1, HEADER_SCAN_LINES)} lines",
        file=path,
        fix="pass the CSV written by `ncu --csv` or `ncu --import REPORT.ncu-rep --csv "
        "[--page raw]`, not the .ncu-rep file or a spreadsheet re-save",
    )


def _read_frame(path: Path, header_index: int) -> pl.DataFrame:
    try:
        frame = pl.read_csv(path, skip_lines=header_index, **_CSV_OPTIONS)
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
        repeated = [c for c in columns if c.lstrip("\ufeff") in _REPEATED_COLUMNS]
        frame = (
            pl.scan_parquet(parquet)
            .with_columns(pl.col(c).cast(pl.Categorical) for c in repeated)
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


# --- long and raw layouts into one long table ----------------------------------------------


def _with_line_numbers(frame: pl.DataFrame, first_line: int) -> pl.DataFrame:
    # One record per line: ncu never writes newlines inside fields.
    return frame.with_row_index("line", offset=first_line).with_columns(
        pl.col("line").cast(pl.Int64)
    )


def _long_rows(path: Path, frame: pl.DataFrame, header_line: int) -> pl.DataFrame:
    missing = [c for c in LONG_REQUIRED if c not in frame.columns]
    if missing:
        raise UserError(
            f"the header lacks the column(s) {', '.join(missing)}",
            file=path,
            line=header_line,
            fix="export with `ncu --csv` (long layout) or `--page raw --csv` (wide layout)",
        )
    frame = _with_line_numbers(frame, header_line + 1)
    # ncu quotes every field, so a field that is absent (null, not "") means the row was cut.
    cut = frame.filter(
        pl.col("Metric Value").is_null() & pl.col("Metric Name").fill_null("").ne("")
    )
    cut = cut.vstack(frame.filter(pl.col("Metric Name").is_null()))
    if cut.height:
        _raise_if_cut(path, header_line, int(cut["line"].min()))  # type: ignore[arg-type]
    label = pl.col("Body Item Label") if "Body Item Label" in frame.columns else pl.lit(None)
    section = pl.col("Section Name") if "Section Name" in frame.columns else pl.lit("")
    return frame.select(
        *_identity_exprs(frame),
        section.cast(pl.String).alias("section"),
        label.cast(pl.String).alias("label"),
        pl.col("Metric Name").alias("metric"),
        pl.col("Metric Unit").fill_null("").alias("unit"),
        pl.col("Metric Value").alias("value_text"),
        "line",
    ).filter(pl.col("metric").ne(""))  # rule-only rows carry no metric


def _raise_if_cut(path: Path, header_line: int, line: int) -> None:
    """Slow path for rows Polars read with absent fields: count the line's fields."""
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as handle:
        lines = list(itertools.islice(handle, line))
    try:
        header = next(csv.reader([lines[header_line - 1].lstrip("\ufeff")]), []) if lines else []
        record = next(csv.reader([lines[line - 1]]), []) if len(lines) >= line else []
    except csv.Error as error:  # e.g. a field beyond the csv module's 128 KiB limit
        raise UserError(
            f"the row is malformed: {error}",
            file=path,
            line=line,
            fix="re-export the file; it was damaged",
        ) from None
    if not all(c in header for c in LONG_REQUIRED):
        # A quoted field spans lines, so physical and CSV lines no longer match.
        raise UserError(
            "the row is malformed (a quoted field holds a line break, or fields are missing)",
            file=path,
            line=line,
            fix="re-export the file; ncu never writes line breaks inside fields",
        )
    needed = max(header.index(c) for c in LONG_REQUIRED) + 1
    if len(record) < needed:
        raise UserError(
            f"the row is truncated: {len(record)} fields, at least {needed} expected",
            file=path,
            line=line,
            fix="re-export the file; it was cut off while being written or copied",
        )


def _identity_exprs(frame: pl.DataFrame) -> list[pl.Expr]:
    exprs = [
        (pl.col(src) if src in frame.columns else pl.lit(None, pl.String)).alias(dst)
        for src, dst in IDENTITY_COLUMNS.items()
    ]
    push_pop = [c for c in frame.columns if is_push_pop_column(c)]
    start_stop = [c for c in frame.columns if is_start_stop_column(c)]
    exprs.append(
        (pl.col(push_pop[0]) if push_pop else pl.lit(None, pl.String)).alias("nvtx_push_pop_text")
    )
    exprs.append(
        (pl.col(start_stop[0]) if start_stop else pl.lit(None, pl.String)).alias(
            "nvtx_start_stop_text"
        )
    )
    return exprs


def _raw_to_long(path: Path, frame: pl.DataFrame, header_line: int) -> pl.DataFrame:
    """`--page raw`: one column per metric and a units row under the header."""
    if "ID" not in frame.columns or "Kernel Name" not in frame.columns:
        raise UserError(
            "the header has neither 'Metric Name' (long layout) nor 'Kernel Name' (raw layout)",
            file=path,
            line=header_line,
            fix="export with `ncu --csv` or `ncu --csv --page raw`",
        )
    units_row = frame.row(0, named=True)
    if units_row["ID"] not in (None, ""):
        raise UserError(
            "raw-layout export without its units row (the line under the header must have an "
            "empty ID and one unit per metric column)",
            file=path,
            line=header_line + 1,
            fix="export with `ncu --csv --page raw` without --print-units none, or use the long layout",
        )
    identity = [
        c
        for c in frame.columns
        if c in IDENTITY_COLUMNS or is_push_pop_column(c) or is_start_stop_column(c)
    ]
    metric_columns = [c for c in frame.columns if c not in identity]
    body = _with_line_numbers(frame.slice(1), header_line + 2)
    cut = body.filter(pl.col(metric_columns[-1]).is_null()) if metric_columns else body.clear()
    if cut.height:
        raise UserError(
            "the row is truncated: it ends before the last metric column",
            file=path,
            line=int(cut["line"][0]),
            fix="re-export the file; it was cut off while being written or copied",
        )
    units = pl.DataFrame(
        {"metric": metric_columns, "unit": [units_row[c] or "" for c in metric_columns]},
        schema={"metric": pl.String, "unit": pl.String},
    )
    long = body.select(*_identity_exprs(body), *metric_columns, "line").unpivot(
        index=[
            *IDENTITY_COLUMNS.values(),
            "nvtx_push_pop_text",
            "nvtx_start_stop_text",
            "line",
        ],
        on=metric_columns,
        variable_name="metric",
        value_name="value_text",
    )
    return long.join(units, on="metric", how="left").with_columns(
        pl.lit("raw").alias("section"), pl.lit(None, pl.String).alias("label")
    )


# --- values, units, kernels -----------------------------------------------------------------


def _convert_values(path: Path, long: pl.DataFrame) -> pl.DataFrame:
    """Numbers in SI base units; ids as integers. Errors name the first offending line."""
    for column in ("kernel_id", "process_id"):
        parsed = pl.col(column).cast(pl.Int64, strict=False)
        if long.select((parsed.is_null() & pl.col(column).is_not_null()).any()).item():
            # Slow path, only for files with odd ids: " 7 " is 7, "seven" is an error.
            parsed = pl.col(column).str.strip_chars().cast(pl.Int64, strict=False)
            bad = long.filter(parsed.is_null() & pl.col(column).is_not_null())
            if bad.height:
                raise UserError(
                    f"{column.replace('_', ' ')} {bad[column][0]!r} is not an integer",
                    file=path,
                    line=int(bad["line"][0]),
                    fix="the ID and Process ID columns must hold integers as ncu writes them",
                )
        # A file without a Process ID column is one process: give it id 0.
        filled = parsed.fill_null(0) if column == "process_id" else parsed
        long = long.with_columns(filled.alias(column))
    units = long.select(pl.col("unit").unique()).to_series().to_list()
    unit_rows = []
    for text in units:
        unit = parse_unit(text)
        if unit is None:
            line = int(long.filter(pl.col("unit") == text)["line"][0])
            raise UserError(
                f"unknown unit {text!r}",
                file=path,
                line=line,
                fix=f"units must be ncu's ({known_unit_examples()}); "
                "file an issue if ncu wrote this one",
            )
        unit_rows.append({"unit": text, "factor": unit.factor, "base_unit": unit.base})
    unit_table = pl.DataFrame(
        unit_rows, schema={"unit": pl.String, "factor": pl.Float64, "base_unit": pl.String}
    )
    text = pl.col("value_text").str.strip_chars()
    number = (
        pl.when(text.is_in(MISSING_VALUES) | text.is_null())
        .then(None)
        .otherwise(text.str.replace_all(",", "", literal=True))
        .cast(pl.Float64, strict=False)
    )
    return (
        long.join(unit_table, on="unit", how="left")
        .with_columns((number * pl.col("factor")).alias("value"))
        .drop("factor")
    )


def _kernel_table(path: Path, metrics: pl.DataFrame) -> pl.DataFrame:
    if metrics.is_empty():
        raise UserError(
            "the export holds no kernel rows",
            file=path,
            fix="profile at least one kernel (check ncu's --kernel-name / --launch-skip filters) "
            "and export again",
        )
    # `metrics` carries the ids already checked and converted to integers. A kernel's
    # identity is its first row: picking rows by a hash of the integer key is far cheaper
    # than aggregating a dozen string columns per kernel.
    identity = metrics.filter(pl.struct(KERNEL_KEY).is_first_distinct()).select(
        *KERNEL_KEY,
        *(c for c in IDENTITY_COLUMNS.values() if c not in KERNEL_KEY),
        "nvtx_push_pop_text",
        "nvtx_start_stop_text",
        "line",
    )
    identity = _with_nvtx(identity)
    names = (
        metrics.filter(pl.col("metric") == DEVICE_NAME_METRIC)
        .group_by(KERNEL_KEY)
        .agg(pl.col("value_text").first().alias("device_name"))
    )
    identity = identity.join(names, on=list(KERNEL_KEY), how="left")
    aliases = alias_rows()
    known = metrics.filter(pl.col("metric").is_in([row["metric"] for row in aliases]))
    _check_known_values(path, known, aliases)
    if known.height:
        # One column per ncu name present, then each kernel-table column is the first
        # alias (in priority order) that has a value: n/a in a preferred spelling falls
        # through to the next one.
        by_name = known.pivot(
            on="metric", index=list(KERNEL_KEY), values="value", aggregate_function="first"
        )
        present = set(by_name.columns)
        columns = []
        for metric in METRIC_COLUMNS:
            spellings = [a for a in metric.aliases if a in present]
            if spellings:
                columns.append(pl.coalesce(spellings).alias(metric.column))
        wide = by_name.select(*KERNEL_KEY, *columns)
    else:
        wide = identity.select(KERNEL_KEY)
    table = identity.join(wide, on=list(KERNEL_KEY), how="left")
    table = table.with_columns(
        pl.lit(None, pl.Float64).alias(name)
        for name in METRIC_COLUMN_NAMES
        if name not in table.columns
    )
    return table.select(pl.col(name).cast(dtype) for name, dtype in KERNEL_SCHEMA.items()).sort(
        KERNEL_KEY
    )


def _with_nvtx(identity: pl.DataFrame) -> pl.DataFrame:
    # Parse each distinct cell once: a step has thousands of kernels but few range stacks.
    def parse(column: str, parser: object) -> pl.Expr:
        cells = identity[f"{column}_text"].fill_null("").unique().to_list()
        mapping = {cell: parser(cell) for cell in cells}  # type: ignore[operator]
        return (
            pl.col(f"{column}_text")
            .fill_null("")
            .replace_strict(list(mapping), list(mapping.values()), return_dtype=pl.List(pl.String))
            .alias(column)
        )

    identity = identity.with_columns(
        parse("nvtx_push_pop", push_pop_ranges), parse("nvtx_start_stop", start_stop_ranges)
    )
    innermost = (
        pl.when(pl.col("nvtx_push_pop").list.len() > 0)
        .then(pl.col("nvtx_push_pop").list.last())
        .otherwise(pl.col("nvtx_start_stop").list.last())
    )
    return identity.with_columns(innermost.alias("nvtx_range"))


def _check_one_kind_of_device(path: Path, kernels: pl.DataFrame) -> None:
    """Several GPUs of one kind (a data-parallel job) sum to a step; two kinds do not: their
    kernels sit under different roofs."""
    for column, what in (("cc", "compute capabilities"), ("device_name", "device names")):
        kinds = (
            kernels.filter(pl.col(column).is_not_null() & (pl.col(column) != ""))
            .unique(column, keep="first")
            .sort("line")
        )
        if kinds.height > 1:
            second = kinds.row(1, named=True)
            values = ", ".join(str(v) for v in kinds[column].to_list())
            raise UserError(
                f"the export mixes {what} ({values}): kernels of different GPUs cannot share "
                "one roofline",
                file=path,
                line=second["line"],
                fix="export each GPU's kernels to its own file (ncu --devices N, or filter the "
                "report by device when exporting)",
            )


def _check_known_values(path: Path, known: pl.DataFrame, aliases: list[dict[str, object]]) -> None:
    """Every value of a mapped metric must be a finite, non-negative number (or missing) in
    a unit of the metric's dimension, and each kernel has one value per metric. One cheap
    pass finds whether anything is wrong; the slow path only runs to name the line."""
    value, text = pl.col("value"), pl.col("value_text")
    unparsed = value.is_null() & text.is_not_null()
    flags = known.select(
        unparsed.any().alias("unparsed"),
        (value.is_nan() | value.is_infinite()).any().alias("not_finite"),
        (value < 0).any().alias("negative"),
    ).row(0, named=True)
    if flags["unparsed"]:
        candidates = known.filter(unparsed)
        stripped = candidates["value_text"].str.strip_chars()
        not_number = candidates.filter(~stripped.is_in(MISSING_VALUES))
        if not_number.height:
            row = not_number.row(0, named=True)
            raise UserError(
                f"metric {row['metric']} has the value {row['value_text']!r}, which is not a number",
                file=path,
                line=row["line"],
                fix="values must be numbers (thousands separators allowed), 'n/a' or empty",
            )

    def first_line(condition: pl.Expr) -> dict[str, Any]:
        return known.filter(condition).sort("line").row(0, named=True)

    if flags["not_finite"]:
        row = first_line(value.is_nan() | value.is_infinite())
        shown = (
            row["value_text"] if len(row["value_text"]) <= 40 else row["value_text"][:37] + "..."
        )
        raise UserError(
            f"metric {row['metric']} has the value {shown!r}, which is not a finite number",
            file=path,
            line=row["line"],
            fix="ncu writes counters as finite numbers or n/a; the file was edited or damaged",
        )
    if flags["negative"]:
        row = first_line(value < 0)
        raise UserError(
            f"metric {row['metric']} has the negative value {row['value_text']!r}: counts, bytes, "
            "times, clocks and percentages cannot be negative",
            file=path,
            line=row["line"],
            fix="re-export the file; a negative value means it was edited or damaged",
        )
    dimension = {str(row["metric"]): str(row["dimension"]) for row in aliases}
    dims = known.select("metric", "base_unit", "line").unique(
        ["metric", "base_unit"], keep="first", maintain_order=True
    )
    for row in dims.iter_rows(named=True):
        if row["base_unit"] not in DIMENSIONS[dimension[row["metric"]]]:
            raise UserError(
                f"metric {row['metric']} is in {row['base_unit']!r}, "
                f"which is not a unit of {dimension[row['metric']]}",
                file=path,
                line=row["line"],
                fix="re-export the file; a unit column that does not match its metric "
                "would silently change every number built on it",
            )
    pairs = known.select(pl.struct([*KERNEL_KEY, "metric"]).n_unique()).item()
    if pairs == known.height:
        return  # no kernel repeats a metric: nothing can conflict
    conflicts = (
        known.filter(pl.col("value").is_not_null())
        .group_by([*KERNEL_KEY, "metric"])
        .agg(pl.col("value").n_unique().alias("values"), pl.col("line").max())
        .filter(pl.col("values") > 1)
        .sort("line")
    )
    if conflicts.height:
        row = conflicts.row(0, named=True)
        raise UserError(
            f"kernel ID {row['kernel_id']} (process {row['process_id']}) has "
            f"{row['values']} different values for {row['metric']}",
            file=path,
            line=row["line"],
            fix="each kernel ID must appear once per metric; two exports may have been "
            "concatenated: export them separately",
        )
