"""Large long-layout ncu exports, made deterministically from real rows.

The rows of a real export (shared/data/ncu/, the L4 ResNet-18 step by default) are
repeated block by block with fresh kernel IDs until the file has the requested number of
data rows, so the benchmark parses exactly what ncu writes (quoting, units varying by
row, thousands separators, NVTX columns), only more of it."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

SHARED_NCU = Path(__file__).resolve().parents[2] / "shared" / "data" / "ncu"
DEFAULT_SOURCE = SHARED_NCU / "taytwkim__nn-perf__a1-rep.csv"


def _quoted(fields: list[str]) -> str:
    return ",".join('"' + f.replace('"', '""') + '"' for f in fields) + "\n"


def generate(target: Path, rows: int, source: Path = DEFAULT_SOURCE) -> Path:
    """Write `rows` data rows to `target` (atomic; reused when it already has them)."""
    stamp = target.with_suffix(".rows")
    if target.exists() and stamp.exists() and stamp.read_text().strip() == f"{rows} {source.name}":
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
    target.with_suffix(".rows").write_text(f"{rows} {source.name}\n")
    return target
