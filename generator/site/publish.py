"""Stage 6, publish: site/ built from the written pages.

ProperDocs (MkDocs 1.x continued, docs/architecture.md "The docs core") builds the aggregate
and hand-written pages in full: `properdocs build --strict` into a staging folder, with a
config that inherits mkdocs.yml and names this build's docs folder, nav and release, and
leaves the pages per run out by its own `exclude_docs` (site/shell.py). Meanwhile the build
converts the pages per run whose Markdown changed (site/own_pages.py); once ProperDocs is
done, it wraps them in the shells ProperDocs built. site/ changes only after ProperDocs
succeeded and every link of the HTML checks out (site/links.py): then ProperDocs' files are
moved in where their bytes differ (`files.install`), the downloads
copied where they changed (`files.sync_tree`), and the pages per run written where their
Markdown or their shell changed. The result equals a build from nothing, file for file
(tests/test_site_scaling.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

import yaml

from generator.atomic import write_bytes, write_text
from generator.errors import UserError
from generator.ingest.cache import DEFAULT_CACHE
from generator.pages.paths import DATA_DIR, downloads_root
from generator.pages.workers import Workers
from generator.site import own_pages
from generator.site.files import install, relative_files, sync_tree
from generator.site.links import article_targets, check_links
from generator.site.markdown_html import page_url
from generator.site.notebook import EXECUTED_ENV, Execution
from generator.site.release import RELEASE_FILE, Release
from generator.site.shell import EXCLUDE_DOCS, SHELLS, is_own
from generator.site.stamp import MATHJAX_DIR, TEMPLATE_CACHE_ENV, VEGA_DIR
from generator.site.write import Written
from generator.store import Store

# Copied by the build where they changed (`files.sync_tree`), not by ProperDocs every build:
# MathJax and Vega, 600 files that change with their packages' versions only.
STATIC = (MATHJAX_DIR.as_posix(), VEGA_DIR.as_posix())


def publish(
    written: Written,
    measurements: Path,
    site_dir: Path,
    release: Release,
    notebook: Execution | None = None,
    store: Store | None = None,
    workers: Workers | None = None,
) -> float:
    """Build site_dir as `release`; returns ProperDocs' own seconds (its process, start to
    end: the bench's floor of a rebuild). `notebook`: the Explore notebook executed beside the
    build (else ProperDocs executes it). `store`: the build's, which keeps what site/ holds
    and ProperDocs' compiled templates. `workers`: the build's pool, which converts the pages per
    run."""
    config = Path("mkdocs.yml")
    store = store or Store(DEFAULT_CACHE)
    if not config.is_file():
        raise UserError("mkdocs.yml not found", fix="run from the repository root")
    site_dir.resolve().parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".site-", dir=site_dir.resolve().parent))
    try:
        executed = notebook.wait() if notebook is not None else None
        output = staging / "site"
        log = staging / "properdocs.log"
        with log.open("w+", encoding="utf-8") as said:
            started = time.perf_counter()
            core = _Watched(
                _start_core(written, measurements, config, staging, release, executed, store,
                              said), started,
            )  # fmt: skip
            try:
                return _build(written, site_dir, store, release, output, core, said, workers)
            finally:
                if core.process.poll() is None:
                    core.process.kill()
                    core.process.wait()
    finally:
        shutil.rmtree(staging, ignore_errors=True)


class _Watched:
    """A process and the moment it ended, seen by a thread that waits for it: the build
    converts the pages per run and writes the chart files meanwhile, and waiting only
    after that would time both, not ProperDocs alone."""

    def __init__(self, process: subprocess.Popen[bytes], started: float) -> None:
        self.process, self.started = process, started
        self.ended = started
        self._thread = threading.Thread(target=self._wait, daemon=True)
        self._thread.start()

    def _wait(self) -> None:
        self.process.wait()
        self.ended = time.perf_counter()

    def wait(self) -> tuple[int, float]:
        """The exit code and the seconds from the start to the end of the process."""
        self._thread.join()
        return self.process.wait(), self.ended - self.started


def _start_core(
    written: Written,
    measurements: Path,
    config: Path,
    staging: Path,
    release: Release,
    executed: Path | None,
    store: Store,
    said: IO[str],
) -> subprocess.Popen[bytes]:
    """`properdocs build --strict` of the pages it builds, into staging/site, started."""
    child = build_config(config, written.docs_dir, written.nav, release, staging)
    env = {
        **os.environ,
        # the Explore notebook, executed during the build, reads this build's measurements
        "RA_MEASUREMENTS": str(measurements.resolve()),
        **({TEMPLATE_CACHE_ENV: str(store.folder)} if store.folder else {}),
        **({EXECUTED_ENV: str(executed)} if executed else {}),
    }
    command = [
        sys.executable, "-m", "properdocs", "build", "--strict", "--quiet",
        "--config-file", str(child), "--site-dir", str(staging / "site"),
    ]  # fmt: skip
    return subprocess.Popen(command, env=env, stdout=said, stderr=subprocess.STDOUT)


def build_config(
    config: Path, docs_dir: Path, nav: object, release: Release, staging: Path
) -> Path:
    """The config this build's ProperDocs reads (written into staging): mkdocs.yml inherited,
    with this build's docs folder, nav, hooks, release and the pages per run excluded."""
    child = staging / "mkdocs.yml"
    excluded = EXCLUDE_DOCS + "".join(f"/{folder}/\n" for folder in STATIC)
    child.write_text(
        f"INHERIT: {json.dumps(str(config.resolve()))}\n"
        f"docs_dir: {json.dumps(str(docs_dir.resolve()))}\n"
        f"nav: {json.dumps(nav, ensure_ascii=False)}\n"
        f"hooks: {json.dumps([str(hook) for hook in hooks_of(config)])}\n"
        f"exclude_docs: {json.dumps(excluded)}\n" + release.mkdocs_config(),
        encoding="utf-8",
    )
    return child


def hooks_of(config: Path) -> list[Path]:
    """mkdocs.yml's hooks, as absolute paths. The build's config inherits mkdocs.yml from
    another folder, where ProperDocs would resolve their relative paths, so it names them all
    again (naming one would drop the others: a list is replaced, not merged)."""
    data = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    return [(config.resolve().parent / hook).resolve() for hook in data.get("hooks") or []]


def _build(
    written: Written,
    site_dir: Path,
    store: Store,
    release: Release,
    output: Path,
    core: _Watched,
    said: IO[str],
    workers: Workers | None,
) -> float:
    pages = own_pages.own_pages(written.pages)
    previous = own_pages.read_record(store, site_dir)
    # while ProperDocs runs: the pages per run whose Markdown changed, and the charts' files
    html = own_pages.convert(pages, own_pages.changed_markdown(pages, previous), workers)
    drawn = written.later.files() if written.later is not None else {}
    code, core_s = core.wait()
    if code != 0:
        said.seek(0)
        raise UserError(
            "properdocs build --strict failed; site/ was left as it was:\n" + said.read().strip(),
            fix="fix the warnings above (a broken link or a page missing from the nav)",
        )
    downloads = downloads_root(written.docs_dir)
    for relative, content in drawn.items():  # the chart files drawn while ProperDocs ran
        write_bytes(downloads / relative, content)
    shells = {s: (output / page_url(s) / "index.html").read_text("utf-8") for s in SHELLS}
    for shell in SHELLS:  # filled, not published
        shutil.rmtree(output / page_url(shell))
    kept, to_write = own_pages.plan(site_dir, pages, shells, previous)
    html.update(own_pages.convert(pages, [p for p in to_write if p not in html], workers))
    made = own_pages.render(pages, shells, html, to_write)
    built = frozenset(p for p in relative_files(output) if not p.startswith(f"{DATA_DIR}/"))
    _check_links(output, built, written, kept, made)
    # site/ changes from here: a build stopped before the record is saved starts anew
    own_pages.forget_record(store, site_dir)
    if previous is None:
        shutil.rmtree(site_dir, ignore_errors=True)
    site_dir.mkdir(parents=True, exist_ok=True)
    installed = install(output, site_dir, DATA_DIR, previous.mkdocs if previous else frozenset())
    for source, target in (
        (downloads / DATA_DIR, DATA_DIR),
        *((written.docs_dir / d, d) for d in STATIC),
    ):
        if source.is_dir():
            sync_tree(source, site_dir / target)
    own_pages.write(site_dir, made, set(previous.pages if previous else ()) - set(pages.keys))
    write_text(site_dir / RELEASE_FILE, release.to_json())
    record = own_pages.Record(
        installed,
        {shell: own_pages.digest(text) for shell, text in shells.items()},
        {**kept, **{path: (key, links) for path, (key, _, links) in made.items()}},
    )
    own_pages.save_record(store, site_dir, record)
    print(f"publish: {len(made)} of {len(pages.keys)} pages per run written, {len(html)} converted")
    return core_s


def _into_ours(target: str) -> bool:
    """Whether a site-relative target lies among the pages per run or the downloads."""
    return target.startswith(f"{DATA_DIR}/") or is_own(f"{target.rstrip('/')}.md")


def _check_links(
    output: Path,
    built: frozenset[str],
    written: Written,
    kept: dict[str, tuple[str, tuple[str, ...]]],
    made: dict[str, tuple[str, str, tuple[str, ...]]],
) -> None:
    """Every relative link of the pages per run (their links kept from when they were
    written, or just made), and those of ProperDocs' pages into them or the downloads, against
    the site as it will be."""
    ours = {page_url(p): links for p, (_, links) in kept.items()}
    ours.update({page_url(p): links for p, (_, _, links) in made.items()})
    files = {*built, *written.held.downloads, *(f"{url}index.html" for url in ours)}
    files.update(f"{d}/{p}" for d in STATIC for p in relative_files(written.docs_dir / d))
    for relative in built:
        if relative.endswith("index.html") and not relative.startswith("assets/"):
            url = os.path.dirname(relative)
            text = (output / relative).read_text(encoding="utf-8", errors="replace")
            found = article_targets(f"{url}/" if url else "", text)
            # ProperDocs checks its pages' Markdown links (--strict); here, their links into the
            # pages per run and the downloads, which it does not know (raw HTML among them)
            ours[f"{url}/" if url else ""] = tuple(t for t in found if _into_ours(t))
    check_links(ours, files)
