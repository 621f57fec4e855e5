"""What both rocprofv3 readers make, and the pieces they share: the export, the counters' table, one
dispatch appended to a timeline."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from generator.ingest.nsys.sqlite import Activity, SqliteExport

FORM = "rocprofv3 JSON"
GZIP_MAGIC = b"\x1f\x8b"
HEAD_BYTES = 4096  # the sniff reads no more than this (unzipped) of the file
PROFILE_FIX = (
    "profile again and keep the whole file: rocprofv3 --runtime-trace --output-format json "
    "-- APP (kernels, copies, HIP calls and roctx ranges; a run cut short writes no JSON)"
)
COUNTER_SCHEMA = {
    "kernel": pl.String,
    "counter": pl.String,
    "dispatches": pl.Int64,
    "total": pl.Float64,
    "mean": pl.Float64,
}


@dataclass(frozen=True)
class RocprofExport:
    """What a rocprofv3 JSON holds that the capture uses: its timeline, the counters
    collected per kernel (empty without `--pmc`) and each process's command line."""

    export: SqliteExport
    counters: pl.DataFrame  # COUNTER_SCHEMA, one row per kernel name and counter
    commands: tuple[str, ...] = ()


def append(
    activity: Activity, name: str, start: float, end: float, device: int, size: float, link: int
) -> None:
    activity.name.append(name)
    activity.start.append(start)
    activity.end.append(end)
    activity.device.append(device)
    activity.bytes.append(size)
    activity.correlation.append(link)


def counter_frame(rows: list[tuple[str, str, float]]) -> pl.DataFrame:
    frame = pl.DataFrame(
        rows, schema={"kernel": pl.String, "counter": pl.String, "value": pl.Float64},
        orient="row",
    )  # fmt: skip
    return (
        frame.group_by("kernel", "counter")
        .agg(
            pl.len().cast(pl.Int64).alias("dispatches"),
            pl.col("value").sum().alias("total"),
            pl.col("value").mean().alias("mean"),
        )
        .select(list(COUNTER_SCHEMA))
        .sort("counter", "total", "kernel", descending=[False, True, False])
    )
