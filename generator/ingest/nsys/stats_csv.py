"""One `nsys stats --format csv` report: which report it is, from its header (never from
its file name), and its rows in base units.

Reports read: the kernel summary (`cuda_gpu_kern_sum`, before 2023 `gpukernsum`, whose
rows may also split by GridXYZ/BlockXYZ), the CUDA API summary (`cuda_api_sum` /
`cudaapisum`), the memory-operation time and size summaries (`cuda_gpu_mem_time_sum` /
`gpumemtimesum`, `cuda_gpu_mem_size_sum` / `gpumemsizesum`) and the NVTX range summary
(`nvtx_sum` / `nvtxsum` / `nvtxppsum`). nsys writes times in ns and sizes in MB, decimal
(a 512,000,000-byte matrix is `512.000`), both converted here. Lines that nsys or a shell
put before the header (`Generating SQLite file ...`, `Processing [...]`) are skipped;
columns that the analysis does not read are kept out, never refused.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path

from generator.errors import UserError

KINDS = ("kernels", "api", "memtime", "memsize", "nvtx")
REPORT_NAMES = {
    "kernels": "cuda_gpu_kern_sum (gpukernsum)",
    "api": "cuda_api_sum (cudaapisum)",
    "memtime": "cuda_gpu_mem_time_sum (gpumemtimesum)",
    "memsize": "cuda_gpu_mem_size_sum (gpumemsizesum)",
    "nvtx": "nvtx_sum (nvtxsum, nvtxppsum)",
}
# Older spellings of the columns read, to the current one.
ALIASES = {
    "time(%)": "time (%)",
    "calls": "num calls",
    "operations": "count",
    "total time": "total time (ns)",
}
SIZE_UNITS = {"b": 1.0, "kb": 1e3, "mb": 1e6, "gb": 1e9}  # nsys's MB is 1e6 bytes
HEAD_BYTES = 1 << 14
SQLITE_MAGIC = b"SQLite format 3\x00"
KNOWN_FIX = (
    "pass the CSV that `nsys stats --report <name> --format csv` writes for one of: "
    + ", ".join(REPORT_NAMES.values())
)


@dataclass(frozen=True)
class StatsRow:
    name: str  # kernel, API call, memory operation or NVTX range
    count: int
    total_s: float | None  # time reports
    total_bytes: float | None  # the size report


@dataclass(frozen=True)
class StatsReport:
    path: Path
    kind: str  # one of KINDS
    rows: tuple[StatsRow, ...]


def column_key(column: str) -> str:
    """A column's name as read: spaces folded, lower case, older spellings mapped."""
    text = re.sub(r"\s+", " ", column.strip().strip('"')).lower()
    return ALIASES.get(text, text)


def _header_at(lines: list[str]) -> int | None:
    """The index of the report's header line: the first that names a total column."""
    for index, line in enumerate(lines):
        lowered = line.lower()
        if "," in line and ("total time" in lowered or re.search(r"total \((k|m|g)?b\)", lowered)):
            return index
    return None


def looks_like_stats_csv(path: Path) -> bool:
    """An nsys stats CSV report, by content: a header with a total-time or total-size
    column in its first lines."""
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError:
        return False
    if head.startswith(SQLITE_MAGIC) or b"\x00" in head:
        return False
    lines = head.decode("utf-8", "replace").splitlines()[:20]
    index = _header_at(lines)
    header = lines[index].lower() if index is not None else ""
    return any(word in header for word in ("name", "operation", "range"))


def report_kind(columns: list[str]) -> str | None:
    """Which report the columns (`column_key`s) are, by its columns alone."""
    have = set(columns)
    if "range" in have and "instances" in have:
        return "nvtx"
    if "operation" in have:
        if "total time (ns)" in have:
            return "memtime"
        if any(re.fullmatch(r"total \((k|m|g)?b\)", c) for c in have):
            return "memsize"
    if "name" in have and "num calls" in have:
        return "api"
    if "name" in have and "instances" in have and "total time (ns)" in have:
        return "kernels"
    return None


def _number(text: str, path: Path, line: int, column: str) -> float:
    """A total or a count: a finite number, not below zero (nsys writes no other)."""
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        value = float("nan")
    if math.isfinite(value) and value >= 0:
        return value
    raise UserError(
        f"{column!r} is {text!r}, not a number of zero or more",
        file=path,
        line=line,
        key=column,
        fix="export the report again with `nsys stats --format csv`; do not edit it",
    )


def read_stats_csv(path: Path) -> StatsReport:
    """The report's rows. Raises UserError (file, line, column, fix) for a file that is not
    one of the reports read, or whose numbers are not numbers."""
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as err:
        raise UserError(f"cannot read the report: {err.strerror}", file=path) from err
    lines = text.splitlines()
    start = _header_at(lines[:50])
    if start is None:
        raise UserError(
            "not an nsys stats CSV report: no header with 'Total Time (ns)' or 'Total (MB)' "
            "in its first lines",
            file=path,
            line=1,
            fix=KNOWN_FIX,
        )
    reader = csv.reader(io.StringIO("\n".join(lines[start:])))
    header = next(reader)
    columns = [column_key(c) for c in header]
    kind = report_kind(columns)
    if kind is None:
        raise UserError(
            f"an nsys stats report of a kind not read here (columns: {', '.join(header)})",
            file=path,
            line=start + 1,
            fix=KNOWN_FIX,
        )
    name_column, count_column = columns_read(kind)
    size_column = next((c for c in columns if re.fullmatch(r"total \((k|m|g)?b\)", c)), None)
    at = {c: i for i, c in enumerate(columns)}
    for needed in (name_column, count_column):
        if needed not in at:
            raise UserError(
                f"the {REPORT_NAMES[kind]} report has no {needed!r} column "
                f"(columns: {', '.join(header)})",
                file=path,
                line=start + 1,
                fix="export the report again with `nsys stats --format csv`; do not edit it",
            )
    rows = []
    for offset, cells in enumerate(reader, start=start + 2):
        if not cells or all(not c.strip() for c in cells):
            continue
        if len(cells) < len(columns):
            raise UserError(
                f"the row has {len(cells)} fields, the header {len(columns)}",
                file=path,
                line=offset,
                fix="the file was cut short or edited; export the report again",
            )
        count = _number(cells[at[count_column]], path, offset, header[at[count_column]])
        if count >= 2**53:
            raise UserError(
                f"{header[at[count_column]]!r} is {cells[at[count_column]]!r}, not a count",
                file=path,
                line=offset,
                key=header[at[count_column]],
                fix="export the report again with `nsys stats --format csv`; do not edit it",
            )
        total_s = total_bytes = None
        if "total time (ns)" in at:
            total_s = _number(cells[at["total time (ns)"]], path, offset, "Total Time (ns)") * 1e-9
        if size_column is not None:
            unit = size_column.removeprefix("total (").removesuffix(")")
            value = _number(cells[at[size_column]], path, offset, header[at[size_column]])
            total_bytes = value * SIZE_UNITS[unit]
        rows.append(
            StatsRow(
                name=cells[at[name_column]],
                count=int(count),
                total_s=total_s,
                total_bytes=total_bytes,
            )
        )
    check_cuda_api(path, kind, rows, line=start + 1)
    return StatsReport(path, kind, tuple(rows))


def columns_read(kind: str) -> tuple[str, str]:
    """The `column_key`s of a report's name and count columns."""
    name = {"nvtx": "range", "memtime": "operation", "memsize": "operation"}.get(kind, "name")
    count = {"api": "num calls", "memtime": "count", "memsize": "count"}.get(kind, "instances")
    return name, count


def check_cuda_api(path: Path, kind: str, rows: list[StatsRow], line: int | None = None) -> None:
    """osrt_sum and the other API summaries share cuda_api_sum's columns: refused."""
    if kind == "api" and rows and not any(r.name.startswith(("cu", "nccl")) for r in rows):
        raise UserError(
            "an API summary of calls that are not CUDA's (e.g. osrt_sum: "
            f"{', '.join(r.name for r in rows[:3])}): not a report read here",
            file=path,
            line=line,
            fix=KNOWN_FIX,
        )
