"""`import` of an Nsight Systems capture: its SQLite export, or its stats CSV reports, or a
rocprofv3 JSON, copied verbatim into measurements/imported/<name>/nsys/ beside a
source.toml.

The files are read and analysed first; only then is anything written, staged beside the
final folder and renamed in one step, as every import is."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from generator.errors import UserError
from generator.records.import_source import NSYS_DIR, Source
from generator.summaries.importer import (
    ImportRequest,
    ImportResult,
    check_name,
    given_device,
    request_source,
    write_import,
)

NO_GPU = "not recorded"  # source.toml's device for a capture that traced no GPU work


def nsys_device(request: ImportRequest, summary: dict[str, Any], first: Path) -> str:
    """The catalog id: --device, else the one GPU the SQLite export names; NO_GPU for a
    capture that traced no GPU work (nothing on its page depends on a GPU)."""
    from generator.catalog import lookup_device

    given = given_device(request, "pass a catalog id or name (the Hardware page lists them)")
    if given:
        return given
    if not summary["gpu_traced"]:
        return NO_GPU
    gpu_names = summary["device_names"]
    found = {d.id for name in gpu_names if (d := lookup_device(name)) is not None}
    if len(found) == 1:
        return found.pop()
    nameless = {
        "SQLite export": "none (the export names no GPU)",
        "rocprofv3 JSON": "none (the file names no GPU agent)",
        "rocprofv3 kernel trace CSV": "none (rocprofv3's kernel trace names no GPU)",
    }
    named = ", ".join(gpu_names) or nameless.get(
        summary["form"], "none (the stats reports do not name the GPU)"
    )
    raise UserError(
        f"no device given, and the capture's GPUs are not one catalog device: {named}",
        file=first,
        fix="pass --device with a catalog id or name, e.g. --device h100-sxm",
    )


def nsys_source(request: ImportRequest, summary: dict[str, Any], device: str) -> Source:
    tool = summary["format"].removesuffix(" capture")  # "Nsight Systems", "rocprofv3"
    return request_source(
        request,
        device=device,
        origin=", ".join(Path(f).name for f in summary["file"]),
        title=summary["form"] if summary["form"].startswith(tool) else f"{tool}, {summary['form']}",
        workload=f"{'a' if tool == 'rocprofv3' else 'an'} {tool} capture ({summary['form']})",
    )


def import_nsys(
    request: ImportRequest, inputs: Sequence[Path], kept: Sequence[Path] = ()
) -> ImportResult:
    """`kept`: binary reports the inputs were exported from, copied verbatim beside them (the
    report reads the export; nsys/ keeps the evidence)."""
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
    device = nsys_device(request, summary, files[0])
    source = nsys_source(request, summary, device)

    def fill(staging: Path) -> None:
        (staging / NSYS_DIR).mkdir()
        for path in [*files, *kept]:
            shutil.copyfile(path, staging / NSYS_DIR / path.name)  # verbatim: the evidence

    write_import(folder, source, fill)
    summary["file"] = [str(folder / NSYS_DIR / name) for name in names]
    return ImportResult(folder, source, summary)
