"""`import` of a multi-rank capture: every rank's trace into
measurements/imported/<name>/ranks/rank-N.json.gz (the same bytes, gzipped if they were
not), its analysis beside them (`ranks-analysis.parquet`) and a source.toml.

All ranks are read and analysed first, one at a time; a capture with any problem (a rank
unreadable, missing, repeated, or with other steps than the rest) is refused with every
problem listed, and nothing is written. The folder is staged and renamed in one step, as a
single-file import is.
"""

from __future__ import annotations

import gzip
import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from generator.errors import UserError
from generator.records.ceilings import MeasuredCeilings
from generator.records.import_source import Source
from generator.summaries.importer import (
    ImportRequest,
    ImportResult,
    check_name,
    given_device,
    request_source,
    write_import,
)


def _device_id(
    request: ImportRequest,
    traced: set[str],
    on_gpu: bool,
    ceilings: MeasuredCeilings | None,
    first: Path,
) -> str:
    """The catalog id the ranks ran on (--device, else the one their traces name), or for a
    CPU capture the measured ceilings' id."""
    from generator.catalog import lookup_device

    given = given_device(
        request,
        "pass a catalog id or name (the Hardware page lists them), or for a CPU capture "
        "--ceilings measurements/ceilings/<id>.json instead",
    )
    if given:
        return given
    found = {d.id for name in traced if (d := lookup_device(name)) is not None}
    if len(found) == 1:
        return found.pop()
    if not on_gpu and ceilings is not None and ceilings.device_id:
        return ceilings.device_id
    raise UserError(
        "no device given, and the ranks' traces do not name one the catalog knows",
        file=first,
        fix="pass --device with a catalog id (e.g. a100-80gb-sxm); for a capture on CPUs, "
        "pass --ceilings with the machine's measured ceilings "
        "(measurements/ceilings/<id>.json, written by `nox -s measure`)",
    )


def capture_source(
    request: ImportRequest, summary: dict[str, Any], device: str, inputs: Sequence[Path]
) -> Source:
    ranks = len(summary["ranks"])
    work = "GPU kernels" if summary["on_gpu"] else "CPU ops"
    return request_source(
        request,
        device=device,
        origin=", ".join(p.name for p in inputs),
        title=f"{ranks} ranks, {summary['backend'] or 'distributed'}",
        workload=f"{len(summary['common_steps'])} profiled steps on each of {ranks} ranks ({work})",
    )


def _copy_gzipped(source: Path, target: Path) -> None:
    from generator.ingest.trace.read import GZIP_MAGIC

    with source.open("rb") as handle:
        packed = handle.read(2) == GZIP_MAGIC
    if packed:
        shutil.copyfile(source, target)  # verbatim: the evidence
        return
    with source.open("rb") as plain, gzip.open(target, "wb") as out:
        shutil.copyfileobj(plain, out)  # the same bytes, compressed


def import_capture(
    request: ImportRequest, inputs: Sequence[Path], ceilings: MeasuredCeilings | None = None
) -> ImportResult:
    """Analyse every rank, refuse on any problem, then write the folder atomically."""
    from generator.analysis.multirank import analyse_ranks
    from generator.analysis.multirank_store import write_capture
    from generator.findings.rank_checks import rank_findings
    from generator.records.import_source import RANKS_DIR
    from generator.summaries.multirank import multirank_summary

    folder = check_name(request.name, request.measurements)
    capture = analyse_ranks(inputs, request.device, ceilings)
    if capture.problems:
        listed = "\n".join(f"  - {p.message}" for p in capture.problems)
        raise UserError(
            f"the capture cannot be imported as it is ({len(capture.problems)} problem(s); "
            f"rank(s) {', '.join(str(r.rank) for r in capture.ranks)} read fine):\n{listed}",
            file=", ".join(str(p) for p in inputs),
            fix="fix each file above (or leave it out and say so in --notes); "
            "`summarize --ranks` shows the ranks that read",
        )
    summary = multirank_summary(capture, rank_findings(capture))
    traced = {r.device for r in capture.ranks if r.device}
    device = _device_id(request, traced, summary["on_gpu"], ceilings, capture.ranks[0].path)
    source = capture_source(request, summary, device, inputs)

    def fill(staging: Path) -> None:
        (staging / RANKS_DIR).mkdir()
        stored = []
        for info in capture.ranks:
            target = staging / RANKS_DIR / f"rank-{info.rank}.json.gz"
            _copy_gzipped(info.path, target)
            stored.append(replace(info, path=target))
        write_capture(replace(capture, ranks=tuple(stored)), staging)

    write_import(folder, source, fill)
    summary["file"] = [str(folder / RANKS_DIR)]
    return ImportResult(folder, source, summary)
