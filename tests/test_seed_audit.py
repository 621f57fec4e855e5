"""The seed audit (measurements/literature/audit/items.csv): its rows are validated with a
located error, its tally counts what the file says, and every item it calls shown is shown:
the phrase it quotes is on its page of the built report."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from generator.errors import UserError
from generator.records.seed_audit import AUDIT_FILE, COLUMNS, SHOWN, STATUSES, read_audit, tallies
from tests.helpers import REPO

HEADER = ",".join(COLUMNS)
GOOD = "000-01,000,Table 1,table,peaks of two GPUs,reproduced,measurements/replication/,T4,,"


class _Text(HTMLParser):
    """A page's text as a reader sees it (scripts and styles left out), code spans included."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._hidden += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self._hidden -= tag in ("script", "style") and self._hidden > 0

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def page_text(site: Path, page: str) -> str:
    parser = _Text()
    parser.feed((site / page.partition("#")[0] / "index.html").read_text(encoding="utf-8"))
    return normal(" ".join(parser.parts))


def normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def write(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / AUDIT_FILE
    path.parent.mkdir(parents=True)
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return tmp_path


def test_committed_audit_covers_every_seed() -> None:
    items = read_audit(REPO / "measurements")
    assert {i.seed for i in items} == {"000", "001", "002", "003", "004"}
    for item in items:
        assert item.status in STATUSES
        if item.status in ("partial", "missing"):
            assert item.needs, item.item


def test_tally_counts_each_status_per_seed(tmp_path: Path) -> None:
    measurements = write(
        tmp_path,
        GOOD,
        "000-02,000,Fig. 2,figure,a chart,missing,,,a T4,",
        "001-01,001,§V,claim,a claim,partial,measurements/seed-prediction/,T4,an L4,",
    )
    found = tallies(read_audit(measurements))
    assert [(t.seed, t.counts) for t in found] == [
        ("000", {"reproduced": 1, "corrected": 0, "partial": 0, "missing": 1}),
        ("001", {"reproduced": 0, "corrected": 0, "partial": 1, "missing": 0}),
        ("", {"reproduced": 1, "corrected": 0, "partial": 1, "missing": 1}),
    ]
    assert found[-1].total == 3


@pytest.mark.parametrize(
    ("row", "key"),
    [
        ("000-01,000,Table 1,table,peaks,partial,measurements/replication/,T4,,", "needs"),
        ("000-01,000,Table 1,table,peaks,missing,,,,", "needs"),
        ("000-01,000,Table 1,table,peaks,missing,measurements/replication/,,a T4,", "page"),
        ("000-01,000,Table 1,table,peaks,shown,measurements/replication/,T4,,", "status"),
        ("000-01,000,Table 1,chart,peaks,reproduced,measurements/replication/,T4,,", "kind"),
        ("000-01,000,Table 1,table,peaks,reproduced,replication.md,T4,,", "page"),
        ("000-01,000,Table 1,table,peaks,reproduced,measurements/replication/,,,", "shows"),
        ("001-01,000,Table 1,table,peaks,reproduced,measurements/replication/,T4,,", "item"),
        ("000-01,000,Table 1,table,peaks,reproduced,measurements/replication/,T4,", "item"),
    ],
)
def test_a_bad_row_is_located(tmp_path: Path, row: str, key: str) -> None:
    with pytest.raises(UserError) as caught:
        read_audit(write(tmp_path, row))
    assert (caught.value.line, caught.value.key) == (2, key)
    assert caught.value.fix


def test_an_item_twice_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="appears twice") as caught:
        read_audit(write(tmp_path, GOOD, GOOD))
    assert caught.value.line == 3


@pytest.mark.site
def test_every_shown_item_is_on_its_page(repo_site: Path) -> None:
    items = read_audit(REPO / "measurements")
    absent = [
        f"{i.item} ({AUDIT_FILE}, line {i.line}): {i.shows!r} not on {i.page}"
        for i in items
        if i.status in SHOWN and normal(i.shows) not in page_text(repo_site, i.page)
    ]
    assert not absent, "\n".join(absent)


@pytest.mark.site
def test_the_page_states_the_files_tally(repo_site: Path) -> None:
    text = page_text(repo_site, "measurements/seed-audit/")
    total = tallies(read_audit(REPO / "measurements"))[-1]
    counts = " ".join(str(total.counts[s]) for s in STATUSES)
    assert f"all {total.total} {counts}" in text
