"""The report build: a pipeline of stages, each taking the previous stage's typed result.

    load_measurements -> analyse -> check -> draw -> write_pages -> publish
    (Loaded)            (Analysed) (Checked) (Report) (Written)    (site/)

Generated pages go to docs/hardware.md and docs/measurements/ (git-ignored); MkDocs builds
the aggregate and hand-written pages into a temporary folder and the build renders the pages
per run itself; site/ changes only when `mkdocs build --strict` and the link check
succeeded, so a failed build never leaves a partial site (site/publish.py).
"""

from __future__ import annotations

import gc
import os
import resource
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from generator import memo
from generator.atomic import write_json, write_text
from generator.ingest import digests
from generator.ingest.cache import DEFAULT_CACHE
from generator.pages.chart_render import ChartRenderer
from generator.pages.page import Report
from generator.pages.render import use_template_cache
from generator.pages.workers import build_workers
from generator.records.citation import read_citation, report_commit
from generator.site.analyse import analyse
from generator.site.check import check
from generator.site.content_cache import code_digest
from generator.site.draw import draw
from generator.site.load import load_measurements
from generator.site.notebook import Execution
from generator.site.notebook import start as start_notebook
from generator.site.publish import publish
from generator.site.release import make_release, release_inputs
from generator.site.stamp import STAMP, input_fingerprint, report_up_to_date, up_to_date
from generator.site.write import Written, write_pages
from generator.site.written import save_held

STAGE_TIMES_ENV = "RA_STAGE_TIMES"  # a path: each stage's seconds are written there (bench)
PEAK_MEMORY_ENV = "RA_PEAK_MEMORY"  # a path: the build's peak memory is written there (bench)
T = TypeVar("T")


class _Clock:
    """Runs the stages: each stage's wall time, for the report-at-scale benchmark's profile.
    What a stage returns lives to the end of the build, so it is moved out of the garbage
    collector's sight (`gc.freeze`): at 1,000 runs the collector walked the loaded records
    and trace views again and again, 0.4 s of a rebuild's 6 s of CPU. Cycles are rare here
    (dataclasses, frames, specs); the young ones are collected before each freeze."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def __enter__(self) -> _Clock:
        _freeze()  # the modules imported
        return self

    def __exit__(self, *exc: object) -> None:
        gc.unfreeze()  # what is still frozen is collected again from here on

    def run(self, stage: str, call: Callable[..., T], *args: Any) -> T:
        start = time.perf_counter()
        result = call(*args)
        self.seconds[stage] = round(time.perf_counter() - start, 3)
        _freeze()
        return result


def _freeze() -> None:
    gc.collect(1)
    gc.freeze()


def peak_memory() -> dict[str, int]:
    """This process's peak resident bytes (Linux's VmHWM), and the largest of its finished
    children's (the trace workers, MkDocs): ru_maxrss, an upper bound, as a child started
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


def build_report(
    measurements: Path,
    cache_dir: Path = DEFAULT_CACHE,
    clock: _Clock | None = None,
    citation: dict[str, Any] | None = None,
) -> Report:
    """The stages up to the report, without writing anything but the caches. `citation`:
    fields over the citation read (the release's version and URL), which pages made in the
    draw stage (the run pages) name."""
    if clock is None:
        with _Clock() as own:
            return build_report(measurements, cache_dir, own, citation)
    memo.use_folder(cache_dir / "memo", code_digest())  # results kept between builds
    use_template_cache(cache_dir / "templates")
    loaded = clock.run("load", load_measurements, measurements, cache_dir)
    if citation:
        loaded = replace(loaded, citation={**loaded.citation, **citation})
    analysed = clock.run("analyse", analyse, loaded)
    return clock.run("draw", draw, clock.run("check", check, analysed))


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
    digests.use_store(cache_dir)  # the inputs' digests from earlier builds
    # read first: a bad version or CITATION.cff stops the build before anything is written
    repository = measurements.parent
    release = make_release(read_citation(repository), version, report_commit(repository))
    if run_mkdocs and fingerprint is None:
        fingerprint = input_fingerprint(measurements, docs_dir, release_inputs(version))
    if fingerprint and not force and up_to_date(docs_dir, site_dir, fingerprint):
        report_up_to_date(site_dir)
        return None
    # executed beside the stages below, from the inputs alone (site/notebook.py)
    if notebook is None and fingerprint:
        notebook = start_notebook(docs_dir, measurements, cache_dir, fingerprint)
    try:
        # One pool of processes serves every stage (pages/workers.py); the chart files are
        # drawn in it while MkDocs builds the pages.
        clock = _Clock()
        with build_workers(), ChartRenderer(cache_dir / "charts") as renderer, clock:
            # the version and its URL: what the Cite, landing and run pages name
            report = build_report(measurements, cache_dir, clock, release.citation_fields())
            written = clock.run(
                "write", write_pages, report, docs_dir, cache_dir, renderer if run_mkdocs else None
            )
            if run_mkdocs:
                clock.run(
                    "publish",
                    publish, written, measurements, site_dir, release, notebook, cache_dir,
                )  # fmt: skip
    except BaseException:
        if notebook is not None:
            notebook.cancel()
        raise
    if times := os.environ.get(STAGE_TIMES_ENV):
        write_json(Path(times), clock.seconds)
    if memory := os.environ.get(PEAK_MEMORY_ENV):
        write_json(Path(memory), peak_memory())
    save_held(cache_dir, docs_dir, written.held)  # nothing more is written into docs/
    if fingerprint:
        write_text(site_dir / STAMP, fingerprint)
    digests.save_store()
    print(
        f"report: {len(report.views)} imported measurements, {len(written.pages)} generated pages"
        + (f" -> {site_dir}/" if run_mkdocs else f" in {docs_dir}/")
    )
    return written
