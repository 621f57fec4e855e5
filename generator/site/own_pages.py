"""The pages per run rendered by the build (site/shell.py says which and how they take the
theme's look): each one's Markdown converted as MkDocs would (site/markdown_html.py) and
written into site/ only when its Markdown or its folder's shell changed, atomically (a
temporary file renamed over the old page). What site/ holds is recorded in the store's
state (`Record`): each page's key and its links' targets, the shells' digests, and the files
MkDocs' build left. The record is taken away before site/ is changed and written back once
it has been: a build stopped in between leaves none, and the next one starts site/ anew.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from generator.atomic import write_text
from generator.pages.page import Page
from generator.pages.workers import Workers, map_on_cores
from generator.site.links import targets
from generator.site.markdown_html import Html, page_url, to_html
from generator.site.shell import fill, is_own, shell_of
from generator.store import Store

KIND = "site"  # the store's state kind (generator/store)
_Pages = dict[str, tuple[str, tuple[str, ...]]]  # page -> (key, its links' targets)


@dataclass(frozen=True)
class Record:
    mkdocs: frozenset[str]  # the files MkDocs' build left in site/, site-relative
    shells: dict[str, str]  # shell page -> digest of its HTML
    pages: _Pages


def read_record(store: Store, site_dir: Path) -> Record | None:
    """What the last finished build left in site/, or None."""
    data = store.read_state(KIND, site_dir)
    try:
        pages = {str(p): (str(k), tuple(map(str, t))) for p, (k, t) in data["pages"].items()}
        return Record(frozenset(map(str, data["mkdocs"])), dict(data["shells"]), pages)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def forget_record(store: Store, site_dir: Path) -> None:
    """Call it only when site/ is about to change: until `save_record`, no record."""
    store.drop_state(KIND, site_dir)


def save_record(store: Store, site_dir: Path, record: Record) -> None:
    pages = {p: [k, list(t)] for p, (k, t) in sorted(record.pages.items())}
    data = {"mkdocs": sorted(record.mkdocs), "shells": record.shells, "pages": pages}
    store.save_state(KIND, site_dir, data)


@dataclass(frozen=True)
class Own:
    """The pages per run among the written ones: path -> Markdown, and path -> its key."""

    markdown: dict[str, str]
    keys: dict[str, str]


def own_pages(pages: list[Page]) -> Own:
    markdown = {page.path: page.markdown for page in pages if is_own(page.path)}
    return Own(markdown, {path: page_key(path, text) for path, text in markdown.items()})


def page_key(path: str, markdown: str) -> str:
    return hashlib.sha256(f"{path}\0{markdown}".encode()).hexdigest()[:32]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _convert(item: tuple[str, str]) -> Html:
    return to_html(*item)


def convert(pages: Own, paths: list[str], workers: Workers | None = None) -> dict[str, Html]:
    """These pages' HTML, in a process per core when there are many (the build's pool,
    `workers`, where there is one)."""
    items = [(path, pages.markdown[path]) for path in paths]
    return dict(zip(paths, map_on_cores(_convert, items, workers), strict=True))


def changed_markdown(pages: Own, previous: Record | None) -> list[str]:
    """The pages whose Markdown is not the one site/ was last written from."""
    kept = previous.pages if previous is not None else {}
    return [path for path, key in pages.keys.items() if kept.get(path, ("",))[0] != key]


def page_file(site_dir: Path, path: str) -> Path:
    return site_dir / page_url(path) / "index.html"


def plan(
    site_dir: Path, pages: Own, shells: dict[str, str], previous: Record | None
) -> tuple[_Pages, list[str]]:
    """The pages site/ holds as they should be (their entries kept), and those to write:
    another Markdown, another shell, or their file gone."""
    kept: _Pages = {}
    write = []
    same_shell = {
        shell: previous is not None and previous.shells.get(shell) == digest(text)
        for shell, text in shells.items()
    }
    for path, key in pages.keys.items():
        entry = previous.pages.get(path) if previous is not None else None
        if (
            entry is not None
            and entry[0] == key
            and same_shell[shell_of(path)]
            and page_file(site_dir, path).is_file()
        ):
            kept[path] = entry
        else:
            write.append(path)
    return kept, write


def render(
    pages: Own, shells: dict[str, str], html: dict[str, Html], paths: list[str]
) -> dict[str, tuple[str, str, tuple[str, ...]]]:
    """Each page to write: (its key, its themed HTML, its links' targets)."""
    made = {}
    for path in paths:
        shell, url, converted = shell_of(path), page_url(path), html[path]
        themed = fill(shells[shell], page_url(shell), url, converted.title, converted.body)
        made[path] = (pages.keys[path], themed, targets(url, converted.body))
    return made


def write(
    site_dir: Path, made: dict[str, tuple[str, str, tuple[str, ...]]], gone: set[str]
) -> None:
    """The pages written (each atomically) and the pages no longer made removed."""
    for path, (_, themed, _) in made.items():
        write_text(page_file(site_dir, path), themed)
    for path in gone:
        file = page_file(site_dir, path)
        file.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # not empty, or gone
            os.rmdir(file.parent)
