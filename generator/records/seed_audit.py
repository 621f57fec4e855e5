"""The seed audit: every analysis item of the five seed reports (each table, figure, formula
and claim a reader would check) and what this report shows of it
(measurements/literature/audit/items.csv).

A row that says the report reproduces an item names the page and a phrase of that page's
text: the test suite builds the report and checks that every such phrase is on its page, so an
item cannot stay "reproduced" after its page stops showing it. A row that says the item is
partial or missing names the device or the data that would complete it. No torch here."""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from generator.errors import UserError

AUDIT_FILE = Path("literature") / "audit" / "items.csv"
COLUMNS = ("item", "seed", "where", "kind", "what", "status", "page", "shows", "needs", "note")
KINDS = ("table", "figure", "formula", "claim")
# status -> (its mark in the audit's tally, what it means)
STATUSES = {
    "reproduced": (
        "✓",
        "reproduced: the same analysis of the same workload, beside the seed's number",
    ),
    "corrected": ("✓c", "reproduced, with the seed's error named and corrected"),
    "partial": ("partial", "part of it is shown; the rest needs the device or data named"),
    "missing": ("missing", "not in the report; what would build it is named"),
}
SHOWN = ("reproduced", "corrected", "partial")  # statuses that point at a page
_ITEM = re.compile(r"^(\d{3})-\d{2}$")
_PAGE = re.compile(r"^[A-Za-z0-9/_.-]*/(#[A-Za-z0-9_.-]+)?$")
_FIX = "see measurements/literature/README.md, section 'The seed audit', for the columns"


@dataclass(frozen=True)
class AuditItem:
    item: str
    seed: str
    where: str
    kind: str
    what: str
    status: str
    page: str  # site-relative folder of the page, with an optional '#anchor'; "" when missing
    shows: str  # a phrase of that page's visible text
    needs: str  # the device or data a partial or missing item needs
    note: str
    line: int

    @property
    def mark(self) -> str:
        return STATUSES[self.status][0]

    @property
    def page_folder(self) -> str:
        return self.page.partition("#")[0]


def _fail(path: Path, line: int, what: str, key: str) -> NoReturn:
    raise UserError(what, file=path, line=line, key=key, fix=_FIX)


def read_audit(measurements: Path) -> list[AuditItem]:
    """The audit's rows in file order, validated; [] when the file is absent."""
    path = measurements / AUDIT_FILE
    if not path.is_file():
        return []
    items: list[AuditItem] = []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            _fail(path, 1, f"the header must be exactly: {','.join(COLUMNS)}", "header")
        for record in reader:
            items.append(_read_row(path, reader.line_num, record, {i.item for i in items}))
    return items


def _read_row(path: Path, line: int, record: dict[str, str], seen: set[str]) -> AuditItem:
    if None in record or any(record[c] is None for c in COLUMNS):
        _fail(path, line, "the row has a different number of cells than the header", "item")
    cell = {c: record[c].strip() for c in COLUMNS}
    match = _ITEM.match(cell["item"])
    if match is None or match.group(1) != cell["seed"]:
        _fail(path, line, f"item {cell['item']!r} is not '<seed>-<two digits>'", "item")
    if cell["item"] in seen:
        _fail(path, line, f"item {cell['item']!r} appears twice", "item")
    if cell["kind"] not in KINDS:
        _fail(path, line, f"kind {cell['kind']!r} is not one of {', '.join(KINDS)}", "kind")
    if cell["status"] not in STATUSES:
        _fail(
            path, line, f"status {cell['status']!r} is not one of {', '.join(STATUSES)}", "status"
        )
    if not cell["where"] or not cell["what"]:
        _fail(path, line, "where and what say which analysis of the seed this is", "what")
    if cell["status"] in SHOWN:
        if not _PAGE.match(cell["page"]):
            _fail(
                path,
                line,
                f"page {cell['page']!r} is not a site folder ('.../' or '.../#anchor')",
                "page",
            )
        if not cell["shows"]:
            _fail(path, line, "a shown item needs `shows`, a phrase of its page's text", "shows")
    elif cell["page"] or cell["shows"]:
        _fail(path, line, "a missing item has no page and no `shows`", "page")
    if cell["status"] in ("partial", "missing") and not cell["needs"]:
        _fail(path, line, f"a {cell['status']} item names the device or data it needs", "needs")
    return AuditItem(**cell, line=line)


@dataclass(frozen=True)
class Tally:
    seed: str  # "" for all seeds together
    counts: dict[str, int]  # status -> items

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def tallies(items: Sequence[AuditItem]) -> list[Tally]:
    """Items per status for each seed, then for all of them."""

    def tally(seed: str, chosen: Sequence[AuditItem]) -> Tally:
        counted = Counter(i.status for i in chosen)
        return Tally(seed, {status: counted.get(status, 0) for status in STATUSES})

    seeds = sorted({i.seed for i in items})
    return [tally(s, [i for i in items if i.seed == s]) for s in seeds] + [tally("", items)]
