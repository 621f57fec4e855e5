"""Profiler traces analysed and drawn once. Reading a trace's JSON, attributing its work and
drawing its page cost ~0.3 s a run, so each finished `TraceView` (slimmed to what the pages
read) and its trace page (downloads made) are kept in the store (kind `traces`) under a key
of everything they are made from (the trace's bytes, the run's layers.csv, the ceilings or
source, the run's id and, through the store, this package's code and templates). A rebuild after one more run
reads, analyses and draws that run alone; a cold build does the misses in one process per
core."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

import polars as pl

from generator.analysis.trace_analysis import TraceAnalysis
from generator.analysis.views import TraceView
from generator.ingest.digests import file_digest
from generator.pages.downloads import attach_downloads
from generator.pages.page import Page
from generator.pages.workers import map_on_cores
from generator.site.content_cache import PageEntry
from generator.site.context import BuildContext
from generator.store import Store

KIND = "traces"
ENTRY: PageEntry[TraceView] = PageEntry(TraceView)


def trace_key(files: list[Path], inputs: str, store: Store) -> str:
    """The store's key of one trace view: its files' content and what else it is made from
    (`inputs`: slug, source or ceilings, phase)."""
    named = [part for path in files for part in (path.name, file_digest(path))]
    return store.key(KIND, [inputs, *named])


def is_stored(key: str, store: Store) -> bool:
    return store.has(KIND, key, ENTRY)


def slim(view: TraceView) -> TraceView:
    """What the pages and the device-choice analysis read: the grouped tables, the totals,
    the work's counts; not the trace's events or the per-item points (most of a trace's
    memory, and of its pickle)."""
    analysis: TraceAnalysis = view.analysis
    trace = analysis.trace
    attribution = analysis.attribution
    slim_trace = trace.without_events()
    return replace(
        view,
        analysis=replace(
            analysis,
            trace=slim_trace,
            attribution=replace(
                attribution, work=attribution.work.clear(), instances=attribution.instances.clear()
            ),
            points=analysis.points.clear(),
            work=replace(analysis.work, points=analysis.work.points.clear()),
        ),
    )


# Stands for a table that only the trace's own page reads, in a view whose page is drawn.
DRAWN = pl.DataFrame()


def for_aggregates(view: TraceView) -> TraceView:
    """A run's view as the pages across runs read it once its own page is drawn: its op
    table (the check against the device's ceilings) and layers (device choice's estimate)
    kept, the page's own tables (by step, phase, layer and range) and the tables `slim`
    emptied left out, as one empty frame. Each of a view's ten frames cost ~20 µs to read
    back: the analyse stage of a rebuild after one more run at 1,000 runs took 1.0 s with
    all ten, 0.75 s with three (medians of eight paired rebuilds). An imported trace's view
    is kept whole: the overview and device choice read more of it."""
    if view.kind != "run":
        return view
    analysis: TraceAnalysis = view.analysis
    attribution = analysis.attribution
    return replace(
        view,
        analysis=replace(
            analysis,
            attribution=replace(attribution, work=DRAWN, instances=DRAWN),
            points=DRAWN,
            by_step=DRAWN,
            by_phase=DRAWN,
            by_layer=DRAWN,
            by_range=DRAWN,
            work=replace(analysis.work, points=DRAWN),
        ),
    )


def _compute(job: Callable[[], TraceView], store: Store) -> tuple[TraceView, Page]:
    """The view as the other pages read it and its page, downloads made (charts through
    the chart cache)."""
    from generator.pages.trace_profile import trace_page  # altair: import on use

    view = slim(job())
    linked, files = attach_downloads([trace_page(view)], store)
    # its charts and tables live on as the files made from them
    return for_aggregates(view), replace(linked[0], files=files, charts={}, tables={})


def cached_traces(
    jobs: list[tuple[str, Callable[[], TraceView]]], context: BuildContext
) -> list[tuple[TraceView, Page]]:
    """Each job's view and trace page, from the store or computed (in the build's pool
    when many are missing: a cold build's reading, analysing and drawing of every trace)
    and stored. `jobs`: (key, a picklable function that computes the view)."""
    compute = partial(_compute, store=context.store)

    def make(missing: list[int]) -> list[tuple[TraceView, Page]]:
        return map_on_cores(compute, [jobs[i][1] for i in missing], context.workers)

    keys = [key for key, _ in jobs]
    return context.store.get_or_make_all(KIND, keys, make, ENTRY)
