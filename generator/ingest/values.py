"""Values in SI base units, and the checks every value the analysis uses must pass.

Only metrics the analysis reads (the metric map) need a unit this module knows; any other
metric keeps its unit string and its number unconverted, so that a new ncu's new unit
(`pass`, say) never rejects a file for a metric nothing here uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from generator.errors import UserError
from generator.ingest.metric_map import KEY_DTYPE, metric_key
from generator.ingest.schema import KERNEL_KEY, MISSING_VALUES
from generator.ingest.units import known_unit_examples, parse_unit


def convert_values(
    path: Path, long: pl.DataFrame, units_line: int | None = None
) -> tuple[pl.DataFrame, str | None]:
    """Numbers in SI base units; ids as integers. Errors name the first offending line
    (`units_line`: the raw layout's units row, where its units are written).

    Returns the table and a note naming the metrics kept in a unit this module does not
    know (their number unconverted, their unit as written), or None."""
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
    unknown = []
    for text in units:
        unit = parse_unit(text)
        if unit is None:
            unknown.append(text)
            unit_rows.append({"unit": text, "factor": 1.0, "base_unit": text})
        else:
            unit_rows.append({"unit": text, "factor": unit.factor, "base_unit": unit.base})
    note = _unknown_units(path, long, unknown, units_line) if unknown else None
    unit_table = pl.DataFrame(
        unit_rows,
        schema={"unit": pl.Categorical, "factor": pl.Float64, "base_unit": pl.Categorical},
    )
    # n/a and empty cells fail the cast and become null, as missing values must;
    # check_known_values tells them from text that is no number at all.
    number = (
        pl.col("value_text")
        .str.replace_all(",", "", literal=True)
        .str.strip_chars()
        .cast(pl.Float64, strict=False)
    )
    converted = (
        long.join(unit_table, on="unit", how="left")
        .with_columns((number * pl.col("factor")).alias("value"))
        .drop("factor")
    )
    return converted, note


def _unknown_units(
    path: Path, long: pl.DataFrame, unknown: list[str], units_line: int | None
) -> str:
    """An unknown unit on a metric the analysis reads stops the parse (its number would mean
    nothing); on any other metric it is kept as written, and the note says which."""
    rows = long.filter(pl.col("unit").is_in(unknown))
    used = rows.filter(metric_key().is_not_null())
    if used.height:
        row = used.sort("line").row(0, named=True)
        where = "the units row gives" if units_line is not None else "the row gives"
        raise UserError(
            f"{where} metric {row['metric']} the unknown unit {row['unit']!r}",
            file=path,
            line=units_line if units_line is not None else row["line"],
            fix=f"units of the metrics the analysis reads must be ncu's "
            f"({known_unit_examples()}); file an issue if ncu wrote this one",
        )
    kept = rows.unique(["metric", "unit"], keep="first", maintain_order=True)
    named = [f"{r['metric']} ({r['unit']})" for r in kept.head(6).iter_rows(named=True)]
    more = f" and {kept.height - 6} more" if kept.height > 6 else ""
    return (
        f"kept in their own unit, unconverted (the analysis does not read them): "
        f"{', '.join(named)}{more}"
    )


def repeats_a_metric(known: pl.DataFrame) -> bool:
    """Whether some kernel has two rows for one metric-map key. One integer per (kernel, key)
    pair: counting distinct integers is far cheaper than distinct structs."""
    codes = len(KEY_DTYPE.categories)
    pair = pl.col("kernel_id") * codes + pl.col("key").to_physical().cast(pl.Int64)
    if known["process_id"].n_unique() > 1:
        pair = pl.struct(pl.col("process_id"), pair)
    return bool(known.select(pair.n_unique()).item() < known.height)


def check_known_values(path: Path, known: pl.DataFrame, repeats: bool) -> None:
    """Every value of a mapped metric must be a finite, non-negative number (or missing),
    and each kernel has one value per metric (units: `check_units`). One cheap
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
    if not repeats:
        return  # no kernel repeats a metric: nothing can conflict
    conflicts = (
        known.filter(pl.col("value").is_not_null())
        .group_by([*KERNEL_KEY, "key"])
        .agg(
            pl.col("value").n_unique().alias("values"),
            pl.col("line").max(),
            pl.col("metric").first(),
        )
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
