"""An Nsight Systems SQLite export (`nsys export --type sqlite`, or the `.sqlite` that
`nsys stats` leaves beside a report), read with the standard library.

Tables read, each only if present (nsys creates them lazily): the kernels
(`CUPTI_ACTIVITY_KIND_KERNEL`), copies and sets (`..._MEMCPY`, `..._MEMSET`), the CUDA
runtime calls (`..._RUNTIME`), the NVTX ranges (`NVTX_EVENTS`, push/pop and start/end), the
GPUs (`TARGET_INFO_GPU`) and the string table (`StringIds`) that names them. Columns are
looked up by name, so a version that adds some is read as well. Times are the export's
nanoseconds, kept as seconds.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from generator.errors import UserError
from generator.ingest.sniff import starts_with

SQLITE_MAGIC = b"SQLite format 3\x00"
KERNELS = "CUPTI_ACTIVITY_KIND_KERNEL"
MEMCPY = "CUPTI_ACTIVITY_KIND_MEMCPY"
MEMSET = "CUPTI_ACTIVITY_KIND_MEMSET"
RUNTIME = "CUPTI_ACTIVITY_KIND_RUNTIME"
NVTX = "NVTX_EVENTS"
NVTX_RANGES = (59, 60)  # NvtxPushPopRange, NvtxStartEndRange
# CUpti_ActivityMemcpyKind, for exports without ENUM_CUDA_MEMCPY_OPER
COPY_KINDS = {
    1: "Host-to-Device",
    2: "Device-to-Host",
    3: "Host-to-Array",
    4: "Array-to-Host",
    5: "Array-to-Array",
    6: "Array-to-Device",
    7: "Device-to-Array",
    8: "Device-to-Device",
    9: "Host-to-Host",
    10: "Peer-to-Peer",
}
EXPORT_FIX = (
    "export the report again: nsys export --type sqlite --output FILE.sqlite REPORT.nsys-rep"
)


@dataclass
class Activity:
    """Activity of one kind, as columns; times in seconds on the export's clock."""

    name: list[str] = field(default_factory=list)
    start: list[float] = field(default_factory=list)
    end: list[float] = field(default_factory=list)
    device: list[int] = field(default_factory=list)
    bytes: list[float] = field(default_factory=list)
    correlation: list[int] = field(default_factory=list)  # -1: none recorded


@dataclass(frozen=True)
class SqliteExport:
    path: Path
    kernels: Activity
    copies: Activity  # name: the copy's direction
    sets: Activity
    api: Activity  # CUDA runtime calls, on the host
    ranges: Activity  # NVTX ranges, on the host
    gpus: dict[int, str]  # device id -> its name
    # what the capture traced, by its tables (nsys creates a table only for what it traced):
    # kernels, api, memtime and memsize (copies or sets), nvtx
    traced: tuple[str, ...] = ()


def looks_like_sqlite(path: Path) -> bool:
    return starts_with(path, SQLITE_MAGIC)


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _strings(db: sqlite3.Connection, tables: set[str]) -> dict[int, str]:
    if "StringIds" not in tables:
        return {}
    rows = db.execute("SELECT id, value FROM StringIds")
    return {i: str(v) for i, v in rows if isinstance(i, int)}


def _activity(
    db: sqlite3.Connection,
    table: str,
    name_sql: str,
    extra: str,
    strings: dict[int, str],
    names: dict[int, str] | None = None,
) -> Activity:
    """start, end, device and bytes of every row; the name from `name_sql` (a string id
    resolved through StringIds, or through `names` when given)."""
    out = Activity()
    base = table.split()[0]
    correlation = "correlationId" if "correlationId" in _columns(db, base) else "-1"
    query = f"SELECT start, end, {name_sql}, {extra}, {correlation}, rowid FROM {table}"
    for start, end, name, device, size, link, rowid in db.execute(query):
        if start is None or end is None:
            continue  # an event still open when the capture stopped: it has no duration
        if not (_time(start) and _time(end)) or end < start:
            raise _bad_row(db, table, rowid, f"start {start!r}, end {end!r}")
        out.start.append(start * 1e-9)
        out.end.append(end * 1e-9)
        lookup = names if names is not None else strings
        out.name.append(lookup.get(name, str(name)) if isinstance(name, int) else str(name))
        out.device.append(int(device) if isinstance(device, int) else -1)
        out.bytes.append(float(size) if _time(size) and size >= 0 else 0.0)
        out.correlation.append(link if isinstance(link, int) else -1)
    return out


def _time(value: object) -> bool:
    """A time as nsys writes one: an integer of nanoseconds (a finite number at least)."""
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


def _bad_row(db: sqlite3.Connection, table: str, rowid: object, what: str) -> UserError:
    path = next((row[2] for row in db.execute("PRAGMA database_list") if row[1] == "main"), "")
    return UserError(
        f"{table.split()[0]} row {rowid}: {what} is no event's time span",
        file=path or None,
        key=table.split()[0],
        fix="the export is damaged; " + EXPORT_FIX,
    )


def _name_column(columns: set[str], *choices: str) -> str:
    return next((c for c in choices if c in columns), "NULL")


def _copy_kinds(db: sqlite3.Connection, tables: set[str]) -> dict[int, str]:
    kinds = dict(COPY_KINDS)
    if "ENUM_CUDA_MEMCPY_OPER" in tables and {"id", "label"} <= _columns(
        db, "ENUM_CUDA_MEMCPY_OPER"
    ):
        kinds.update(
            {
                i: str(label)
                for i, label in db.execute("SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER")
                if isinstance(i, int)
            }
        )
    return kinds


def _gpus(db: sqlite3.Connection, tables: set[str]) -> dict[int, str]:
    for table in ("TARGET_INFO_GPU", "TARGET_INFO_CUDA_DEVICE"):
        if table in tables:
            columns = _columns(db, table)
            key = _name_column(columns, "id", "cudaId", "deviceId")
            if "name" in columns and key != "NULL":
                return {
                    int(i): str(n)
                    for i, n in db.execute(f"SELECT {key}, name FROM {table}")
                    if isinstance(i, int)
                }
    return {}


def read_sqlite(path: Path) -> SqliteExport:
    """The export's GPU activity, runtime calls and NVTX ranges. Raises UserError for a
    file SQLite cannot read (cut short, not a database) or that is no nsys export."""
    try:
        db = sqlite3.connect(path.resolve().as_uri() + "?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as err:
        raise UserError(f"cannot open the SQLite file: {err}", file=path, fix=EXPORT_FIX) from err
    db.text_factory = lambda raw: raw.decode("utf-8", "replace")  # names may not be UTF-8
    try:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables & {KERNELS, MEMCPY, MEMSET, NVTX}:
            raise UserError(
                "an SQLite file, but not an Nsight Systems export with GPU or NVTX data (no "
                f"{KERNELS}, {MEMCPY}, {MEMSET} or {NVTX} table; tables: "
                f"{', '.join(sorted(tables)) or 'none'})",
                file=path,
                fix="profile with `nsys profile --trace=cuda,nvtx ...`, then " + EXPORT_FIX,
            )
        strings = _strings(db, tables)
        empty = Activity()
        kernels = empty
        if KERNELS in tables:
            columns = _columns(db, KERNELS)
            name = _name_column(columns, "demangledName", "shortName", "mangledName")
            kernels = _activity(db, KERNELS, name, "deviceId, 0", strings)
        copies = empty
        if MEMCPY in tables:
            copies = _activity(
                db, MEMCPY, "copyKind", "deviceId, bytes", strings, _copy_kinds(db, tables)
            )
        sets = empty
        if MEMSET in tables:
            sets = _activity(db, MEMSET, "'memset'", "deviceId, bytes", strings)
        api = empty
        if RUNTIME in tables:
            api = _activity(db, RUNTIME, "nameId", "-1, 0", strings)
        ranges = empty
        if NVTX in tables:
            columns = _columns(db, NVTX)
            text = (
                "COALESCE(text, textId)"
                if {"text", "textId"} <= columns
                else _name_column(columns, "text", "textId")
            )
            ranges = _activity(
                db,
                f"{NVTX} WHERE eventType IN {NVTX_RANGES} AND end > start",
                text,
                "-1, 0",
                strings,
            )
        gpus = _gpus(db, tables)
    except (sqlite3.Error, UnicodeDecodeError) as err:  # torn or cut short: its first read fails
        raise UserError(
            f"SQLite cannot read the export ({err}): the file is cut short or damaged",
            file=path,
            fix=EXPORT_FIX,
        ) from err
    finally:
        db.close()
    present = {"kernels": {KERNELS}, "api": {RUNTIME}, "memtime": {MEMCPY, MEMSET},
               "memsize": {MEMCPY, MEMSET}, "nvtx": {NVTX}}  # fmt: skip
    traced = tuple(kind for kind, names in present.items() if names & tables)
    return SqliteExport(path, kernels, copies, sets, api, ranges, gpus, traced)
