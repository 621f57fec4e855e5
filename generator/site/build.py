"""The report build: a pipeline of stages, each taking the previous stage's typed result.

    load_measurements -> analyse -> check -> draw -> write_pages -> publish
    (Loaded)            (Analysed) (Checked) (Report) (Written)    (site/)

Everything the stages share (the store, the cache folder, the pool of workers, the
release's citation fields) is one `BuildContext` (site/context.py), made here and passed
to them. Generated pages go to docs/hardware.md and docs/measurements/ (git-ignored);
ProperDocs (the docs core) builds the aggregate and hand-written pages into a temporary
folder and the build renders the pages per run itself; site/ changes only when
`properdocs build --strict` and the link check succeeded, so a failed build never leaves a
partial site (site/publish.py).
"""

from __future__ import annotations

import gc
import os
import resource
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from generator.atomic import write_json, write_text
from generator.ingest.cache import DEFAULT_CACHE
from generator.ingest.digests import keep_digests, recall_digests
from generator.pages.chart_render import ChartRenderer
from generator.pages.page import Report
from generator.pages.scaling import CORE
from generator.records.citation import read_citation, report_commit
from generator.site.analyse import analyse
from generator.site.check import check
from generator.site.context import BuildContext, build_context
from generator.site.draw import draw
from generator.site.load import load_measurements
from generator.site.notebook import Execution
from generator.site.notebook import start as start_notebook
from generator.site.publish import publish
from generator.site.release import make_release, release_inputs
from generator.site.stamp import STAMP, input_fingerprint, report_up_to_date, up_to_date
from generator.site.write import Written, write_pages
from generator.site.written import save_held
from generator.store import Store, storing_in

STAGE_TIMES_ENV = "RA_STAGE_TIMES"  # a path: each stage's seconds are written there (bench)
PEAK_MEMORY_ENV = "RA_PEAK_MEMORY"  # a path: the build's peak memory is written there (bench)
T = TypeVar("T")


def keep_out_of_gc(result: T) -> T:
    """Move everything alive now (`result`, a stage's output, with all it reaches) out of
    the cyclic garbage collector's sight until `gc.unfreeze` (`StageTimes` does so when
    the build ends). A stage's result lives to the end of the build, and at 1,000 runs the
    collector walked the loaded records and trace views again and again: 0.4 s of a
    rebuild's 6 s of CPU. Cycles are rare here (dataclasses, frames, specs), and the young
    ones are collected first, so the frozen objects are all still in use."""
    gc.collect(1)
    gc.freeze()
    return result


class StageTimes:
    """Runs the stages and records each one's wall time (the report-at-scale benchmark's
    profile, `RA_STAGE_TIMES`), keeping each result out of the collector's walks
    (`keep_out_of_gc`) while the build runs."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def __enter__(self) -> StageTimes:
        keep_out_of_gc(None)  # the modules imported
        return self

    def __exit__(self, *exc: object) -> None:
        gc.unfreeze()  # what is still frozen is collected again from here on

    def run(self, stage: str, call: Callable[..., T], *args: Any) -> T:
        start = time.perf_counter()
        result = call(*args)
        self.seconds[stage] = round(time.perf_counter() - start, 3)
        return keep_out_of_gc(result)


def peak_memory() -> dict[str, int]:
    """This process's peak resident bytes (Linux's VmHWM), and the largest of its finished
    children's (the trace workers, ProperDocs): ru_maxrss, an upper bound, as a child started
    by fork and exec keeps the resident size it was forked with."""
    own = 0
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                own = int(line.split()[1]) * 1024
    except OSError:
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return {"build_bytes": own, "largest_child_bytes": children}


def build_report(context: BuildContext, times: StageTimes | None = None) -> Report:
    """The stages up to the report, without writing anything but the store's entries."""
    if times is None:
        with StageTimes() as own, storing_in(context.store), context.workers:
            return build_report(context, own)
    loaded = times.run("load", load_measurements, context)
    analysed = times.run("analyse", analyse, loaded)
    return times.run("draw", draw, times.run("check", check, analysed))


def build_site(
    measurements: Path,
    docs_dir: Path,
    site_dir: Path,
    run_mkdocs: bool = True,
    force: bool = False,
    cache_dir: Path | None = None,
    fingerprint: str | None = None,
    version: str | None = None,
    notebook: Execution | None = None,
) -> Written | None:
    """Run the stages; with mkdocs, skip them when site/ was built from the same inputs
    (`fingerprint`, computed here unless the caller already has it). `version`: the report
    version this build is published as (`publish`); None for an unversioned local build.
    `notebook`: the Explore notebook's execution for `fingerprint`, when the caller started
    it (else it starts here)."""
    cache_dir = cache_dir or DEFAULT_CACHE
    # read first: a bad version or CITATION.cff stops the build before anything is written
    repository = measurements.parent
    release = make_release(read_citation(repository), version, report_commit(repository))
    recall_digests(Store(cache_dir))  # the inputs' digests from earlier builds
    if run_mkdocs and fingerprint is None:
        fingerprint = input_fingerprint(measurements, docs_dir, release_inputs(version))
    if fingerprint and not force and up_to_date(docs_dir, site_dir, fingerprint):
        report_up_to_date(site_dir)
        return None
    # the version and its URL: what the Cite, landing and run pages name
    context = build_context(measurements, cache_dir, release.citation_fields())
    # executed beside the stages below, from the inputs alone (site/notebook.py)
    if notebook is None and fingerprint:
        notebook = start_notebook(docs_dir, measurements, context.store, fingerprint)
    try:
        # One pool of processes serves every stage (context.workers); the chart files are
        # drawn in it while ProperDocs builds the pages.
        renderer = ChartRenderer(context.store, context.workers)
        times = StageTimes()
        with times, storing_in(context.store), context.workers, renderer:
            report = build_report(context, times)
            written = times.run(
                "write",
                write_pages,
                report,
                docs_dir,
                context.store,
                renderer if run_mkdocs else None,
            )
            if run_mkdocs:
                core_s = times.run(
                    "publish",
                    publish, written, measurements, site_dir, release, notebook, context.store,
                    context.workers,
                )  # fmt: skip
                times.seconds[CORE] = round(core_s, 3)  # the floor of a rebuild
    except BaseException:
        if notebook is not None:
            notebook.cancel()
        raise
    if stage_times := os.environ.get(STAGE_TIMES_ENV):
        write_json(Path(stage_times), times.seconds)
    if memory := os.environ.get(PEAK_MEMORY_ENV):
        write_json(Path(memory), peak_memory())
    save_held(context.store, docs_dir, written.held)  # nothing more is written into docs/
    if fingerprint:
        write_text(site_dir / STAMP, fingerprint)
    keep_digests(context.store)
    print(
        f"report: {len(report.views)} imported measurements, {len(written.pages)} generated pages"
        + (f" -> {site_dir}/" if run_mkdocs else f" in {docs_dir}/")
    )
    return written
