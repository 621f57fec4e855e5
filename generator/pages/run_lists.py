"""Many runs, few rows: above `SUMMARY_FROM` runs the runs page shows one row per
configuration (its pooled result and how many runs it pools) instead of one per run, and
each group's runs are listed in full on pages of `PAGE_SIZE` rows, out of the nav and
linked from the summary. Every run page stays one click from a list page."""

from __future__ import annotations

import math
import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Generic, TypeVar

from generator.analysis.verdict_needs import RESULT, ResultRow
from generator.findings import Finding
from generator.formatting import number as plain_number
from generator.pages.page import Page
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import render
from generator.pages.run_text import half_width, run_label, step_text

SUMMARY_FROM = 300  # runs in the report; a 300-row table is about the most one page holds
PAGE_SIZE = 100  # rows on one list page
LISTS_DIR = f"{GENERATED_DIR}/run-lists"
T = TypeVar("T")


def summarize(total_runs: int) -> bool:
    return total_runs > SUMMARY_FROM


def page_count(rows: int, size: int = PAGE_SIZE) -> int:
    return max(1, math.ceil(rows / size))


@dataclass(frozen=True)
class Paged(Generic[T]):
    """One page of a list: its number and the count, its path, its items, and the links
    from it to the pages before and after (None at either end)."""

    number: int
    count: int
    path: str
    items: Sequence[T]
    previous: str | None
    next: str | None


def paged(items: Sequence[T], path_of: Callable[[int], str]) -> list[Paged[T]]:
    """`items`, PAGE_SIZE to a page, page N at `path_of(N)` (from 1)."""
    count = page_count(len(items))
    pages = []
    for number in range(1, count + 1):
        path = path_of(number)
        pages.append(
            Paged(
                number,
                count,
                path,
                items[(number - 1) * PAGE_SIZE : number * PAGE_SIZE],
                link(path, path_of(number - 1)) if number > 1 else None,
                link(path, path_of(number + 1)) if number < count else None,
            )
        )
    return pages


def list_path(group_id: str, number: int) -> str:
    """Page `number` (from 1) of a group's run list, relative to docs/."""
    return f"{LISTS_DIR}/{group_id}-{number}.md"


def link(source: str, target: str) -> str:
    """A Markdown link target from page `source` to page `target` (both docs-relative)."""
    return posixpath.relpath(target, posixpath.dirname(source))


def configuration_rows(
    rows: Sequence[ResultRow], findings: dict[str, tuple[Finding, ...]], page: str
) -> list[list[str]]:
    """One row per configuration (workload) of a group's runs, in the runs' order: its
    first run's label linked to that run's page, the number of runs, and the pooled result
    every other page shows for it; failed runs count apart."""
    by_workload: dict[str, list[ResultRow]] = {}
    for row in rows:
        by_workload.setdefault(f"{row['workload']}:{row['status']}", []).append(row)
    cells = []
    for runs in by_workload.values():
        first, ok = runs[0], runs[0]["status"] == "ok"
        result = first[RESULT] if ok else None
        found = {f.id for run in runs for f in findings.get(run["run_id"], ())}
        target = link(page, f"{GENERATED_DIR}/runs/{first['run_id']}.md")
        cells.append(
            [
                f"[{run_label(first)}]({target})",
                f"{len(runs)}" + ("" if ok else f" {first['status']}"),
                step_text(result.step) if result else "",
                half_width(result.step) if result else "",
                plain_number(result.throughput.value) if result else "n/a",
                ", ".join(sorted(found)),
            ]
        )
    return cells


def list_pages(
    group_id: str,
    title: str,
    rows: Sequence[T],
    cells: Callable[[T, str], list[str]],
) -> list[Page]:
    """A group's runs, `PAGE_SIZE` to a page, each row made by `cells(row, page path)`."""
    pages = []
    for page in paged(rows, partial(list_path, group_id)):
        first = (page.number - 1) * PAGE_SIZE + 1
        markdown = render(
            "run_list.md.j2",
            group_id=group_id,
            title=title,
            number=page.number,
            count=page.count,
            first=first,
            last=first + len(page.items) - 1,
            total=len(rows),
            runs_page=link(page.path, f"{GENERATED_DIR}/runs.md"),
            previous=page.previous,
            next=page.next,
            rows=[cells(row, page.path) for row in page.items],
        )
        title_of = f"{group_id} runs, page {page.number} of {page.count}"
        pages.append(Page(page.path, title_of, markdown, in_nav=False))
    return pages
