"""Large long-layout ncu exports, made deterministically from real rows.

The rows of a real export (the imported L4 ResNet-18 step in measurements/imported/, by default) are
repeated block by block with fresh kernel IDs until the file has the requested number of
data rows, so the benchmark parses exactly what ncu writes (quoting, units varying by
row, thousands separators, NVTX columns), only more of it."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = REPO / "measurements" / "imported" / "l4-resnet18-train-step-b64" / "ncu.csv"


def source_label(source: Path) -> str:
    """The source as a path relative to the repository where it lies inside it."""
    return source.relative_to(REPO).as_posix() if source.is_relative_to(REPO) else str(source)


def _quoted(fields: list[str]) -> str:
    return ",".join('"' + f.replace('"', '""') + '"' for f in fields) + "\n"


def generate(target: Path, rows: int, source: Path = DEFAULT_SOURCE) -> Path:
    """Write `rows` data rows to `target` (atomic; reused when it already has them)."""
    stamp = target.with_suffix(".rows")
    if (
        target.exists()
        and stamp.exists()
        and stamp.read_text().strip() == f"{rows} {source_label(source)}"
    ):
        return target
    text = source.read_text(encoding="utf-8-sig")
    lines = text.splitlines(keepends=True)
    header_index = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    reader = csv.reader(io.StringIO("".join(lines[header_index:])))
    header = next(reader)
    records = [r for r in reader if r]
    id_column = header.index("ID")
    kernel_ids = sorted({int(r[id_column]) for r in records})
    span = max(kernel_ids) + 1
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_suffix(".tmp")
    written = 0
    block = 0
    with temp.open("w", encoding="utf-8", newline="") as out:
        out.write(_quoted(header))
        while written < rows:
            buffer = []
            for record in records:
                if written >= rows:
                    break
                fields = list(record)
                fields[id_column] = str(int(record[id_column]) + block * span)
                buffer.append(_quoted(fields))
                written += 1
            out.write("".join(buffer))
            block += 1
    os.replace(temp, target)
    target.with_suffix(".rows").write_text(f"{rows} {source_label(source)}\n")
    return target
