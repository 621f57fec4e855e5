"""The pages per run (a run's page, its trace page, its kernel page) are rendered by the
build, not by MkDocs, and wrapped in the theme's look by a shell: a page MkDocs builds once
in each of their folders, so that every relative URL in it (stylesheets, scripts, the
navigation) is right at their depth. The shell's content is a placeholder between two
markers and its title a placeholder word; `fill` puts a page's title and HTML there and its
own URL where the shell's stands (the canonical link).

The shells themselves are not published: publish reads them from MkDocs' output and leaves
them out of site/, and the hooks leave them out of the sitemap. Every page per run hides
its table of contents (`hide: [toc]`), is in no nav section (so
no nav item is active on it) and is left out of the search index: the shell is the same.
"""

from __future__ import annotations

import html
import posixpath

from generator.pages.page import Page
from generator.pages.paths import GENERATED_DIR

SHELL = "_shell.md"  # in each folder of pages per run
TITLE = "RA-SHELL-TITLE"
_START = '<div class="ra-shell-start"></div>'
_END = '<div class="ra-shell-end"></div>'
MARKDOWN = f"""---
title: {TITLE}
hide:
  - toc
search:
  exclude: true
---

{_START}

# {TITLE}

{_END}
"""
# The pages per run, as MkDocs' exclude_docs patterns (gitignore's syntax: `*` stays in
# one folder, `!` takes a shell back in): MkDocs lists them, so that a link to one from a
# page it builds is checked and rewritten, but builds none of them.
EXCLUDE_DOCS = f"""/{GENERATED_DIR}/runs/*.md
/{GENERATED_DIR}/traces/run-*.md
/{GENERATED_DIR}/run-*.md
!/{GENERATED_DIR}/runs/{SHELL}
"""


def is_own(path: str) -> bool:
    """Whether the build renders this docs-relative page itself (a page per run)."""
    parts = path.split("/")
    if not path.endswith(".md") or parts[0] != GENERATED_DIR or parts[-1] == SHELL:
        return False
    if len(parts) == 2:
        return parts[1].startswith("run-")  # a run's kernel page
    return len(parts) == 3 and (
        parts[1] == "runs" or (parts[1] == "traces" and parts[2].startswith("run-"))
    )


def shell_of(path: str) -> str:
    """The shell a page per run is wrapped in: the one in its folder."""
    return posixpath.join(posixpath.dirname(path), SHELL)


SHELLS = tuple(
    shell_of(p) for p in (f"{GENERATED_DIR}/runs/r.md", f"{GENERATED_DIR}/traces/run-r.md",
                          f"{GENERATED_DIR}/run-r.md")
)  # fmt: skip


def shell_pages() -> list[Page]:
    """The shells, written into docs/ with the generated pages (no nav, no search)."""
    return [Page(path, TITLE, MARKDOWN, in_nav=False) for path in SHELLS]


def fill(shell: str, shell_url: str, url: str, title: str, body: str) -> str:
    """The shell's HTML (as MkDocs built it, served from `shell_url`) made the page at
    `url` with this title and content."""
    start, end = shell.index(_START), shell.index(_END) + len(_END)
    head, tail = (
        part.replace(TITLE, html.escape(title)).replace(shell_url, url)
        for part in (shell[:start], shell[end:])
    )
    return head + body + tail
