"""Read an Nsight Compute CSV export with Polars: the long layout (`--csv`), the wide one
(`--page raw --csv`) and the per-kernel summary (`--print-summary per-kernel --csv`).

Result: a tidy kernel table (one row per kernel launch, known metrics in SI base units) and
the long metric table with every row of the file, unknown metrics included. Any malformed
input raises `UserError` naming the file and line; nothing is written anywhere. The stages
live in their own modules: header, frames, layouts, values, passes.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from generator.errors import UserError
from generator.ingest.frames import (
    DEFAULT_MEMORY_BUDGET,
    IN_MEMORY_FACTOR,
    default_memory_budget,
    parse_size,
    read_frame,
)
from generator.ingest.header import find_header
from generator.ingest.layouts import is_summary, long_rows, raw_to_long, summary_rows
from generator.ingest.metric_map import (
    ADDITIVE_COLUMNS,
    METRIC_COLUMN_NAMES,
    METRIC_COLUMNS,
    RATES_OF_COUNTS,
    metric_key,
)
from generator.ingest.metric_units import check_units
from generator.ingest.nvtx import push_pop_ranges, start_stop_ranges
from generator.ingest.passes import join_passes
from generator.ingest.schema import (
    DEVICE_NAME_METRIC,
    IDENTITY_COLUMNS,
    KERNEL_KEY,
    KERNEL_SCHEMA,
    METRIC_SCHEMA,
    NcuExport,
)
from generator.ingest.values import check_known_values, convert_values, repeats_a_metric

__all__ = [
    "DEFAULT_MEMORY_BUDGET",
    "IN_MEMORY_FACTOR",
    "KERNEL_SCHEMA",
    "METRIC_SCHEMA",
    "PARSER_VERSION",
    "NcuExport",
    "default_memory_budget",
    "parse_size",
    "read_ncu_csv",
]

# Bump when parsing changes what a file turns into: cached parses are keyed by it.
PARSER_VERSION = 4  # 4: counts rebuilt from rates (counts_rebuilt)


def read_ncu_csv(path: str | Path, memory_budget: int | None = None) -> NcuExport:
    """Parse one ncu CSV export. Raises UserError on anything malformed.

    A file whose in-memory parse would need more than `memory_budget` bytes (default:
    `default_memory_budget()`) is streamed through a temporary Parquet file."""
    path = Path(path)
    header = find_header(path)
    frame = read_frame(path, header.index, memory_budget)
    header_line = header.index + 1  # 1-based line number of the header
    units_line = None
    notes: list[str] = []
    if is_summary(frame):
        long = summary_rows(path, frame, header_line)
        layout = "summary"
        notes.append(
            "a per-kernel summary: each row stands for all launches of one kernel and launch "
            "shape (counts, bytes and times are the average times Invocations)"
        )
    elif "Metric Name" in frame.columns:
        long = long_rows(path, frame, header_line)
        layout = "long"
    else:
        long = raw_to_long(path, frame, header_line)
        layout = "raw"
        units_line = header_line + 1
    return export_from_long(path, layout, long, units_line, header.index, tuple(notes))


def export_from_long(
    path: Path,
    layout: str,
    long: pl.DataFrame,
    units_line: int | None = None,
    preamble_lines: int = 0,
    notes: tuple[str, ...] = (),
) -> NcuExport:
    """Everything after the layout: values in SI units, passes joined, the kernel table with
    its rebuilt counts, one kind of device. Every reader of ncu's results ends here, the
    binary report's (ingest/ncu_rep.py) included, so both give the same tables."""
    metrics, unconverted = convert_values(path, long, units_line)
    metrics, joined = join_passes(metrics)
    kernels, unit_notes = _kernel_table(path, metrics)
    _check_one_kind_of_device(path, kernels)
    return NcuExport(
        path=path,
        layout=layout,
        kernels=kernels,
        metrics=metrics.select(METRIC_SCHEMA.names()),
        preamble_lines=preamble_lines,
        notes=tuple(
            n for n in (*notes, unconverted, *unit_notes, joined, rebuilt_note(kernels)) if n
        ),
    )


def rebuilt_note(kernels: pl.DataFrame) -> str | None:
    """What was rebuilt from rates, said once: which columns, for how many kernels."""
    rebuilt = kernels.select(pl.col(REBUILT_COLUMN).explode().drop_nulls().value_counts())
    if rebuilt.is_empty():
        return None
    counts = rebuilt.unnest(REBUILT_COLUMN).sort(REBUILT_COLUMN)
    named = ", ".join(
        f"{row[REBUILT_COLUMN]} ({row['count']})" for row in counts.iter_rows(named=True)
    )
    return (
        "rebuilt from the rates ncu stored in place of counts (rate × SM cycles elapsed, or × "
        f"duration; kernels in brackets): {named}"
    )


def _kernel_table(path: Path, metrics: pl.DataFrame) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """One row per launch (per launch shape in a summary), known metrics as columns; and the
    notes on units reconciled or set aside (`metric_units.check_units`)."""
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
    launches = (
        metrics.group_by(KERNEL_KEY).agg(pl.col("invocations").first())
        if "invocations" in metrics.columns
        else identity.select(*KERNEL_KEY, pl.lit(1, pl.Int64).alias("invocations"))
    )
    identity = identity.join(launches, on=list(KERNEL_KEY), how="left")
    known = metrics.with_columns(metric_key()).filter(pl.col("key").is_not_null())
    repeats = repeats_a_metric(known)  # some kernel has two rows for one metric
    check_known_values(path, known, repeats)
    known, unit_notes = check_units(path, known)
    if known.height:
        # One column per metric-map key present, then each kernel-table column is the first
        # alias (in priority order) that has a value: n/a in a preferred spelling falls
        # through to the next one.
        # Without repeated (kernel, key) rows the pivot needs no aggregation: much cheaper.
        by_name = known.pivot(
            on="key",
            index=list(KERNEL_KEY),
            values="value",
            aggregate_function="first" if repeats else None,
        )
        present = set(by_name.columns)
        columns = []
        for metric in METRIC_COLUMNS:
            spellings = [a for a in metric.aliases if a in present]
            if spellings:
                columns.append(pl.coalesce(spellings).alias(metric.column))
        rates = [r.rate for r in RATES_OF_COUNTS if r.rate in present]
        wide = _rebuild_counts(by_name.select(*KERNEL_KEY, *columns, *rates))
    else:
        wide = identity.select(KERNEL_KEY)
    table = identity.join(wide, on=list(KERNEL_KEY), how="left")
    none: pl.Expr = pl.lit([], pl.List(pl.String))
    rebuilt = pl.col(REBUILT_COLUMN).fill_null(none) if REBUILT_COLUMN in table.columns else none
    table = table.with_columns(rebuilt.alias(REBUILT_COLUMN))
    table = table.with_columns(
        pl.lit(None, pl.Float64).alias(name)
        for name in METRIC_COLUMN_NAMES
        if name not in table.columns
    )
    if table["invocations"].max() != 1:  # a summary row stands for all its launches
        table = table.with_columns(pl.col(c) * pl.col("invocations") for c in ADDITIVE_COLUMNS)
    table = table.select(pl.col(name).cast(dtype) for name, dtype in KERNEL_SCHEMA.items())
    return table.sort(KERNEL_KEY), unit_notes


REBUILT_COLUMN = "counts_rebuilt"  # the kernel-table columns rebuilt from rates, per kernel


def _rebuild_counts(wide: pl.DataFrame) -> pl.DataFrame:
    """Counts the export stores only as rates, rebuilt where the kernel has no count: ncu's own
    rule (the rate times the SM cycles elapsed, or times the duration). A rebuilt count is
    recorded per kernel in `counts_rebuilt`, so a reader is told which numbers are derived."""
    cycles = pl.coalesce(
        pl.col("sm_cycles") if "sm_cycles" in wide.columns else pl.lit(None, pl.Float64),
        _product("sm_clock_hz", "gpu_time_s", wide),
    )
    duration = pl.col("gpu_time_s") if "gpu_time_s" in wide.columns else pl.lit(None, pl.Float64)
    counts: list[pl.Expr] = []
    flags: list[pl.Expr] = []
    for rate in RATES_OF_COUNTS:
        if rate.rate not in wide.columns:
            continue
        value = pl.col(rate.rate) * (cycles if rate.per == "cycle" else duration)
        own = pl.col(rate.column) if rate.column in wide.columns else pl.lit(None, pl.Float64)
        missing = own.is_null()
        if rate.counted_by and all(c in wide.columns for c in rate.counted_by):
            missing = missing & pl.any_horizontal(pl.col(c).is_null() for c in rate.counted_by)
        rebuild = missing & value.is_not_null()
        counts.append(pl.when(rebuild).then(value).otherwise(own).alias(rate.column))
        flags.append(pl.when(rebuild).then(pl.lit(rate.column)))
    names = pl.concat_list(flags).list.drop_nulls() if flags else pl.lit([], pl.List(pl.String))
    # One with_columns: every expression reads the columns as they were before the rebuild.
    return wide.with_columns(*counts, names.alias(REBUILT_COLUMN)).drop(
        [r.rate for r in RATES_OF_COUNTS if r.rate in wide.columns]
    )


def _product(left: str, right: str, frame: pl.DataFrame) -> pl.Expr:
    if left in frame.columns and right in frame.columns:
        return pl.col(left) * pl.col(right)
    return pl.lit(None, pl.Float64)


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
