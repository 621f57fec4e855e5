"""The files of a multi-rank capture: a folder of per-rank torch.profiler traces, or the
files given one by one. Which rank a file is comes from its `distributedInfo` (read when
the file is read: `rank_of`); a file without one is placed by its name (`rank-3...`,
`rank_3`, `rank3`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from generator.errors import UserError
from generator.ingest.formats import TORCH_TRACE, sniff

RANK_IN_NAME = re.compile(r"rank[-_]?(\d+)", re.IGNORECASE)
RANK_FIX = (
    "record each rank with torch.profiler under torch.distributed (its trace then carries "
    "distributedInfo), or name the file after its rank, e.g. rank-3.json.gz"
)


def is_multirank(paths: Sequence[Path]) -> bool:
    """A folder, or more than one path: what `summarize --ranks` and `import` read as one
    capture of several ranks."""
    return len(paths) > 1 or (len(paths) == 1 and paths[0].is_dir())


def rank_files(paths: Sequence[Path]) -> list[Path]:
    """The trace files of the capture, in name order: every file of a folder that is a
    trace by its content (others, such as a README, are left alone), and each file given."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if sniff(p) is TORCH_TRACE)
            if not found:
                raise UserError(
                    "the folder holds no torch.profiler trace",
                    file=path,
                    fix="pass the folder that tensorboard_trace_handler or "
                    "export_chrome_trace wrote, one trace per rank",
                )
            files += found
        elif path.is_file():
            files.append(path)
        else:
            raise UserError("no such file or folder", file=path, fix="check the path")
    return files


def rank_of(path: Path, distributed: dict[str, Any]) -> tuple[int, str]:
    """The file's rank and where it was read from ('distributedInfo' or 'file name')."""
    rank = distributed.get("rank")
    if isinstance(rank, int) and not isinstance(rank, bool) and rank >= 0:
        return rank, "distributedInfo"
    found = RANK_IN_NAME.search(path.name)
    if found:
        return int(found.group(1)), "file name"
    raise UserError(
        "cannot tell which rank this trace is: it has no distributedInfo.rank and its name "
        "has no rank number",
        file=path,
        key="distributedInfo.rank",
        fix=RANK_FIX,
    )


def world_size_of(distributed: dict[str, Any]) -> int | None:
    size = distributed.get("world_size")
    if isinstance(size, int) and not isinstance(size, bool) and size > 0:
        return size
    return None
