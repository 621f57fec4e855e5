"""Each imported multi-rank capture as its page shows it: on the roof of the device its
source.toml names (a catalog GPU, or a machine whose ceilings were measured), read from its
stored analysis, with its findings; and each imported Nsight Systems capture, read from its
files and checked."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from generator.analysis.multirank_store import read_capture
from generator.analysis.nsys_analysis import NsysAnalysis, analyse_nsys
from generator.analysis.roofs import Roof, measured_of, path_roofs
from generator.analysis.trace_roofline import TRACE_PATHS
from generator.analysis.views import CaptureView, NsysView
from generator.catalog import Device, device_label, lookup_device
from generator.findings.nsys_checks import nsys_findings
from generator.findings.rank_checks import rank_findings
from generator.ingest.digests import file_digest
from generator.ingest.nsys.capture import nsys_files, read_nsys
from generator.memo import remembered
from generator.pages.page import KindContext
from generator.records.ceilings import MeasuredCeilings
from generator.records.import_source import NSYS_DIR, ImportedCapture, ImportedNsys
from generator.summaries.nsys import missing


def capture_roof(
    device_id: str, catalog: tuple[Device, ...], ceilings: Sequence[MeasuredCeilings]
) -> tuple[dict[str, Roof], str]:
    """The roofs (`roofs.path_roofs`: measured first) and the device's name: the catalog's,
    else the measured ceilings' of that id."""
    roofs = path_roofs(device_id, TRACE_PATHS, ceilings, catalog)
    device = lookup_device(device_id, catalog)
    if device is not None:
        return roofs, device.name
    measured = measured_of(device_id, ceilings)
    return roofs, device_label(measured.device_name) if measured else device_id


def capture_views(
    captures: Sequence[ImportedCapture],
    catalog: tuple[Device, ...],
    ceilings: Sequence[MeasuredCeilings],
) -> list[CaptureView]:
    views = []
    for item in captures:
        roof, name = capture_roof(item.source.device, catalog, ceilings)
        capture = read_capture(item.folder, roof)
        views.append(
            CaptureView(item.name, item.source, capture, name, tuple(rank_findings(capture)))
        )
    return views


def nsys_analysis(folder: Path) -> NsysAnalysis:
    """A capture's files read and analysed, once per content of its files (`remembered` in
    the build's store: reading the three committed rocprofv3 captures took 3.3 s of every
    rebuild). Keyed by each file's path and digest: the analysis names the files it read."""
    files = [(str(file), file_digest(file)) for file in nsys_files([folder / NSYS_DIR])]
    return remembered("nsys-analysis", _read_and_analyse, folder, files)


def _read_and_analyse(folder: Path, files: object) -> NsysAnalysis:
    """`files` (their paths and digests) only keys the result."""
    return analyse_nsys(read_nsys([folder / NSYS_DIR]))


def nsys_views(captures: Sequence[ImportedNsys], catalog: tuple[Device, ...]) -> list[NsysView]:
    views = []
    for item in captures:
        analysis = nsys_analysis(item.folder)
        device = lookup_device(item.source.device, catalog)
        views.append(
            NsysView(
                item.name,
                item.source,
                analysis,
                device.name if device else item.source.device,
                tuple(nsys_findings(analysis)),
                tuple(missing(analysis)),
            )
        )
    return views


def analyse_ranks(found: Sequence[ImportedCapture], context: KindContext) -> list[CaptureView]:
    """The multi-rank kind's analysis (`site/kinds.py`)."""
    return capture_views(found, context.catalog, context.ceilings)


def analyse_nsys_captures(found: Sequence[ImportedNsys], context: KindContext) -> list[NsysView]:
    """The Nsight Systems (and rocprofv3) kind's analysis (`site/kinds.py`)."""
    return nsys_views(found, context.catalog)
