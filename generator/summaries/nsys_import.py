"""`import` of an Nsight Systems capture: its SQLite export, or its stats CSV reports, copied
verbatim into measurements/imported/<name>/nsys/ beside a source.toml.

The files are read and analysed first; only then is anything written, staged beside the
final folder and renamed in one step, as every import is."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from generator.errors import UserError
from generator.records.import_source import NSYS_DIR, SCHEMA_VERSION, Source
from generator.summaries.importer import (
    ImportRequest,
    ImportResult,
    check_name,
    validated_source,
    write_import,
)


def nsys_device(request: ImportRequest, gpu_names: Sequence[str], first: Path) -> str:
    """The catalog id: --device, else the one GPU the SQLite export names."""
    from generator.catalog import lookup_device

    if request.device:
        device = lookup_device(request.device)
        if device is None:
            raise UserError(
                f"--device {request.device!r} is not in the catalog",
                fix="pass a catalog id or name (the Hardware page lists them)",
            )
        return device.id
    found = {d.id for name in gpu_names if (d := lookup_device(name)) is not None}
    if len(found) == 1:
        return found.pop()
    named = ", ".join(gpu_names) or "none (the stats reports do not name the GPU)"
    raise UserError(
        f"no device given, and the capture's GPUs are not one catalog device: {named}",
        file=first,
        fix="pass --device with a catalog id or name, e.g. --device h100-sxm",
    )


def nsys_source(request: ImportRequest, summary: dict[str, object], device: str) -> Source:
    files = [Path(str(f)) for f in summary["file"]]  # type: ignore[attr-defined]
    where = request.origin or ", ".join(p.name for p in files)
    data = {
        "schema_version": SCHEMA_VERSION,
        "title": request.title or f"{request.name} (Nsight Systems, {summary['form']})",
        "origin": where,
        "device": device,
        "model": request.model or request.registry_model or "not stated",
        "workload": request.workload or f"an Nsight Systems capture ({summary['form']})",
        "batch": request.batch,
        "phase": request.phase,
        "precision": request.precision or "not stated",
        "citation": request.citation or where,
        "license": request.license,
        "notes": request.notes,
        "registry_model": request.registry_model,
        "dataset": request.dataset,
    }
    return validated_source(data)


def import_nsys(request: ImportRequest, inputs: Sequence[Path]) -> ImportResult:
    from generator.summaries.nsys import summarize_nsys

    folder = check_name(request.name, request.measurements)
    summary = summarize_nsys(inputs)
    files = [Path(f) for f in summary["file"]]
    names = [f.name for f in files]
    if len(set(names)) != len(names):
        raise UserError(
            "two of the capture's files have the same name",
            file=", ".join(str(f) for f in files),
            fix="rename one; each file is kept under its own name in nsys/",
        )
    device = nsys_device(request, summary["device_names"], files[0])
    source = nsys_source(request, summary, device)

    def fill(staging: Path) -> None:
        (staging / NSYS_DIR).mkdir()
        for path in files:
            shutil.copyfile(path, staging / NSYS_DIR / path.name)  # verbatim: the evidence

    write_import(folder, source, fill)
    summary["file"] = [str(folder / NSYS_DIR / name) for name in names]
    return ImportResult(folder, source, summary)
