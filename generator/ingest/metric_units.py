"""The unit of each value the analysis reads, checked against its metric's dimension.

A unit that does not fit is reconciled, set aside, or refused, in that order:
- reconciled where the metric's name fixes the value's meaning (ncu 2020.2.0 labels an
  instruction rate `....per_cycle_elapsed` in 'cycle', its denominator);
- set aside, with a note, where every kernel that has it gets the same kernel-table column
  from another metric whose unit fits (another spelling of the counter, the count a rate
  would rebuild): the analysis does not use it, so a label it cannot read rejects nothing;
- refused, naming the metric, where it is the only source of a number the analysis uses.
Metrics outside the metric map are never read as numbers (`values.convert_values` keeps
them as written), so no unit of theirs can stop a file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from generator.errors import UserError
from generator.ingest.metric_map import (
    DIMENSIONS,
    METRIC_COLUMNS,
    RATES_OF_COUNTS,
    alias_rows,
)
from generator.ingest.schema import KERNEL_KEY

# key -> the kernel-table column it gives, and its dimension
_COLUMN = {str(row["metric"]): str(row["column"]) for row in alias_rows()}
_DIMENSION = {str(row["metric"]): str(row["dimension"]) for row in alias_rows()}
_DESCRIPTION = {m.column: m.description for m in METRIC_COLUMNS}
# A rate is unused where the kernel has its count, or every column that counts it between them.
_RATE_COVERED_BY = {r.rate: (r.column, *r.counted_by) for r in RATES_OF_COUNTS}


def _labelled_by_its_denominator(metric: str, base_unit: str, dimension: str) -> bool:
    """Issue 65: ncu 2020.2.0 labels `..._pred_on.sum.per_cycle_elapsed` (instructions per
    elapsed cycle) in 'cycle', its denominator. The name says what the value is; neither
    unit has a prefix to scale, so the number is the rate as written."""
    return (
        dimension == "inst/cycle"
        and base_unit == "cycle"
        and metric.endswith((".per_cycle_elapsed", ".per_cycle_active"))
    )


def check_units(path: Path, known: pl.DataFrame) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """`known` (the long rows of metric-map keys, with `key` and `base_unit`) less the rows set
    aside, and the notes saying what was reconciled or set aside. UserError where a value the
    analysis uses is in a unit of another dimension."""
    pairs = known.select("key", "metric", "base_unit", "line").unique(
        ["key", "base_unit"], keep="first", maintain_order=True
    )
    reconciled: list[str] = []
    wrong: list[dict[str, Any]] = []
    for row in pairs.iter_rows(named=True):
        key, unit = str(row["key"]), row["base_unit"]
        dimension = _DIMENSION[key]
        if unit in DIMENSIONS[dimension]:
            continue
        if _labelled_by_its_denominator(str(row["metric"]), str(unit), dimension):
            reconciled.append(str(row["metric"]))
        else:
            wrong.append(row)
    notes = []
    if reconciled:
        notes.append(
            "read as instructions per cycle, as their names say, though labelled 'cycle' "
            f"(ncu 2020.2.0 labels these rates by their denominator): {', '.join(reconciled)}"
        )
    if not wrong:
        return known, tuple(notes)
    bad = pl.struct(pl.col("key").cast(pl.String), pl.col("base_unit").cast(pl.String)).is_in(
        [{"key": str(r["key"]), "base_unit": str(r["base_unit"])} for r in wrong]
    )
    kept = known.filter(~bad)
    set_aside = known.filter(bad)
    used = _only_source(kept, set_aside)
    if used.height:
        row = used.sort("line").row(0, named=True)
        key = str(row["key"])
        column = _COLUMN[key]
        raise UserError(
            f"metric {row['metric']} is in {row['base_unit']!r}, which is not a unit of "
            f"{_DIMENSION[key]}, and kernel ID {row['kernel_id']} has no other metric for "
            f"{_DESCRIPTION.get(column, column)}",
            file=path,
            line=row["line"],
            fix="re-export the file; a unit that does not match its metric would silently "
            "change every number built on it. If ncu wrote it so, file an issue naming the "
            "ncu version and the metric",
        )
    named = [
        f"{r['metric']} (in {r['base_unit']!r}, not {_DIMENSION[str(r['key'])]})" for r in wrong
    ]
    notes.append(
        "set aside, their unit not of their metric's dimension, the same numbers read from "
        f"other metrics: {', '.join(named)}"
    )
    return kept, tuple(notes)


def _only_source(kept: pl.DataFrame, set_aside: pl.DataFrame) -> pl.DataFrame:
    """The set-aside rows some kernel would have used: no other metric with a fitting unit
    gives that kernel the same column (for a rate: its count, or every column counting it)."""
    given = (
        kept.filter(pl.col("value").is_not_null())
        .select(
            *KERNEL_KEY,
            pl.col("key").cast(pl.String).replace_strict(_COLUMN, default=None).alias("column"),
        )
        .unique()
        .group_by(KERNEL_KEY)
        .agg(pl.col("column"))
    )
    rows = set_aside.join(given, on=list(KERNEL_KEY), how="left").with_columns(
        pl.col("column").fill_null(pl.lit([], pl.List(pl.String)))
    )
    covered = []
    for row in rows.iter_rows(named=True):
        key = str(row["key"])
        have = set(row["column"])
        if key in _RATE_COVERED_BY:
            count, *counted_by = _RATE_COVERED_BY[key]
            ok = count in have or (bool(counted_by) and set(counted_by) <= have)
        else:
            ok = _COLUMN[key] in have
        covered.append(ok)
    return rows.filter(~pl.Series(covered, dtype=pl.Boolean))
