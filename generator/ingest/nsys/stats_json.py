"""One `nsys stats --format json` report: a JSON array with one object per row, its keys
the columns of the same report written as CSV (`"Total Time (ns)"`, `"Instances"`,
`"Name"`, ...), its numbers JSON numbers. Which report it is comes from those keys, as for
the CSV (`stats_csv.report_kind`), never from the file name; times are in ns and sizes in
decimal MB, converted to seconds and bytes.

nsys writes an empty file (0 bytes) for a report it skipped ("SKIPPED: ... does not
contain ..."): that is no report, and is refused as such.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from generator.errors import UserError
from generator.ingest.nsys.stats_csv import (
    KNOWN_FIX,
    REPORT_NAMES,
    SIZE_UNITS,
    StatsReport,
    StatsRow,
    check_cuda_api,
    column_key,
    columns_read,
    report_kind,
)

HEAD_BYTES = 1 << 12
# The opening of the array and its first object's first key, which nsys writes first:
# "Time (%)" in every summary report read here.
OPENING = re.compile(rb'\[\s*\{\s*"Time ?\(%\)"\s*:')
SIZE = re.compile(r"total \((k|m|g)?b\)")
AGAIN = "export the report again with `nsys stats --format json`; do not edit it"


def looks_like_stats_json(path: Path) -> bool:
    """An nsys stats JSON report, by its first bytes: an array whose first object's first
    key is "Time (%)"."""
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError:
        return False
    return OPENING.match(head.lstrip(b"\xef\xbb\xbf \t\r\n")) is not None


def _rows(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as err:
        raise UserError(f"cannot read the report: {err.strerror}", file=path) from err
    except UnicodeDecodeError as err:
        raise UserError("the report is not UTF-8 JSON text", file=path, fix=AGAIN) from err
    if not text.strip():
        raise UserError(
            "the report is empty: nsys writes an empty file for a report it skipped "
            "(the capture did not trace what it sums)",
            file=path,
            fix="leave this file out, or trace what it sums (e.g. nsys profile --trace=cuda)",
        )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise UserError(f"invalid JSON: {err.msg}", file=path, line=err.lineno, fix=AGAIN) from err
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise UserError("not an nsys stats JSON report: not an array of objects", file=path,
                        fix=KNOWN_FIX.replace("csv", "json"))  # fmt: skip
    return data


def _number(value: object, path: Path, where: str) -> float:
    """A total or a count: a finite JSON number, not below zero (nsys writes no other)."""
    number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
    try:
        if number is not None and math.isfinite(number) and number >= 0:
            return float(number)
    except OverflowError:
        pass
    raise UserError(f"{value!r} is not a number of zero or more", file=path, key=where, fix=AGAIN)


def read_stats_json(path: Path) -> StatsReport:
    """The report's rows. Raises UserError (file, key, fix) for a file that is not one of
    the reports read, or whose numbers are not numbers."""
    data = _rows(path)
    header = list(data[0]) if data else []
    columns = [column_key(c) for c in header]
    kind = report_kind(columns)
    if kind is None:
        raise UserError(
            f"an nsys stats report of a kind not read here (keys: {', '.join(header) or 'none'})",
            file=path,
            key="[0]",
            fix=KNOWN_FIX.replace("csv", "json"),
        )
    name_key, count_key = (header[columns.index(c)] for c in columns_read(kind))
    time_key = header[columns.index("total time (ns)")] if "total time (ns)" in columns else None
    size_key = next((h for h, c in zip(header, columns, strict=True) if SIZE.fullmatch(c)), None)
    rows = []
    for index, row in enumerate(data):
        for key in (name_key, count_key):
            if key not in row:
                raise UserError(
                    f"the {REPORT_NAMES[kind]} row has no {key!r}",
                    file=path,
                    key=f"[{index}]",
                    fix=AGAIN,
                )
        count = _number(row[count_key], path, f"[{index}].{count_key}")
        if count >= 2**53 or not count.is_integer():
            raise UserError(
                f"{row[count_key]!r} is not a count", file=path, key=f"[{index}].{count_key}",
                fix=AGAIN,
            )  # fmt: skip
        total_s = total_bytes = None
        if time_key is not None:
            total_s = _number(row.get(time_key), path, f"[{index}].{time_key}") * 1e-9
        if size_key is not None:
            unit = column_key(size_key).removeprefix("total (").removesuffix(")")
            value = _number(row.get(size_key), path, f"[{index}].{size_key}")
            total_bytes = value * SIZE_UNITS[unit]
        rows.append(StatsRow(str(row[name_key]), int(count), total_s, total_bytes))
    check_cuda_api(path, kind, rows)
    return StatsReport(path, kind, tuple(rows))
