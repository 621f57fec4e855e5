"""The input formats, in ONE list: what each is called, how it is told by content (never by
file name), how it is read, the family that summarizes and imports it, and the fuzzer that
mutates it. `summarize`, `import` and the report's capture reader all go through `sniff`,
so the order below is the only place that says which format wins a file two could claim
(docs/architecture.md, "Input formats registry").

A family is what `summarize` and `import` do with a format's files and where an import
keeps them (the report's kind): an ncu export is summarized and imported alone as ncu.csv,
a profiler trace alone as trace.json.gz, and the files of a timeline capture together, kept
verbatim in nsys/ (one file that holds the whole capture, or the stats reports of one
capture). A new format of an existing family is one entry here and its reader."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from generator.ingest.nsys.binary import exported, looks_like_nsys_report
from generator.ingest.nsys.sqlite import looks_like_sqlite, read_sqlite
from generator.ingest.nsys.stats_csv import looks_like_stats_csv, read_stats_csv
from generator.ingest.nsys.stats_json import looks_like_stats_json, read_stats_json
from generator.ingest.rocprof import (
    looks_like_rocprofv3,
    looks_like_rocprofv3_csv,
    read_rocprofv3,
    read_rocprofv3_csv,
)
from generator.records.import_source import NSYS_DIR
from generator.records.run import TRACE_FILE


@dataclass(frozen=True)
class Family:
    name: str
    imported: str  # what an import keeps in measurements/imported/<name>/: the report reads it


NCU = Family("ncu export", "ncu.csv")
TRACE = Family("profiler trace", TRACE_FILE)
CAPTURE = Family("timeline capture", f"{NSYS_DIR}/")
FAMILIES = (NCU, TRACE, CAPTURE)


@dataclass(frozen=True)
class InputFormat:
    name: str  # as summaries and pages name it ("nsys stats CSV")
    sniff: Callable[[Path], bool]
    family: Family
    # how a file is read (None: only after `convert`)
    read: Callable[[Path], object] | None
    fuzz: str  # the module of `nox -s fuzz` that mutates its files
    whole: bool = True  # holds a whole capture; False: one of a capture's reports
    # claims more than its own files (any JSON text, any CSV with an ID column): it must
    # come after every format whose files it would also claim
    broad: bool = False
    # a conversion its tool must make before it is read: (path, tool) -> the converted file
    convert: Callable[[Path, str | None], AbstractContextManager[Path]] | None = None


def _read_ncu_rep(path: Path) -> object:
    from generator.ingest.ncu_rep import read_ncu_rep  # deferred: ncu-report's import

    return read_ncu_rep(path)


def _read_ncu_csv(path: Path) -> object:
    from generator.ingest.ncu_csv import read_ncu_csv  # deferred: Polars

    return read_ncu_csv(path)


def _read_trace(path: Path) -> object:
    from generator.ingest.trace.read import read_trace  # deferred: the decoder's tables

    return read_trace(path)


def _looks_like_ncu_rep(path: Path) -> bool:
    from generator.ingest.ncu_rep import looks_like_ncu_rep

    return looks_like_ncu_rep(path)


def _looks_like_trace(path: Path) -> bool:
    from generator.ingest.trace.read import looks_like_trace

    return looks_like_trace(path)


def _looks_like_ncu_csv(path: Path) -> bool:
    from generator.ingest.header import looks_like_ncu_csv

    return looks_like_ncu_csv(path)


NCU_REPORT = InputFormat(
    "binary ncu report", _looks_like_ncu_rep, NCU, _read_ncu_rep, "tests.fuzz_reports"
)
NSYS_REPORT = InputFormat(
    "binary nsys report",
    looks_like_nsys_report,
    CAPTURE,
    None,
    "tests.fuzz_reports",
    convert=exported,
)
SQLITE = InputFormat("SQLite export", looks_like_sqlite, CAPTURE, read_sqlite, "tests.fuzz_nsys")
ROCPROF_JSON = InputFormat(
    "rocprofv3 JSON", looks_like_rocprofv3, CAPTURE, read_rocprofv3, "tests.fuzz_nsys"
)
STATS_JSON = InputFormat(
    "nsys stats JSON", looks_like_stats_json, CAPTURE, read_stats_json, "tests.fuzz_nsys",
    whole=False,
)  # fmt: skip
TORCH_TRACE = InputFormat(
    "torch.profiler trace", _looks_like_trace, TRACE, _read_trace, "tests.fuzz_trace", broad=True
)
ROCPROF_CSV = InputFormat(
    "rocprofv3 kernel trace CSV", looks_like_rocprofv3_csv, CAPTURE, read_rocprofv3_csv,
    "tests.fuzz_nsys",
)  # fmt: skip
STATS_CSV = InputFormat(
    "nsys stats CSV", looks_like_stats_csv, CAPTURE, read_stats_csv, "tests.fuzz_nsys",
    whole=False,
)  # fmt: skip
NCU_CSV = InputFormat(
    "ncu CSV", _looks_like_ncu_csv, NCU, _read_ncu_csv, "tests.fuzz_ingest", broad=True
)

# Sniff order. The binary formats first: their magic bytes are exact, and a binary file
# must never reach a text sniffer. Then the JSON formats with a fixed opening (rocprofv3's
# object whose first key is `rocprofiler-sdk-tool`, gzipped or not; nsys stats' array whose
# first key is "Time (%)") before the torch.profiler trace, whose sniffer takes any gzip
# stream or JSON text: it would claim both (it once had to learn to reject rocprofv3).
# Then the CSVs with a fixed header (rocprofv3's kernel trace, nsys stats' total columns)
# before the ncu CSV, whose sniffer takes any CSV with a line starting "ID" or
# "Process ID" anywhere in its head.
FORMATS: tuple[InputFormat, ...] = (
    NCU_REPORT,
    NSYS_REPORT,
    SQLITE,
    ROCPROF_JSON,
    STATS_JSON,
    TORCH_TRACE,
    ROCPROF_CSV,
    STATS_CSV,
    NCU_CSV,
)


def sniff(path: Path) -> InputFormat | None:
    """The format of the file at `path` by its content: the first in `FORMATS` that claims
    it; None for a folder, a missing file or content no format claims."""
    if not path.is_file():
        return None
    return next((f for f in FORMATS if f.sniff(path)), None)


def claimants(path: Path) -> Iterator[InputFormat]:
    """Every format whose sniffer claims the file, in sniff order (for the tests of it)."""
    return (f for f in FORMATS if f.sniff(path))


def is_capture(path: Path) -> bool:
    """A file of a timeline capture that is read as it is (not a binary report, which nsys
    must export first)."""
    found = sniff(path)
    return found is not None and found.family is CAPTURE and found.convert is None
