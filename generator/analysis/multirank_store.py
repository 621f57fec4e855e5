"""A multi-rank capture's analysis, kept beside its rank files (`ranks-analysis.parquet`),
so the report never reads the ranks' traces again.

The file holds the per-rank, per-step table without its roof (the roof is applied at every
build, `with_bounds`, so a catalog fix or new ceilings never leave a stored number
behind); the rest (ranks, world size, backend) is JSON in its Parquet metadata with each
rank file's digest and `CAPTURE_VERSION`. A file whose digests or version differ is not
read: the ranks are analysed again.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import polars as pl

from generator.analysis.multirank import (
    ROOF_ONLY,
    STEP_SCHEMA,
    MultiRank,
    RankInfo,
    analyse_ranks,
    stragglers_of,
)
from generator.analysis.roofs import Roof
from generator.analysis.trace_roofline import with_bounds
from generator.atomic import write_bytes
from generator.ingest.digests import file_digest
from generator.records.import_source import RANKS_DIR

CAPTURE_VERSION = 1
CAPTURE_FILE = "ranks-analysis.parquet"
CAPTURE_KEY = "roofline-atlas:multi-rank"


def capture_bytes(capture: MultiRank) -> bytes:
    meta = {
        "version": CAPTURE_VERSION,
        "world_size": capture.world_size,
        "backend": capture.backend,
        "ranks": [
            {
                "rank": r.rank,
                "file": r.path.name,
                "digest": file_digest(r.path),
                "rank_from": r.rank_from,
                "on_gpu": r.on_gpu,
                "device": r.device,
                "kernels": r.kernels,
                "ops": r.ops,
            }
            for r in capture.ranks
        ],
    }
    buffer = io.BytesIO()
    capture.steps.drop(ROOF_ONLY).write_parquet(
        buffer, metadata={CAPTURE_KEY: json.dumps(meta, separators=(",", ":"))}
    )
    return buffer.getvalue()


def write_capture(capture: MultiRank, folder: Path) -> Path:
    path = folder / CAPTURE_FILE
    write_bytes(path, capture_bytes(capture))
    return path


def _current(folder: Path) -> dict[str, Any] | None:
    path = folder / CAPTURE_FILE
    try:
        meta: dict[str, Any] = json.loads(pl.read_parquet_metadata(path)[CAPTURE_KEY])
    except Exception:  # missing, torn or not ours: analysed again, never trusted
        return None
    if meta.get("version") != CAPTURE_VERSION:
        return None
    for rank in meta["ranks"]:
        trace = folder / RANKS_DIR / rank["file"]
        if not trace.is_file() or file_digest(trace) != rank["digest"]:
            return None
    return meta


def read_capture(folder: Path, roofs: dict[str, Roof]) -> MultiRank:
    """The imported capture in `folder`: from its stored analysis when current, else from
    its rank files (`analyse_ranks`), on `roofs` either way."""
    meta = _current(folder)
    if meta is None:
        return analyse_ranks([folder / RANKS_DIR], roofs=roofs)
    steps = with_bounds(pl.read_parquet(folder / CAPTURE_FILE), roofs).select(list(STEP_SCHEMA))
    ranks = tuple(
        RankInfo(
            rank=int(r["rank"]),
            path=folder / RANKS_DIR / r["file"],
            rank_from=str(r["rank_from"]),
            on_gpu=bool(r["on_gpu"]),
            device=r["device"],
            kernels=int(r["kernels"]),
            ops=int(r["ops"]),
        )
        for r in meta["ranks"]
    )
    return MultiRank(
        inputs=(folder / RANKS_DIR,),
        ranks=ranks,
        problems=(),
        world_size=meta["world_size"],
        backend=meta["backend"],
        roofs=roofs,
        steps=steps,
        stragglers=stragglers_of(steps),
    )
