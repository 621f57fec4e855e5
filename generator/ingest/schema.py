"""The shapes every ncu export is read into: the kernel table, the long metric table, and
the `NcuExport` that carries both."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl
from polars._typing import PolarsDataType

from generator.ingest.metric_map import METRIC_COLUMN_NAMES

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
    "invocations": pl.Int64,  # launches a row stands for (>1 only in per-kernel summaries)
    "line": pl.Int64,
    # kernel-table columns rebuilt from a rate ncu stored in place of the count
    # (metric_map.RATES_OF_COUNTS); empty where every number was a count in the file
    "counts_rebuilt": pl.List(pl.String),
}
_METRIC_COLUMN_TYPES: dict[str, PolarsDataType] = {name: pl.Float64 for name in METRIC_COLUMN_NAMES}
KERNEL_SCHEMA = pl.Schema({**_IDENTITY_TYPES, **_METRIC_COLUMN_TYPES})
_METRIC_ROW_TYPES: dict[str, PolarsDataType] = {
    "process_id": pl.Int64,
    "kernel_id": pl.Int64,
    # Text that repeats over rows is categorical: a million-row export holds a few hundred
    # distinct metric names, units and sections.
    "section": pl.Categorical(),
    "label": pl.Categorical(),
    "metric": pl.Categorical(),
    "unit": pl.Categorical(),
    "value_text": pl.String,
    "value": pl.Float64,  # in base_unit; null when missing or not a number
    "base_unit": pl.Categorical(),
    "line": pl.Int64,
}
METRIC_SCHEMA = pl.Schema(_METRIC_ROW_TYPES)


@dataclass(frozen=True)
class NcuExport:
    """One parsed export."""

    path: Path
    layout: str  # "long", "raw" or "summary" (`--print-summary per-kernel`)
    kernels: pl.DataFrame  # KERNEL_SCHEMA, sorted by process_id, kernel_id
    metrics: pl.DataFrame  # METRIC_SCHEMA, in file order
    preamble_lines: int  # lines before the header (==PROF==, program output)
    # What the ingest did that a reader should know, said once each: metrics kept in their
    # own unit, profiling passes joined into one set of launches, launches summarised.
    notes: tuple[str, ...] = ()
    # The file's content digest with the parser's and metric map's versions, when it came
    # through the parse cache (ingest/cache.py); "" when parsed directly.
    content_key: str = ""
