"""A page's Markdown as the HTML the docs core (ProperDocs, MkDocs 1.x continued) would put in
its content: the Markdown extensions mkdocs.yml lists (after the core's built-in `toc`,
`tables` and `fenced_code`, with their options), the front matter read by its own reader, and
each relative link rewritten as it rewrites one for `use_directory_urls` (`a/b.md` -> `a/b/`,
relative to the URL the page is served from). The pages the build renders itself
(site/own_pages.py) go through here; ProperDocs builds the others.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from xml.etree.ElementTree import Element

import markdown
import yaml
from markdown.treeprocessors import Treeprocessor
from properdocs.utils import get_relative_url
from properdocs.utils.meta import get_data

CONFIG = Path("mkdocs.yml")
BUILTIN_EXTENSIONS = ("toc", "tables", "fenced_code")  # the core adds these to every config
_HEADING = re.compile(r"^# (.+)$", re.MULTILINE)


@dataclass(frozen=True)
class Html:
    title: str
    body: str


def page_url(path: str) -> str:
    """The URL a docs-relative file is served from: 'a/b.md' -> 'a/b/', 'a/index.md' ->
    'a/', 'index.md' -> './', and any other file its own path (MkDocs' File.url)."""
    if not path.endswith(".md"):
        return path
    stem = path.removesuffix(".md")
    folder = posixpath.dirname(stem) if posixpath.basename(stem) == "index" else stem
    return f"{folder}/" if folder else "./"


def extensions(config: Path = CONFIG) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The Markdown extensions and their options, as MkDocs reads them from `config`."""
    data = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    names = list(BUILTIN_EXTENSIONS)
    options: dict[str, dict[str, Any]] = {}
    for item in data.get("markdown_extensions") or []:
        name, settings = next(iter(item.items())) if isinstance(item, dict) else (item, None)
        if name not in names:
            names.append(str(name))
        if settings:
            options[str(name)] = dict(settings)
    return names, options


class _Links(Treeprocessor):  # type: ignore[misc]  # markdown ships no types
    """MkDocs' rewrite of a relative link: resolved from the page's file, then written
    relative to the URL the page is served from (one folder deeper than its file)."""

    page = ""

    def run(self, root: Element) -> None:
        for element in root.iter():
            for attribute in ("href", "src"):
                if (url := element.get(attribute)) is not None:
                    element.set(attribute, rewrite(url, self.page))


def rewrite(url: str, page: str) -> str:
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or not parts.path or parts.path.startswith("/"):
        return url  # another site, this page's own anchor, or absolute: as MkDocs leaves it
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), parts.path))
    path = get_relative_url(page_url(target), page_url(page))
    return urlunsplit(("", "", path, parts.query, parts.fragment))


@cache
def _converter(config: str) -> tuple[markdown.Markdown, _Links]:
    names, options = extensions(Path(config))
    converter = markdown.Markdown(extensions=names, extension_configs=options)
    links = _Links(converter)
    converter.treeprocessors.register(links, "ra_links", 0)  # last, as MkDocs registers its own
    return converter, links


def to_html(path: str, text: str, config: Path = CONFIG) -> Html:
    """The page at docs-relative `path` whose file holds `text`: its title (front matter
    `title`, else its first level-1 heading, MkDocs' rule) and its content's HTML."""
    body, meta = get_data(text)
    converter, links = _converter(str(config))
    converter.reset()
    links.page = path
    title = meta.get("title")
    if not isinstance(title, str):
        heading = _HEADING.search(body)
        title = heading.group(1).strip() if heading else posixpath.basename(path)
    return Html(title, converter.convert(body))
