"""Run pages made once per content. At 1,000 runs, rendering every run page and making its
downloads (its row and timed steps as CSV and Parquet, the run's own files read) cost ~1.5 s
of a rebuild after one more run, which changes its own page and those of the runs it pools
with. So each finished page (downloads made, `content_cache.StoredFiles`) is kept in the
cache folder under a key of everything it is made from: the run's row and context
(findings, verdict, record, the pages it links), the citation, the content of the run's
files and this package's code and templates. A rebuild makes the changed pages alone, and
site/written.py leaves the others' files in docs/ untouched."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from generator.ingest.digests import file_digest
from generator.ingest.runs import RunRow, run_rows
from generator.memo import content_bytes
from generator.pages.downloads import attach_downloads
from generator.pages.page import Page, Report
from generator.pages.run_pages import RUN_FILES, RunContext, run_page
from generator.pages.runs import run_contexts
from generator.site.content_cache import PageEntry
from generator.store import Store

ENTRY: PageEntry[str] = PageEntry(str)


def run_page_key(row: RunRow, context: RunContext, citation: Any, store: Store) -> str:
    """The page's inputs by content. The context's folder, steps and record are keyed by the
    run's files' digests (the steps are parsed from steps.csv, the record from run.json, by
    code the key holds): comparing them as values would cost more than making the page."""
    by_value = replace(context, folder=None, steps=None, record=None)
    parts: list[str | bytes] = [content_bytes((row, by_value, citation))]
    if context.folder is not None:
        for name in RUN_FILES:
            path = context.folder / name
            parts += [name, file_digest(path) if path.is_file() else "-"]
    parts.append(f"{context.steps is not None}\0{context.record is not None}")
    return store.key("runs", parts)


def _made(row: RunRow, context: RunContext, citation: Any) -> Page:
    linked, files = attach_downloads([run_page(row, context, citation)])
    # its tables and copied files live on as the files made from them
    return replace(linked[0], files=files, tables={}, copies={})


def cached_run_pages(report: Report, store: Store) -> dict[str, Page]:
    """Each run's page by run id, downloads made, from the store or made and stored."""
    contexts = run_contexts(report)
    rows = run_rows(report.runs)
    made_from = [(row, contexts.get(row["run_id"], RunContext())) for row in rows]

    def make(missing: list[int]) -> list[tuple[str, Page]]:
        return [(made_from[i][0]["run_id"], _made(*made_from[i], report.citation)) for i in missing]

    keys = [run_page_key(row, context, report.citation, store) for row, context in made_from]
    return dict(store.get_or_make_all("runs", keys, make, ENTRY))
