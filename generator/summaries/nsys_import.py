"""`import` of an Nsight Systems capture: its SQLite export, or its stats CSV reports, copied
verbatim into measurements/imported/<name>/nsys/ beside a source.toml.

The files are read and analysed first; only then is anything written, staged beside the
final folder and renamed in one step, as every import is."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from generator.errors import UserError
from generator.records.import_source import NSYS_DIR, SCHEMA_VERSION, Source, load_source
from generator.summaries.importer import ImportRequest, ImportResult, check_name, source_toml


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
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{request.name}.", suffix=".tmp", dir=folder.parent))
    try:
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)  # mkdtemp's 0700 would hide it from other readers
        (staging / NSYS_DIR).mkdir()
        for path in files:
            shutil.copyfile(path, staging / NSYS_DIR / path.name)  # verbatim: the evidence
        (staging / "source.toml").write_text(source_toml(source), encoding="utf-8")
        load_source(staging / "source.toml")
        os.rename(staging, folder)
    except OSError as err:
        raise UserError(f"cannot write the import: {err}", file=folder) from err
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    summary["file"] = [str(folder / NSYS_DIR / name) for name in names]
    return ImportResult(folder, source, summary)
