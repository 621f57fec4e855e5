"""The report build: a pipeline of stages, each taking the previous stage's typed result.

    load_measurements -> analyse -> check -> draw -> write_pages -> publish
    (Loaded)            (Analysed) (Checked) (Report) (Written)    (site/)

Generated pages go to docs/hardware.md and docs/measurements/ (git-ignored); the HTML is
built into a temporary folder and moved over site/ only when `mkdocs build --strict`
succeeded, so a failed build never leaves a partial site.
"""

from __future__ import annotations

from pathlib import Path

from generator.atomic import write_text
from generator.ingest.cache import DEFAULT_CACHE
from generator.pages.page import Report
from generator.site.analyse import analyse
from generator.site.check import check
from generator.site.draw import draw
from generator.site.load import load_measurements
from generator.site.publish import publish
from generator.site.stamp import STAMP, input_fingerprint, report_up_to_date, up_to_date
from generator.site.write import Written, write_pages


def build_report(measurements: Path, cache_dir: Path = DEFAULT_CACHE) -> Report:
    """The stages up to the report, without writing anything but the parse cache."""
    return draw(check(analyse(load_measurements(measurements, cache_dir))))


def build_site(
    measurements: Path,
    docs_dir: Path,
    site_dir: Path,
    run_mkdocs: bool = True,
    force: bool = False,
    cache_dir: Path | None = None,
    fingerprint: str | None = None,
) -> Written | None:
    """Run the stages; with mkdocs, skip them when site/ was built from the same inputs
    (`fingerprint`, computed here unless the caller already has it)."""
    cache_dir = cache_dir or DEFAULT_CACHE
    if run_mkdocs and fingerprint is None:
        fingerprint = input_fingerprint(measurements, docs_dir)
    if fingerprint and not force and up_to_date(docs_dir, site_dir, fingerprint):
        report_up_to_date(site_dir)
        return None
    report = build_report(measurements, cache_dir)
    written = write_pages(report, docs_dir, cache_dir)
    if run_mkdocs:
        publish(written, measurements, site_dir)
    if fingerprint:
        write_text(site_dir / STAMP, fingerprint)
    print(
        f"report: {len(report.views)} imported measurements, {len(written.pages)} generated pages"
        + (f" -> {site_dir}/" if run_mkdocs else f" in {docs_dir}/")
    )
    return written
