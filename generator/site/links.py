"""The link check over the built HTML: `properdocs build --strict` checks the links of the
pages ProperDocs builds; the pages the build renders itself (site/own_pages.py), and the raw
HTML links of every page (which ProperDocs does not check), are checked here. A relative link (an
`href`, a `src`, a chart's `data-src`) must name a page or a file of the built site: one
that does not is an error that names the page and the link."""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Iterable, Mapping
from urllib.parse import unquote, urlsplit

from generator.errors import UserError

_LINK = re.compile(r"""\s(?:href|src|data-src)="([^"]*)\"""")
_ARTICLE = re.compile(r"<article\b.*?</article>", re.DOTALL)
SHOWN = 20  # broken links listed in the error


def targets(url: str, text: str) -> tuple[str, ...]:
    """The site files the relative links of `text` (HTML served from `url`, a site-relative
    folder such as 'measurements/runs/r/') point to, each a site-relative path: a folder
    ends in '/' (its index.html is meant). Links elsewhere, absolute and anchor-only links
    are left out."""
    found = set()
    for match in _LINK.finditer(text):
        parts = urlsplit(html.unescape(match.group(1)))
        if parts.scheme or parts.netloc or not parts.path or parts.path.startswith("/"):
            continue
        target = posixpath.normpath(posixpath.join(url, unquote(parts.path)))
        if target.startswith("../") or target == "..":
            found.add(target)  # above the site's root: never there
            continue
        folder = parts.path.endswith("/") or target == "."
        found.add("" if target == "." else target + "/" if folder else target)
    return tuple(sorted(found))


def article_targets(url: str, page: str) -> tuple[str, ...]:
    """The targets of a themed page's own content (its <article>): the theme's navigation
    and assets are MkDocs' to get right."""
    return tuple(sorted({t for part in _ARTICLE.findall(page) for t in targets(url, part)}))


def broken(target: str, files: set[str] | frozenset[str]) -> bool:
    if target == "" or target.endswith("/"):
        return f"{target}index.html" not in files
    return target not in files and f"{target}/index.html" not in files


def check_links(pages: Mapping[str, Iterable[str]], files: set[str] | frozenset[str]) -> None:
    """`pages`: each page's site-relative URL and its links' targets; `files`: every file
    the site holds, site-relative. Raises a UserError naming each broken link's page."""
    found = [(url, t) for url, links in pages.items() for t in links if broken(t, files)]
    if not found:
        return
    lines = [
        f"  {url or '/'} links {target}, which the site does not hold" for url, target in found
    ]
    more = f"\n  ... and {len(lines) - SHOWN} more" if len(lines) > SHOWN else ""
    raise UserError(
        f"{len(found)} broken link(s) in the built pages; site/ was left as it was:\n"
        + "\n".join(lines[:SHOWN])
        + more,
        fix="a page links a page or download that no page makes: fix the template or the "
        "page module that writes the link",
    )
