"""The long (`--csv`), raw (`--page raw --csv`) and per-kernel summary
(`--print-summary per-kernel --csv`) layouts, each turned into one long table: a row per
kernel and metric, with the line it came from."""

from __future__ import annotations

import csv
import itertools
from pathlib import Path

import polars as pl

from generator.errors import UserError
from generator.ingest.nvtx import is_push_pop_column, is_start_stop_column
from generator.ingest.schema import IDENTITY_COLUMNS, KERNEL_KEY, LONG_REQUIRED


def _with_line_numbers(frame: pl.DataFrame, first_line: int) -> pl.DataFrame:
    # One record per line: ncu never writes newlines inside fields.
    return frame.with_row_index("line", offset=first_line).with_columns(
        pl.col("line").cast(pl.Int64)
    )


def long_rows(path: Path, frame: pl.DataFrame, header_line: int) -> pl.DataFrame:
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
        section.cast(pl.Categorical).alias("section"),
        label.cast(pl.Categorical).alias("label"),
        pl.col("Metric Name").cast(pl.Categorical).alias("metric"),
        pl.col("Metric Unit").cast(pl.Categorical).fill_null("").alias("unit"),
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
    """The launch's columns under their own names: IDs as strings (parsed later), the
    repeated text as categoricals, absent columns as nulls."""

    def column(source: str | None, name: str) -> pl.Expr:
        dtype = pl.String if name in KERNEL_KEY else pl.Categorical
        expr = pl.col(source) if source is not None else pl.lit(None)
        return expr.cast(dtype).alias(name)

    exprs = [
        column(src if src in frame.columns else None, dst) for src, dst in IDENTITY_COLUMNS.items()
    ]
    push_pop = [c for c in frame.columns if is_push_pop_column(c)]
    start_stop = [c for c in frame.columns if is_start_stop_column(c)]
    exprs.append(column(push_pop[0] if push_pop else None, "nvtx_push_pop_text"))
    exprs.append(column(start_stop[0] if start_stop else None, "nvtx_start_stop_text"))
    return exprs


def raw_to_long(path: Path, frame: pl.DataFrame, header_line: int) -> pl.DataFrame:
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
        pl.col("metric", "unit").cast(pl.Categorical),
        pl.lit("raw", pl.Categorical).alias("section"),
        pl.lit(None, pl.Categorical).alias("label"),
    )


SUMMARY_STATISTICS = ("Minimum", "Maximum", "Average")
# One summary row stands for every launch of one kernel with one launch shape.
_SUMMARY_KERNEL = ("Process ID", "Kernel Name", "Block Size", "Grid Size", "Device")


def is_summary(frame: pl.DataFrame) -> bool:
    """`--print-summary per-kernel`: no ID column; Minimum/Maximum/Average per metric."""
    return "ID" not in frame.columns and "Average" in frame.columns


def summary_rows(path: Path, frame: pl.DataFrame, header_line: int) -> pl.DataFrame:
    """Each launch shape of each kernel becomes one kernel row standing for `Invocations`
    launches, its metrics the Average over them (the kernel table scales additive ones)."""
    if "Invocations" not in frame.columns:
        raise UserError(
            "this is a `--print-summary` export without an Invocations column: without the "
            "launch count, per-launch averages cannot be summed into a step",
            file=path,
            line=header_line,
            fix="export one row per launch instead: ncu --import REPORT.ncu-rep --csv "
            "(or --page raw --csv), without --print-summary",
        )
    missing = [c for c in ("Kernel Name", "Metric Name", "Metric Unit") if c not in frame.columns]
    if missing:
        raise UserError(
            f"the summary header lacks the column(s) {', '.join(missing)}",
            file=path,
            line=header_line,
            fix="export with `ncu --csv --print-summary per-kernel`, or one row per launch "
            "without --print-summary",
        )
    invocations = pl.col("Invocations").str.replace_all(",", "").str.strip_chars()
    bad = _with_line_numbers(frame, header_line + 1).filter(
        invocations.cast(pl.Int64, strict=False).fill_null(0) < 1
    )
    if bad.height:
        row = bad.row(0, named=True)
        raise UserError(
            f"Invocations {row['Invocations']!r} is not a positive integer",
            file=path,
            line=row["line"],
            fix="re-export the file; ncu writes the launch count of each summarised kernel",
        )
    # Kernel ids in order of first appearance, one per launch shape.
    shape = [c for c in _SUMMARY_KERNEL if c in frame.columns]
    order = (
        frame.select(shape)
        .unique(maintain_order=True)
        .with_row_index("ID")
        .with_columns(pl.col("ID").cast(pl.String))
    )
    frame = frame.join(order, on=shape, how="left", nulls_equal=True, maintain_order="left")
    rows = long_rows(path, frame.rename({"Average": "Metric Value"}), header_line)
    per_kernel = frame.select(
        pl.col("ID").alias("kernel_id"), invocations.cast(pl.Int64).alias("invocations")
    ).unique("kernel_id")
    return rows.join(per_kernel, on="kernel_id", how="left", maintain_order="left")
