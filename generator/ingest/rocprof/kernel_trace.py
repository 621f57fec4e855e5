"""rocprofv3's kernel trace CSV (`--output-format csv`: `<pid>_kernel_trace.csv`): its rows'
`Kernel_Name`, `Agent_Id` ("Agent 2", rocprofv3's agent number: the device) and
`Start_Timestamp`/`End_Timestamp`. It names no GPU (that is in `agent_info.csv`), so an import
of it needs `--device`."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import replace
from pathlib import Path

from generator.errors import UserError
from generator.ingest.nsys.sqlite import Activity, SqliteExport
from generator.ingest.rocprof.records import (
    HEAD_BYTES,
    PROFILE_FIX,
    RocprofExport,
    append,
    counter_frame,
)

CSV_FORM = "rocprofv3 kernel trace CSV"
CSV_COLUMNS = ("Kind", "Agent_Id", "Kernel_Name", "Start_Timestamp", "End_Timestamp")
AGENT = re.compile(r"^(?:agent\s*)?(\d+)$", re.IGNORECASE)


def _header(path: Path) -> list[str]:
    """The first line of a CSV file, as fields ([] if it is not text)."""
    try:
        with path.open("rb") as handle:
            line = handle.readline(HEAD_BYTES).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return []
    try:
        return next(csv.reader([line.strip()]), [])
    except csv.Error:
        return []


def looks_like_rocprofv3_csv(path: Path) -> bool:
    """rocprofv3's kernel trace CSV, by its header line alone."""
    return set(CSV_COLUMNS) <= set(_header(path))


def _agent_number(text: str) -> int | None:
    match = AGENT.match(text.strip())
    return int(match.group(1)) if match else None


def read_rocprofv3_csv(path: Path) -> RocprofExport:
    """The kernel dispatches of a rocprofv3 kernel trace CSV. Raises UserError for a row
    that is no dispatch's time span, or a file with no dispatch."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as err:
        raise UserError(f"cannot read the file: {err}", file=path, fix="check the path") from err
    except UnicodeDecodeError as err:
        raise UserError(
            f"not UTF-8 text ({err})", file=path, fix="pass rocprofv3's kernel_trace.csv as written"
        ) from err
    export = SqliteExport(path, Activity(), Activity(), Activity(), Activity(), Activity(), {})
    rows = csv.DictReader(io.StringIO(text, newline=""))
    records: list[tuple[int, dict[str, str]]] = []
    try:
        for row in rows:
            records.append((rows.line_num, row))  # the row's last line, as a reader counts
    except csv.Error as err:
        raise UserError(
            f"line {rows.line_num}: the row is malformed ({err})",
            file=path,
            line=rows.line_num,
            fix="the file is damaged; " + PROFILE_FIX,
        ) from err
    origin: int | None = None
    for line, row in records:
        if (row.get("Kind") or "").strip() != "KERNEL_DISPATCH":
            continue  # another record kind in a later version: not a dispatch
        # stripped once: str.strip() drops characters int() does not (\x1c to \x1f)
        start, end = ((row.get(k) or "").strip() for k in ("Start_Timestamp", "End_Timestamp"))
        device = _agent_number(row.get("Agent_Id") or "")
        if not (start.isdecimal() and end.isdecimal()) or int(end) < int(start):
            raise UserError(
                f"line {line}: Start_Timestamp {start!r}, End_Timestamp {end!r} is no "
                "dispatch's time span",
                file=path,
                line=line,
                key="Start_Timestamp",
                fix="the file is damaged; " + PROFILE_FIX,
            )
        origin = int(start) if origin is None else origin
        name = (row.get("Kernel_Name") or "").strip() or "not recorded"
        link = (row.get("Correlation_Id") or "").strip()
        append(
            export.kernels, name.removesuffix(".kd"), (int(start) - origin) * 1e-9,
            (int(end) - origin) * 1e-9, -1 if device is None else device, 0.0,
            int(link) if link.isdecimal() else -1,
        )  # fmt: skip
    if not export.kernels.name:
        raise UserError(
            "the kernel trace holds no KERNEL_DISPATCH row",
            file=path,
            key="Kind",
            fix="profile with kernel tracing on: " + PROFILE_FIX,
        )
    final = replace(export, traced=("kernels",))
    return RocprofExport(final, counter_frame([]))
