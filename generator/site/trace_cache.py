"""Profiler traces analysed once. Reading a trace's JSON and attributing its work costs
~0.15 s a run, so each finished `TraceView` is kept in the cache folder, slimmed to what the
pages read, under a key of everything it is made from (the trace's bytes, the run's
layers.csv, the ceilings or source, the run's id and this package's analysis code). A
rebuild after one more run analyses that run alone; a cold build analyses the misses in
one process per core."""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from multiprocessing import get_context
from pathlib import Path

from generator.analysis.trace_analysis import TraceAnalysis
from generator.analysis.views import TraceView
from generator.atomic import write_bytes
from generator.ingest.cache import file_digest
from generator.ingest.trace.read import Events

CACHE_VERSION = 1
PARALLEL_FROM = 8  # fewer misses than this: a process pool's start-up costs more than it saves
_PACKAGE = Path(__file__).resolve().parents[1]
# The code a trace view is computed by: a change to any of it is a new key.
_CODE_DIRS = ("ingest", "analysis", "findings", "catalog", "records")


def code_digest() -> str:
    digest = hashlib.sha256(f"v{CACHE_VERSION}".encode())
    for folder in _CODE_DIRS:
        for path in sorted((_PACKAGE / folder).rglob("*")):
            if path.suffix in (".py", ".toml") and "__pycache__" not in path.parts:
                digest.update(path.read_bytes())
    digest.update((_PACKAGE / "site" / "trace_cache.py").read_bytes())
    return digest.hexdigest()[:16]


def trace_key(files: list[Path], inputs: str, code: str) -> str:
    """The cache key of one trace view: its files' content, what else it is made from
    (`inputs`: slug, source or ceilings, phase) and the analysis code."""
    digest = hashlib.sha256(f"{code}\0{inputs}".encode())
    for path in files:
        digest.update(f"\0{path.name}\0".encode() + file_digest(path).encode())
    return digest.hexdigest()[:32]


def slim(view: TraceView) -> TraceView:
    """What the pages and the device-choice analysis read: the grouped tables, the totals,
    the launches and kernels; not the raw ops, ranges or per-item points (most of a
    trace's memory, and of its pickle)."""
    analysis: TraceAnalysis = view.analysis
    trace = analysis.trace
    attribution = analysis.attribution
    slim_trace = replace(trace, ops=Events(), ranges=Events(), memcpy=Events(), memset=Events())
    return replace(
        view,
        analysis=replace(
            analysis,
            trace=slim_trace,
            attribution=replace(
                attribution, work=attribution.work.clear(), instances=attribution.instances.clear()
            ),
            points=analysis.points.clear(),
        ),
    )


def _path(cache_dir: Path, key: str) -> Path:
    return cache_dir / "traces" / key[:2] / f"{key}.pickle"


def _cached(cache_dir: Path, key: str) -> TraceView | None:
    path = _path(cache_dir, key)
    if not path.is_file():
        return None
    try:
        view = pickle.loads(path.read_bytes())
    except Exception:  # a cache file from another version or a torn disk: recompute
        return None
    return view if isinstance(view, TraceView) else None


def _compute(job: Callable[[], TraceView]) -> TraceView:
    return slim(job())


def cached_views(
    jobs: list[tuple[str, Callable[[], TraceView]]], cache_dir: Path
) -> list[TraceView]:
    """Each job's view, from the cache or computed (in parallel when many are missing) and
    stored. `jobs`: (key, a picklable function that computes the view)."""
    found: list[TraceView | None] = [_cached(cache_dir, key) for key, _ in jobs]
    missing = [i for i, view in enumerate(found) if view is None]
    workers = min(os.cpu_count() or 1, len(missing))
    if len(missing) >= PARALLEL_FROM and workers > 1:
        # spawn, not fork: Polars' thread pool does not survive a fork.
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            computed = list(pool.map(_compute, [jobs[i][1] for i in missing], chunksize=4))
    else:
        computed = [_compute(jobs[i][1]) for i in missing]
    for index, view in zip(missing, computed, strict=True):
        found[index] = view
        write_bytes(_path(cache_dir, jobs[index][0]), pickle.dumps(view, protocol=5))
    return [view for view in found if view is not None]
