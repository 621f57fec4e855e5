"""The numbers a reader sees in a built report: every "value [low, high]" interval on every
page, read from the HTML as text, with what its sentence, cell or column says of its kind.
Used by tests/test_whole_report.py (issue 49)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bs4 import BeautifulSoup, Tag

# What says an interval's kind (analysis/interval.py's words, the Spearman bootstrap's and
# the coverage's binomial one)
KIND_WORDS = ("calibrated", "within one process", "bootstrap", "clopper-pearson")  # lower case
MAX_SPAN = 5.0  # no interval a reader sees spans more than 5x from low to high
_PREFIX = {"n": 1e-9, "µ": 1e-6, "m": 1e-3, "": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
           "P": 1e15}  # fmt: skip
_NUMBER = r"[−+\-]?\d[\d,]*(?:\.\d+)?"
_UNIT = r"(?:[nµmkMGTP]?(?:FLOP/s|FLOP/byte|FLOP|B/s|B|s)\b|samples/s|%|×)?"
_VALUE = rf"(?P<value>{_NUMBER})\s*(?P<vunit>{_UNIT})"
INTERVAL = re.compile(
    rf"{_VALUE}\s*\[(?P<low>{_NUMBER})\s*(?P<lunit>{_UNIT}),\s*(?P<high>{_NUMBER})\s*"
    rf"(?P<hunit>{_UNIT})\]"
)
_SKIP = ("search/", "assets/", "404.html")


@dataclass(frozen=True)
class Seen:
    """One interval as a reader sees it."""

    page: str  # the page's path in the site
    text: str  # the sentence or cell it stands in
    value: float
    low: float
    high: float
    signed: bool  # a signed percentage (a gain): compared as factors 1 + p/100
    unit: str  # the value's unit as written ("" for a bare number)
    correlation: bool  # its sentence or column names Spearman's ρ
    kind_said: bool

    @property
    def ratio_scale(self) -> bool:
        """A quantity that cannot be negative (a time, a rate, a ratio, a share) or a signed
        gain; not a correlation coefficient, whose interval runs through 0 (ρ)."""
        return self.signed or self.unit != "" or not self.correlation

    @property
    def span(self) -> float:
        """high ÷ low (as factors for a signed percentage); inf when low is not positive."""
        low, high = (
            (1 + self.low / 100, 1 + self.high / 100) if self.signed else (self.low, self.high)
        )
        return high / low if low > 0 else float("inf")

    @property
    def problem(self) -> str:
        if self.ratio_scale and self.span > MAX_SPAN:
            return f"wider than {MAX_SPAN:g}x: {self.span:.3g}x"
        if not self.kind_said:
            return "kind not said"
        return ""


def scaled(number: str, unit: str) -> float:
    value = float(number.replace(",", "").replace("−", "-"))
    match = re.match(r"([nµmkMGTP]?)(FLOP/s|FLOP/byte|FLOP|B/s|B|s)$", unit)
    return value * _PREFIX[match.group(1)] if match else value


def _blocks(soup: BeautifulSoup) -> Iterator[tuple[Tag, str]]:
    """Each cell, paragraph, list item (without paragraphs of its own) and code block, with
    what else a reader reads as its context: a cell's column header."""
    for tag in soup.find_all(["td", "p", "li", "pre", "dd", "figcaption", "summary"]):
        if tag.name == "li" and tag.find(["p", "li"]):
            continue
        if tag.name == "p" and tag.find_parent(["td", "li"]):
            continue
        context = ""
        if tag.name == "td":
            context = _header(tag)
        yield tag, context


def _header(cell: Tag) -> str:
    row = cell.find_parent("tr")
    table = cell.find_parent("table")
    if row is None or table is None:
        return ""
    index = row.find_all("td", recursive=False).index(cell)
    head = table.find("thead")
    headers = head.find_all("th") if head else []
    return headers[index].get_text(" ") if index < len(headers) else ""


def intervals_in_page(html: str, page: str) -> list[Seen]:
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "nav", "header", "footer"]):
        tag.decompose()
    found = []
    for tag, context in _blocks(soup):
        text = " ".join(tag.get_text(" ").split())
        for match in INTERVAL.finditer(text):
            vunit = match["vunit"]
            lunit, hunit = match["lunit"] or vunit, match["hunit"] or vunit
            signed = vunit == "%" and match["value"][0] in "+−-"
            low, high = scaled(match["low"], lunit), scaled(match["high"], hunit)
            said = any(word in (text + " " + context).lower() for word in KIND_WORDS)
            found.append(
                Seen(
                    page,
                    text,
                    scaled(match["value"], vunit),
                    low,
                    high,
                    signed,
                    vunit,
                    "ρ" in text + context,
                    said,
                )
            )
    return found


def site_pages(site: Path) -> Iterator[Path]:
    for path in sorted(site.rglob("index.html")):
        relative = path.relative_to(site).as_posix()
        if not relative.startswith(_SKIP):
            yield path


def intervals_in_site(site: Path) -> list[Seen]:
    found = []
    for path in site_pages(site):
        page = path.relative_to(site).as_posix()
        found += intervals_in_page(path.read_text(encoding="utf-8"), page)
    return found
