"""Hooks of the docs core, ProperDocs (`hooks:` in mkdocs.yml and the build's config), on the
documented events of MkDocs 1.x, which ProperDocs keeps: give it the downloads of the pages it
builds, put generated text into hand-written pages, leave the shells of the pages per run out
of the sitemap, and keep the theme's compiled templates between builds.

The downloads (`DATA_DIR/...`) lie beside docs_dir (`paths.downloads_root`), so ProperDocs
never lists them all (22,000 files at 1,000 runs, nearly all the pages per run's, which the
build renders itself: site/own_pages.py). `on_files` adds those of each page it builds
(its folder `DATA_DIR/<page slug>/`) to the files, so that their links are checked and
rewritten and the files copied, as for any file in docs_dir. They import ProperDocs' own
modules; Material and mkdocs-jupyter import `mkdocs.*`, which ProperDocs aliases to its own.

A hand-written page may hold a marker `<!-- generated: NAME -->`; the build replaces it
with the Markdown a generated page left in `INCLUDES_DIR/NAME.md.txt` (the Methodology page
states the intervals' coverage this way).
Loaded by ProperDocs from this file's path, not imported by the generator.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path
from typing import Any

from properdocs.config.defaults import ProperDocsConfig
from properdocs.plugins import event_priority
from properdocs.structure.files import File, Files
from properdocs.structure.pages import Page

from generator.pages.paths import DATA_DIR, INCLUDES_DIR, downloads_root
from generator.pages.render import page_slug
from generator.pages.template_cache import keep_compiled
from generator.site.shell import SHELL
from generator.site.stamp import TEMPLATE_CACHE_ENV

_MARKER = re.compile(r"<!-- generated: ([a-z0-9-]+) -->")
WITH_INCLUDES = ("methodology.md",)  # hand-written pages that hold a marker


@event_priority(-50)  # after mkdocs-jupyter has wrapped the notebook's file
def on_files(files: Files, config: ProperDocsConfig) -> Files:
    root = str(downloads_root(Path(config.docs_dir)))
    # the pages ProperDocs builds: not those exclude_docs leaves out (the pages per run)
    built = {f.src_uri for f in files.documentation_pages()}  # the included ones
    for slug in sorted({page_slug(page) for page in built}):
        for path in _downloads_in(root, slug):
            files.append(File(path, root, config.site_dir, config.use_directory_urls))
    return files


def _downloads_in(root: str, slug: str) -> list[str]:
    """A page's downloads (its folder, when it has one), relative to the downloads' root."""
    found = []
    for folder, _, names in os.walk(os.path.join(root, DATA_DIR, slug)):
        inner = os.path.relpath(folder, root).replace(os.sep, "/")
        found += [f"{inner}/{name}" for name in names]
    return found


def on_page_markdown(markdown: str, page: Page, config: ProperDocsConfig, files: Files) -> str:
    def included(match: re.Match[str]) -> str:
        path = downloads_root(Path(config.docs_dir)) / INCLUDES_DIR / f"{match.group(1)}.md.txt"
        return path.read_text(encoding="utf-8") if path.is_file() else ""

    return _MARKER.sub(included, markdown)


def on_template_context(context: Any, template_name: str, config: ProperDocsConfig) -> Any:
    """The shells (site/shell.py) are built to be filled, not read: not in the sitemap."""
    if template_name == "sitemap.xml":
        context["pages"] = [f for f in context["pages"] if posixpath.basename(f.src_uri) != SHELL]
    return context


def on_env(env: Any, config: ProperDocsConfig, files: Files) -> Any:
    if folder := os.environ.get(TEMPLATE_CACHE_ENV):
        keep_compiled(env, Path(folder))  # the theme's ~40 templates: 0.3 s to compile
    return env
