"""One Nsight Systems capture as typed tables, whichever form the user has: the SQLite
export (every event, so a timeline), one or several `nsys stats` reports of the same
capture, CSV or JSON (sums only), or rocprofv3's JSON or kernel trace CSV. Told apart by
content through the input formats registry (`ingest/formats.py`), never by file name."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import polars as pl

from generator.errors import UserError
from generator.ingest.formats import InputFormat, is_capture, sniff
from generator.ingest.nsys.sqlite import Activity, SqliteExport
from generator.ingest.nsys.stats_csv import KNOWN_FIX, REPORT_NAMES, StatsReport
from generator.ingest.rocprof import RocprofExport

KERNEL_SCHEMA = {"name": pl.String, "count": pl.Int64, "time_s": pl.Float64}
COPY_SCHEMA = {"operation": pl.String, "count": pl.Int64, "time_s": pl.Float64, "bytes": pl.Float64}
API_SCHEMA = {"name": pl.String, "count": pl.Int64, "time_s": pl.Float64}
RANGE_SCHEMA = {"range": pl.String, "count": pl.Int64, "time_s": pl.Float64}
# "[CUDA memcpy HtoD]" (before 2023) and "[CUDA memcpy Host-to-Device]" name one direction
DIRECTIONS = {
    "htod": "Host-to-Device",
    "dtoh": "Device-to-Host",
    "dtod": "Device-to-Device",
    "htoh": "Host-to-Host",
    "ptop": "Peer-to-Peer",
}


@dataclass(frozen=True)
class Words:
    """How pages and summaries name what the capture's tool recorded."""

    tool: str  # "Nsight Systems", "rocprofv3"
    api: str  # "CUDA API", "HIP API"
    ranges: str  # "NVTX", "roctx"
    trace: str  # the command line that traces the GPU's work
    kernel_profiler: str  # the tool that gives one kernel's roofline point


NSYS_WORDS = Words(
    "Nsight Systems", "CUDA API", "NVTX", "nsys profile --trace=cuda,nvtx ...",
    "Nsight Compute (ncu)",
)  # fmt: skip
ROCPROF_WORDS = Words(
    "rocprofv3", "HIP API", "roctx",
    "rocprofv3 --runtime-trace --output-format json -- APP",
    "rocprof-compute (Omniperf)",
)  # fmt: skip


@dataclass(frozen=True)
class NsysCapture:
    files: tuple[Path, ...]
    form: str  # its format's name: "SQLite export", "nsys stats CSV", "rocprofv3 JSON", ...
    # what was read (CSV) or traced (SQLite): kernels, api, memtime, memsize, nvtx
    reports: tuple[str, ...]
    kernels: pl.DataFrame  # KERNEL_SCHEMA, one row per kernel name
    copies: pl.DataFrame  # COPY_SCHEMA, one row per direction (and memset)
    api: pl.DataFrame  # API_SCHEMA
    ranges: pl.DataFrame  # RANGE_SCHEMA: NVTX ranges, their count and summed duration
    events: SqliteExport | None  # the timeline, from an SQLite export only
    gpus: dict[int, str]  # device id -> name (SQLite export only)
    # rocprofv3 --pmc: kernel, counter, dispatches, total, mean (None: not a rocprofv3 file)
    counters: pl.DataFrame | None = None

    @property
    def words(self) -> Words:
        return ROCPROF_WORDS if self.form.startswith("rocprofv3") else NSYS_WORDS

    @property
    def gpu_traced(self) -> bool:
        """Whether the files say anything of the GPUs' work (kernels, copies or sets): a
        capture of `nsys profile --trace=nvtx,osrt` says nothing, which is not idle."""
        return bool({"kernels", "memtime", "memsize"} & set(self.reports))


def operation(text: str) -> str:
    """A memory operation's direction in today's words: 'Host-to-Device', 'memset'."""
    inner = text.strip().strip("[]").removeprefix("CUDA ").strip()
    if inner.lower().startswith("memset"):
        return "memset"
    words = re.sub(r"^memcpy\s+", "", inner, flags=re.IGNORECASE)
    return DIRECTIONS.get(words.lower().replace(" ", ""), words)


def is_nsys(path: Path) -> bool:
    """A file of a timeline capture that is read as it is, by content (`formats.CAPTURE`)."""
    return is_capture(path)


def nsys_files(paths: Sequence[Path]) -> list[Path]:
    """The files of the capture: each given, and the nsys files of each folder given."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.iterdir() if is_nsys(p))
        else:
            files.append(path)
    return files


def _summed(activity: Activity, key: str, schema: Mapping[str, Any]) -> pl.DataFrame:
    frame = pl.DataFrame(
        {key: activity.name, "start": activity.start, "end": activity.end, "bytes": activity.bytes},
        schema={key: pl.String, "start": pl.Float64, "end": pl.Float64, "bytes": pl.Float64},
    )
    return (
        frame.group_by(key)
        .agg(
            pl.len().cast(pl.Int64).alias("count"),
            (pl.col("end") - pl.col("start")).sum().alias("time_s"),
            pl.col("bytes").sum(),
        )
        .select(list(schema))
        .sort("time_s", key, descending=[True, False])
    )


def _whole(read: object, form: str) -> NsysCapture:
    """The capture of a file that holds all of it: an SQLite export, or a rocprofv3 file
    (its timeline read into the export's tables, and its counters)."""
    if isinstance(read, RocprofExport):
        return replace(_from_export(read.export, form), counters=read.counters)
    assert isinstance(read, SqliteExport), form
    return _from_export(read, form)


def _from_export(export: SqliteExport, form: str) -> NsysCapture:
    path = export.path
    copies = _summed(export.copies, "operation", COPY_SCHEMA)
    sets = _summed(export.sets, "operation", COPY_SCHEMA)
    return NsysCapture(
        files=(path,),
        form=form,
        reports=export.traced,
        kernels=_summed(export.kernels, "name", KERNEL_SCHEMA),
        copies=pl.concat([copies, sets]).sort("time_s", "operation", descending=[True, False]),
        api=_summed(export.api, "name", API_SCHEMA),
        ranges=_summed(export.ranges, "range", RANGE_SCHEMA),
        events=export,
        gpus=export.gpus,
    )


def _frame(report: StatsReport | None, key: str, schema: Mapping[str, Any]) -> pl.DataFrame:
    if report is None:
        return pl.DataFrame(schema=schema)
    rows = [{key: r.name, "count": r.count, "time_s": r.total_s} for r in report.rows]
    return pl.DataFrame(rows, schema={key: pl.String, "count": pl.Int64, "time_s": pl.Float64})


def _copies(times: StatsReport | None, sizes: StatsReport | None) -> pl.DataFrame:
    rows: dict[str, dict[str, object]] = {}
    for report, field in ((times, "time_s"), (sizes, "bytes")):
        for row in report.rows if report else ():
            op = operation(row.name)
            entry = rows.setdefault(
                op, {"operation": op, "count": row.count, "time_s": None, "bytes": None}
            )
            entry[field] = row.total_s if field == "time_s" else row.total_bytes
    return pl.DataFrame(list(rows.values()), schema=COPY_SCHEMA)


def _from_reports(files: list[tuple[Path, InputFormat]]) -> NsysCapture:
    """The capture of its stats reports (CSV, JSON or both), one of each kind."""
    by_kind: dict[str, StatsReport] = {}
    for path, found in files:
        assert found.read is not None, found.name
        report = found.read(path)
        assert isinstance(report, StatsReport), found.name
        if report.kind in by_kind:
            raise UserError(
                f"a second {REPORT_NAMES[report.kind]} report (the first is "
                f"{by_kind[report.kind].path.name}): one capture has one of each",
                file=path,
                fix="pass the reports of one capture only, one per report kind",
            )
        by_kind[report.kind] = report
    kernels = _frame(by_kind.get("kernels"), "name", KERNEL_SCHEMA)
    # gpukernsum (before 2023) splits a kernel's rows by grid and block: one row per name
    kernels = (
        kernels.group_by("name")
        .agg(pl.col("count").sum(), pl.col("time_s").sum())
        .sort("time_s", "name", descending=[True, False])
    )
    return NsysCapture(
        files=tuple(path for path, _ in files),
        form=" and ".join(sorted({found.name for _, found in files})),
        reports=tuple(k for k in ("kernels", "api", "memtime", "memsize", "nvtx") if k in by_kind),
        kernels=kernels,
        copies=_copies(by_kind.get("memtime"), by_kind.get("memsize")),
        api=_frame(by_kind.get("api"), "name", API_SCHEMA),
        ranges=_frame(by_kind.get("nvtx"), "range", RANGE_SCHEMA),
        events=None,
        gpus={},
    )


def read_nsys(paths: Sequence[Path]) -> NsysCapture:
    """The capture in `paths`: one file that holds it all (an SQLite export, a rocprofv3
    file), or a capture's stats reports, CSV or JSON (`formats.CAPTURE`)."""
    files = nsys_files(paths)
    if not files:
        raise UserError(
            "no timeline capture: no nsys SQLite export, nsys stats report or rocprofv3 JSON",
            file=", ".join(str(p) for p in paths),
            fix="pass the .sqlite export, the reports of `nsys stats --format csv` (or json), or "
            "rocprofv3's results.json (--output-format json)",
        )
    for path in files:
        if not path.is_file():
            raise UserError("no such file", file=path, fix="check the path")
    formats = [(path, sniff(path)) for path in files]
    read = [(path, found) for path, found in formats if found is not None and is_capture(path)]
    whole = [(path, found) for path, found in read if found.whole]
    if whole:
        path, found = whole[0]
        if len(files) > 1:
            raise UserError(
                f"the {found.name} holds the whole capture: pass it alone",
                file=path,
                fix="summarize that file by itself (one capture per summary or import)",
            )
        assert found.read is not None, found.name
        return _whole(found.read(path), found.name)
    for path, claimed in formats:
        if (path, claimed) not in read:
            raise UserError(
                "not an nsys stats report (CSV or JSON) or SQLite export",
                file=path,
                line=1,
                fix=KNOWN_FIX,
            )
    return _from_reports(read)
