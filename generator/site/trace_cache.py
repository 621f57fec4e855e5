"""Profiler traces analysed and drawn once. Reading a trace's JSON, attributing its work and
drawing its page cost ~0.3 s a run, so each finished `TraceView` (slimmed to what the pages
read) and its trace page (downloads made) are kept in the cache folder under a key of
everything they are made from (the trace's bytes, the run's layers.csv, the ceilings or
source, the run's id and this package's code and templates). A rebuild after one more run
reads, analyses and draws that run alone; a cold build does the misses in one process per
core."""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from multiprocessing import get_context
from pathlib import Path
from typing import TypeVar

from generator.analysis.trace_analysis import TraceAnalysis
from generator.analysis.views import TraceView
from generator.atomic import write_bytes
from generator.ingest.cache import file_digest
from generator.ingest.trace.read import Events
from generator.pages.downloads import attach_downloads
from generator.pages.page import Page
from generator.site.stamp import LIBRARIES

CACHE_VERSION = 2
A = TypeVar("A")
R = TypeVar("R")
PARALLEL_FROM = 8  # fewer misses than this: a process pool's start-up costs more than it saves
_PACKAGE = Path(__file__).resolve().parents[1]
# The code a trace view is computed by: a change to any of it is a new key.
_CODE_DIRS = ("ingest", "analysis", "findings", "catalog", "records", "charts", "pages")


def code_digest() -> str:
    """The code and libraries that compute and draw a cached view: the folders above, the
    package's top-level modules (formatting.py), the caches themselves, and the versions of
    the libraries whose output a cached page holds (specs, SVG and PDF, CSV and Parquet)."""
    digest = hashlib.sha256(f"v{CACHE_VERSION}".encode())
    for folder in _CODE_DIRS:
        for path in sorted((_PACKAGE / folder).rglob("*")):
            if path.suffix in (".py", ".toml", ".j2") and "__pycache__" not in path.parts:
                digest.update(path.read_bytes())
    for path in sorted(_PACKAGE.glob("*.py")):
        digest.update(path.read_bytes())
    for name in ("trace_cache.py", "page_cache.py"):
        digest.update((_PACKAGE / "site" / name).read_bytes())
    for library in LIBRARIES:
        try:
            digest.update(f"{library}={version(library)};".encode())
        except PackageNotFoundError:
            digest.update(f"{library}=none;".encode())
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


def _cached(cache_dir: Path, key: str) -> tuple[TraceView, Page] | None:
    path = _path(cache_dir, key)
    if not path.is_file():
        return None
    try:
        view, page = pickle.loads(path.read_bytes())
    except Exception:  # a cache file from another version or a torn disk: recompute
        return None
    return (view, page) if isinstance(view, TraceView) and isinstance(page, Page) else None


def _compute(job: Callable[[], TraceView], charts_dir: Path) -> tuple[TraceView, Page]:
    """The slimmed view and its page, downloads made (charts through the chart cache)."""
    from generator.pages.trace_profile import trace_page  # altair: import on use

    view = slim(job())
    linked, files = attach_downloads([trace_page(view)], charts_dir)
    # its charts and tables live on as the files made from them
    return view, replace(linked[0], files=files, charts={}, tables={})


def map_on_cores(function: Callable[[A], R], items: list[A]) -> list[R]:
    """`function` over `items`, in a process per core when there are enough of them that
    the processes' start-up (imports: ~1 s) pays; `function` must be picklable."""
    workers = min(os.cpu_count() or 1, len(items))
    if len(items) < PARALLEL_FROM or workers < 2:
        return [function(item) for item in items]
    # spawn, not fork: Polars' thread pool does not survive a fork.
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        return list(pool.map(function, items, chunksize=4))


def cached_traces(
    jobs: list[tuple[str, Callable[[], TraceView]]], cache_dir: Path
) -> list[tuple[TraceView, Page]]:
    """Each job's view and trace page, from the cache or computed (in a process per core
    when many are missing: a cold build's reading, analysing and drawing of every trace)
    and stored. `jobs`: (key, a picklable function that computes the view)."""
    found = [_cached(cache_dir, key) for key, _ in jobs]
    missing = [i for i, item in enumerate(found) if item is None]
    compute = partial(_compute, charts_dir=cache_dir / "charts")
    computed = map_on_cores(compute, [jobs[i][1] for i in missing])
    for index, item in zip(missing, computed, strict=True):
        found[index] = item
        write_bytes(_path(cache_dir, jobs[index][0]), pickle.dumps(item, protocol=5))
    return [item for item in found if item is not None]
