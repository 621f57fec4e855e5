"""`import`: a user's own ncu export or torch.profiler trace into measurements/imported/<name>/,
ready for the report (ncu.csv verbatim, or trace.json.gz: the trace, gzipped if it was not).

The file is parsed and analysed first, with the device and metadata it will be shown with;
only then is anything written. The folder is staged beside its final place and renamed in
one step, so a failure leaves measurements/ as it was and the report never sees half an
import.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from generator.errors import UserError
from generator.records.import_source import NCU_REPORT_FILE, SCHEMA_VERSION, Source, load_source
from generator.records.run import TRACE_FILE

NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,79}")


@dataclass(frozen=True)
class ImportRequest:
    file: Path
    name: str
    measurements: Path
    device: str | None = None
    title: str | None = None
    model: str | None = None
    workload: str | None = None
    phase: str = "kernel"
    precision: str | None = None
    batch: int | None = None
    registry_model: str | None = None
    dataset: str | None = None
    origin: str | None = None
    citation: str | None = None
    license: str = ""
    notes: str = ""


@dataclass(frozen=True)
class ImportResult:
    folder: Path
    source: Source
    summary: dict[str, Any]  # the `summarize --json` object of the imported file


def check_name(name: str, measurements: Path) -> Path:
    """The folder the import goes to; refused when the name is unusable or taken."""
    if not NAME.fullmatch(name):
        raise UserError(
            f"--name {name!r} is not a usable measurement name",
            fix="use lowercase letters, digits, '.', '_' and '-', starting with a letter or "
            "digit (it becomes a folder and a URL), e.g. --name a100-llama-decode-b8",
        )
    folder = measurements / "imported" / name
    if folder.exists():
        raise UserError(
            f"an imported measurement named {name!r} already exists",
            file=folder,
            fix="choose another --name, or delete that folder first to replace it",
        )
    return folder


def source_for(request: ImportRequest, summary: dict[str, Any]) -> Source:
    """source.toml's contents: what the user said, else what the export shows."""
    device = summary["device"]["catalog"]  # the catalog id, whichever name --device used
    if not device:
        note = summary["device_note"] or "the export does not name its GPU"
        note = note.removesuffix(": pass --device")
        raise UserError(
            f"no device given, and {note}",
            file=request.file,
            fix="pass --device with a catalog id or name (the Hardware page lists them), "
            "e.g. --device a100-80gb-sxm",
        )
    kernels = summary["kernels"]
    trace = "layout" not in summary
    kind = "torch.profiler trace" if trace else f"{summary['layout']} export"
    if summary.get("layout") == "report":
        kind = "binary ncu report"
    return request_source(
        request,
        device=device,
        origin=request.file.name,
        title=f"{kernels} kernels, {kind}",
        workload=f"{kernels} kernel launches "
        + ("traced by torch.profiler" if trace else "profiled by ncu"),
        precision=summary["path"] if trace else summary["dominant_precision"],
    )


def request_source(
    request: ImportRequest,
    *,
    device: str,
    origin: str,
    title: str,
    workload: str,
    precision: str | None = None,
) -> Source:
    """source.toml's contents: what the user said, else the defaults the file gave (`title`
    in brackets after NAME, `origin` its file name(s))."""
    where = request.origin or origin
    return validated_source(
        {
            "schema_version": SCHEMA_VERSION,
            "title": request.title or f"{request.name} ({title})",
            "origin": where,
            "device": device,
            "model": request.model or request.registry_model or "not stated",
            "workload": request.workload or workload,
            "batch": request.batch,
            "phase": request.phase,
            "precision": request.precision or precision or "not stated",
            "citation": request.citation or where,
            "license": request.license,
            "notes": request.notes,
            "registry_model": request.registry_model,
            "dataset": request.dataset,
        }
    )


def given_device(request: ImportRequest, fix: str) -> str | None:
    """The catalog id of --device (None when not given); an unknown name is refused."""
    from generator.catalog import lookup_device

    if not request.device:
        return None
    device = lookup_device(request.device)
    if device is None:
        raise UserError(f"--device {request.device!r} is not in the catalog", fix=fix)
    return device.id


def validated_source(data: dict[str, Any]) -> Source:
    """source.toml's contents checked; a bad value names the option that gave it."""
    try:
        return Source.model_validate({k: v for k, v in data.items() if v is not None})
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"])
        raise UserError(
            first["msg"].removeprefix("Value error, "),
            key=key,
            fix=f"correct --{key.replace('_', '-')}",
        ) from err


def source_toml(source: Source) -> str:
    """TOML for source.toml. JSON string escapes are valid TOML basic-string escapes."""
    lines = []
    for key, value in source.model_dump(exclude_defaults=False).items():
        if value is None or (value == "" and key in ("license", "notes")):
            continue
        shown = json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)
        lines.append(f"{key} = {shown}")
    return "\n".join(lines) + "\n"


def _is_gzip(path: Path) -> bool:
    from generator.ingest.trace.read import GZIP_MAGIC

    with path.open("rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def import_export(request: ImportRequest) -> ImportResult:
    """Parse, analyse, then write the folder atomically. Raises UserError, writing nothing."""
    from generator.analysis.trace_work import analyse_work, write_work
    from generator.ingest.formats import NCU_REPORT, TRACE, sniff
    from generator.ingest.ncu_rep import read_ncu_rep, write_csv
    from generator.summaries.export import summarize_export, summarize_file  # deferred: Polars
    from generator.summaries.trace import summarize_trace

    folder = check_name(request.name, request.measurements)
    if not request.file.is_file():
        raise UserError("no such file", file=request.file, fix="check the path")
    found = sniff(request.file)  # None: the ncu CSV reader says what the file lacks
    trace = found is not None and found.family is TRACE
    report = read_ncu_rep(request.file) if found is NCU_REPORT else None
    if trace:
        summary = summarize_trace(request.file, request.device, request.phase)
    elif report:
        summary = summarize_export(report[0], request.device, request.phase)
        told = f"ncu.csv holds the metrics {report[0].notes[0]}, kept as {NCU_REPORT_FILE}."
        request = replace(request, notes=" ".join(n for n in (request.notes, told) if n))
    else:
        summary = summarize_file(request.file, request.device, request.phase)
    source = source_for(request, summary)
    stored = TRACE_FILE if trace else "ncu.csv"

    def fill(staging: Path) -> None:
        if report:  # the binary verbatim, and what was read from it: the report reads that
            shutil.copyfile(request.file, staging / NCU_REPORT_FILE)
            write_csv(report[1], staging / stored)
        elif trace and not _is_gzip(request.file):
            with request.file.open("rb") as plain, gzip.open(staging / stored, "wb") as packed:
                shutil.copyfileobj(plain, packed)  # the same bytes, compressed
        else:
            shutil.copyfile(request.file, staging / stored)  # verbatim: the evidence
        if trace:  # its work, analysed once: the report reads this, not the trace
            write_work(analyse_work(staging / stored), staging / stored, staging)

    write_import(folder, source, fill)
    summary["file"] = str(folder / stored)
    return ImportResult(folder, source, summary)


def write_import(folder: Path, source: Source, fill: Callable[[Path], None]) -> None:
    """The import folder, all or nothing: `fill(staging)` writes its files into a folder
    staged beside `folder`, source.toml is written and read back, then one rename puts it
    in place (it fails, rather than merges, if the name was taken since)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".tmp", dir=folder.parent))
    try:
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)  # mkdtemp's 0700 would hide it from other readers
        fill(staging)
        (staging / "source.toml").write_text(source_toml(source), encoding="utf-8")
        load_source(staging / "source.toml")  # what the report will read back
        os.rename(staging, folder)
    except OSError as err:
        raise UserError(f"cannot write the import: {err}", file=folder) from err
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
