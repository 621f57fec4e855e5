"""Nsight Compute's binary report (`ncu -o NAME` writes NAME.ncu-rep), read with NVIDIA's
`ncu-report` package (an optional extra: `pip install 'roofline-atlas[ncu-rep]'`).

The report becomes the long metric table a CSV export of it would give (`ncu --import
NAME.ncu-rep --csv`), restricted to the metrics the analysis reads, and goes through the CSV
path's own stages from there (`ncu_csv.export_from_long`): units, the kernel table, the
counts rebuilt from rates. So a report and its CSV export give the same kernels, roofline and
findings. Only the metrics the metric map names are read: a full-set report holds a thousand
per kernel, and fetching them all is most of the cost of reading one.

A NaN value (every tensor-pipe metric of some Hopper reports) is missing, as a CSV's `n/a`
is, never 0. Told apart by content: the file starts with `NVR\\0`, whatever its name.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from generator.errors import UserError
from generator.ingest.metric_map import RAW_NAMES
from generator.ingest.schema import DEVICE_NAME_METRIC, NcuExport
from generator.ingest.sniff import starts_with

MAGIC = b"NVR\x00"
EXTRA = "pip install 'roofline-atlas[ncu-rep]'"
CSV_FIX = (
    "or export it where Nsight Compute is installed: ncu --import REPORT.ncu-rep --csv > REPORT.csv"
)
# The header names the ncu that wrote the report: "2023.3.0.0 (build 33266684)".
_VERSION = re.compile(rb"(20\d\d\.\d+\.\d+)(?:\.\d+)? \(build \d+\)")
# The command line: led by a literal, then widened to its printable run by hand (a regex
# that starts with a character class tries every byte of the file: seconds on 3 MB).
_NCU_CALL = re.compile(rb"ncu(?:\.exe)? [-./\w]")
_CHUNK_BYTES = 1 << 20
_SCAN_BYTES = 64 << 20
# Launch and device attributes that the CSV writes as columns of their own.
_IDENTITY_METRICS = (
    "launch__grid_dim_x",
    "launch__grid_dim_y",
    "launch__grid_dim_z",
    "launch__block_dim_x",
    "launch__block_dim_y",
    "launch__block_dim_z",
    "launch__stream_id",
    "launch__context_id",
    "launch__device_id",
    "device__attribute_compute_capability_major",
    "device__attribute_compute_capability_minor",
)
READ_METRICS: frozenset[str] = RAW_NAMES | {DEVICE_NAME_METRIC}
# The long layout's columns, as ncu writes them, in its order.
CSV_COLUMNS = (
    "ID",
    "Process ID",
    "Kernel Name",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
    "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",
    "thread Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",
    "Section Name",
    "Metric Name",
    "Metric Unit",
    "Metric Value",
)
_LONG_NAMES = (
    "kernel_id",
    "process_id",
    "kernel_name",
    "context",
    "stream",
    "block_size",
    "grid_size",
    "device",
    "cc",
    "nvtx_push_pop_text",
    "nvtx_start_stop_text",
    "section",
    "metric",
    "unit",
    "value_text",
)


@dataclass(frozen=True)
class ReportHeader:
    """What the report's header says of where it came from."""

    version: str | None  # the ncu that wrote it, e.g. "2023.3.0"
    command: str | None  # its command line, e.g. "ncu --set full -o profile ./a.out"

    @property
    def sets(self) -> str:
        """The `--set`/`--section` options of the command, or "" when it named none (ncu's
        default: the basic set)."""
        if not self.command:
            return ""
        return " ".join(re.findall(r"--(?:set|section)[ =]\S+", self.command))


def looks_like_ncu_rep(path: Path) -> bool:
    """An Nsight Compute report, by its first bytes."""
    return starts_with(path, MAGIC)


def read_header(path: Path) -> ReportHeader:
    """The writer's version and command line. They sit in the session record, which follows
    the profiled process's binaries: read in chunks until found (at most `_SCAN_BYTES`)."""
    version = command = None
    tail = b""
    with path.open("rb") as handle:
        for _ in range(_SCAN_BYTES // _CHUNK_BYTES):
            chunk = handle.read(_CHUNK_BYTES)
            if not chunk:
                break
            text = tail + chunk
            version = version or _VERSION.search(text)
            command = command or _command(text)
            if version and command:
                break
            tail = text[-4096:]  # a match across the chunks' border
    return ReportHeader(version=version.group(1).decode() if version else None, command=command)


def _printable(byte: int) -> bool:
    return 0x20 <= byte < 0x7F and byte != 0x22  # a quote ends the field


def _command(text: bytes) -> str | None:
    found = _NCU_CALL.search(text)
    if found is None:
        return None
    start, end = found.start(), found.end()
    while start > 0 and _printable(text[start - 1]):
        start -= 1
    while end < len(text) and _printable(text[end]):
        end += 1
    return text[start:end].decode("ascii").strip()


def load(path: Path) -> Any:
    """The report as ncu_report's context. UserError when the reader is missing or refuses
    the file."""
    try:
        import ncu_report  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise UserError(
            "this is a binary Nsight Compute report (.ncu-rep); reading it needs NVIDIA's "
            "ncu-report package, which is not installed",
            file=path,
            fix=f"{EXTRA}, {CSV_FIX}",
        ) from None
    try:
        return ncu_report.load_report(str(path))
    except Exception as error:  # the reader raises bare exceptions for damaged files
        header = read_header(path)
        wrote = f" (written by ncu {header.version})" if header.version else ""
        raise UserError(
            f"ncu-report cannot open this report{wrote}: {_first_line(error)}",
            file=path,
            fix="check that the file is whole (compare its size with the original); a report "
            f"from a newer ncu needs a newer reader: pip install -U ncu-report; {CSV_FIX}",
        ) from None


def _no_kernels(path: Path) -> UserError:
    """ncu-report reads a cut or damaged file, or one from a newer ncu, as a report without
    results: say each possibility, the likeliest first."""
    header = read_header(path)
    reader = reader_version()
    if header.version and reader and _as_tuple(header.version) > _as_tuple(reader):
        return UserError(
            f"ncu-report {reader} found no kernel results in this report, which ncu "
            f"{header.version} wrote: a format newer than the reader knows",
            file=path,
            fix=f"pip install -U ncu-report (a version of at least {header.version}); {CSV_FIX}",
        )
    return UserError(
        "the report holds no kernel results: ncu profiled none, or the file is cut short or "
        "damaged (ncu-report reads what it can of a damaged file)",
        file=path,
        fix="compare the file's size with the original and copy it again; if it is whole, "
        "profile at least one kernel (check ncu's --kernel-name / --launch-skip filters, and "
        "--target-processes all for child processes)",
    )


def reader_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ncu-report")
    except PackageNotFoundError:
        return None


def _as_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def _first_line(error: Exception) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _actions(context: Any) -> Iterator[Any]:
    for r in range(context.num_ranges()):
        report_range = context.range_by_idx(r)
        for a in range(report_range.num_actions()):
            yield report_range.action_by_idx(a)


def _value(metric: Any) -> tuple[str, str]:
    """The metric's value as a CSV cell, and its unit. NaN is n/a: missing, never 0."""
    value = metric.value()
    if isinstance(value, float):
        text = "n/a" if math.isnan(value) or math.isinf(value) else repr(value)
    else:
        text = str(value)
    return text, metric.unit() or ""


def _number(action: Any, name: str) -> str:
    metric = action.metric_by_name(name)
    if metric is None:
        return ""
    value = metric.value()
    return str(int(value)) if isinstance(value, int | float) and not math.isnan(value) else ""


def _nvtx(action: Any) -> tuple[str, str]:
    """The push/pop and the start/end ranges open at the launch, in the CSV's cell formats
    (`thread "Domain:Name:…"`, and `thread "Id:Domain:Name:…"`; ingest/nvtx.py parses both)."""
    state = action.nvtx_state()
    if state is None:
        return "", ""
    push_pop, start_end = [], []
    for domain_id in state.domains():
        domain = state.domain_by_id(domain_id)
        name = domain.name() or "<default domain>"
        push_pop += [_entry(f"{name}:{r}") for r in domain.push_pop_ranges()]
        start_end += [
            _entry(f"{i}:{name}:{r.name()}") for i, r in enumerate(domain.start_end_ranges())
        ]
    return (
        " ".join(["0", *push_pop]) if push_pop else "",
        " ".join(["0", *start_end]) if start_end else "",
    )


def _entry(head: str) -> str:
    text = f"{head}:none:none:none:none:none:none".replace('"', '""')
    return f'"{text}"'


def _rows(context: Any) -> Iterator[tuple[Any, ...]]:
    """One row of `_LONG_NAMES` per kernel and metric read."""
    for kernel_id, action in enumerate(_actions(context)):
        grid = ", ".join(_number(action, f"launch__grid_dim_{d}") for d in "xyz")
        block = ", ".join(_number(action, f"launch__block_dim_{d}") for d in "xyz")
        major = _number(action, "device__attribute_compute_capability_major")
        minor = _number(action, "device__attribute_compute_capability_minor")
        identity = (
            kernel_id,
            0,
            action.name(action.NameBase_DEMANGLED),
            _number(action, "launch__context_id"),
            _number(action, "launch__stream_id"),
            f"({block})",
            f"({grid})",
            _number(action, "launch__device_id"),
            f"{major}.{minor}" if major else "",
            *_nvtx(action),
            "Command line profiler metrics",
        )
        for name in sorted(READ_METRICS.intersection(action.metric_names())):
            text, unit = _value(action.metric_by_name(name))
            yield (*identity, name, unit, text)


def long_table(path: Path, context: Any) -> pl.DataFrame:
    """The report's long metric table, as `layouts.long_rows` gives a CSV's: `line` is the
    row's number in the CSV that `write_csv` writes (the header is line 1)."""
    rows = list(_rows(context))
    if not rows:
        raise _no_kernels(path)
    frame = pl.DataFrame(rows, schema=list(_LONG_NAMES), orient="row")
    categorical = [c for c in _LONG_NAMES if c not in ("kernel_id", "process_id", "value_text")]
    return frame.with_columns(
        pl.col("kernel_id", "process_id").cast(pl.String),
        *(pl.col(c).cast(pl.Categorical) for c in categorical),
        *(pl.lit(None, pl.Categorical).alias(c) for c in _ABSENT),
        pl.lit(None, pl.Categorical).alias("label"),
        pl.int_range(2, pl.len() + 2, dtype=pl.Int64).alias("line"),
    )


# Identity columns a report has no attribute for (the CSV's Process Name, Host Name, Kernel Time).
_ABSENT = ("process_name", "host_name", "kernel_time")


def read_ncu_rep(path: str | Path) -> tuple[NcuExport, pl.DataFrame, ReportHeader]:
    """The report as an export (the CSV path's tables), the long table it was made from (what
    `import` stores as CSV) and its header. Raises UserError on anything it cannot read."""
    from generator.ingest.ncu_csv import export_from_long

    path = Path(path)
    header = read_header(path)
    context = load(path)
    long = long_table(path, context)
    wrote = f"ncu {header.version}" if header.version else "an unknown ncu"
    note = f"read from a binary report written by {wrote}"
    if header.command:
        note += f" ({header.sets or 'the default basic set'})"
    export = export_from_long(path, "report", long, notes=(note,))
    return export, long, header


def write_csv(long: pl.DataFrame, destination: Path) -> None:
    """The long table as the CSV ncu writes (`--csv`, long layout): what `import` stores
    beside the binary, so the report's build needs neither the reader nor the binary."""
    with destination.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        writer.writerows(long.select(_LONG_NAMES).iter_rows())
