"""The kinds of imported input, in ONE list: each is a `Kind` (pages/page.py) naming the
folder of `measurements/imported/<name>/` that holds its files, how they are found, its
analysis and its page. The stages carry what each found and made under its name (`Loaded`,
`Analysed`, `Report`'s `captures`), and its pages go under Traces with a section of its own
on the Traces index. A new input format is its reader, its analysis, its page and one entry
here (docs/architecture.md, "A new input format").

The ncu exports and the profiler traces are not kinds: their analyses feed the report-wide
ones (replication, device choice, the overview, each workload's points), so the stages keep
them in fields of their own."""

from __future__ import annotations

from typing import Any

from generator.analysis.views import CaptureView, NsysView
from generator.pages import nsys_page, rank_capture
from generator.pages.page import Kind
from generator.records.import_source import (
    NSYS_DIR,
    RANKS_DIR,
    ImportedCapture,
    ImportedNsys,
    discover_captures,
    discover_nsys,
)
from generator.site.captures import analyse_nsys_captures, analyse_ranks

RANKS: Kind[ImportedCapture, CaptureView] = Kind(
    name="ranks",
    folder=RANKS_DIR,
    find=discover_captures,
    analyse=analyse_ranks,
    page=rank_capture.capture_page,
    index=rank_capture.index_section,
)

# Nsight Systems captures (SQLite export, stats CSVs, a binary report's export) and
# rocprofv3's JSON or kernel trace CSV: one reader tells them apart by content.
NSYS: Kind[ImportedNsys, NsysView] = Kind(
    name="nsys",
    folder=NSYS_DIR,
    find=discover_nsys,
    analyse=analyse_nsys_captures,
    page=nsys_page.nsys_page,
    index=nsys_page.index_section,
)

KINDS: tuple[Kind[Any, Any], ...] = (RANKS, NSYS)
