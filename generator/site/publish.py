"""Stage 6, publish: `mkdocs build --strict` into a staging folder; site/ changes only when
it succeeded, so a failed build never leaves a partial site.

A full build's staging folder replaces site/ whole. When the previous site was built with
the same navigation, config and libraries, and no source file has gone since, MkDocs builds
`--dirty` instead: into an empty staging folder it writes only the pages and files written
since the previous build started (the write stage leaves unchanged files untouched), and
those files are then moved into site/, each by one rename. Nothing of the previous site is
copied or deleted, so the cost follows what changed, not the site's size. The state file
goes before the moves and comes back after them: a build stopped in between leaves no
state, and the next build is a full one. The hooks in `mkdocs_hooks.py` keep the search
index whole; the notebook page, which reads the measurements when it runs, is always
rendered again. The result equals a full build (tests/test_site_scaling.py compares them
file by file).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from generator.atomic import write_bytes
from generator.errors import UserError
from generator.pages.paths import downloads_root
from generator.site.files import relative_files, swap_dir
from generator.site.mkdocs_process import WarmMkDocs
from generator.site.mkdocs_process import start as start_mkdocs
from generator.site.notebook import EXECUTED_ENV, Execution
from generator.site.release import RELEASE_FILE, THEME_DIR, Release
from generator.site.stamp import (
    CHANGED_SINCE_ENV,
    DIRTY_ENV,
    LIVE_SITE_ENV,
    RENDER_ALWAYS_ENV,
    TEMPLATE_CACHE_ENV,
    library_versions,
)
from generator.site.write import Written

HOOKS = Path(__file__).resolve().with_name("mkdocs_hooks.py")
STATE = ".roofline-atlas-mkdocs.json"  # in site/: what the previous build was made with
_LIBRARIES = ("mkdocs", "mkdocs-material", "mkdocs-jupyter", "pymdown-extensions", "markdown")


def publish(
    written: Written,
    measurements: Path,
    site_dir: Path,
    release: Release,
    notebook: Execution | None = None,
    mkdocs: WarmMkDocs | None = None,
    cache_dir: Path | None = None,
) -> bool:
    """Build site_dir as `release`; True when MkDocs rendered only the changed pages
    (--dirty). `notebook`: the Explore notebook executed beside the build (else MkDocs
    executes it); `mkdocs`: the MkDocs process started with the build (else one starts);
    `cache_dir`: where MkDocs keeps its theme's compiled templates (else nowhere)."""
    config = Path("mkdocs.yml")
    if not config.is_file():
        raise UserError("mkdocs.yml not found", fix="run from the repository root")
    parent = site_dir.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".site-", dir=parent))
    try:
        executed = notebook.wait() if notebook is not None else None
        output, dirty = _build(
            written, measurements, site_dir, config, staging, release, executed, mkdocs, cache_dir
        )
        if dirty:
            _move_into(output, site_dir)
        else:
            swap_dir(output, site_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dirty


def _build(
    written: Written,
    measurements: Path,
    site_dir: Path,
    config: Path,
    staging: Path,
    release: Release,
    executed: Path | None = None,
    mkdocs: WarmMkDocs | None = None,
    cache_dir: Path | None = None,
) -> tuple[Path, bool]:
    # A child config inherits mkdocs.yml and points at this build's docs folder; the
    # release gives the site's URL (the version's own, when it has one) and theme overrides.
    child = staging / "mkdocs.yml"
    child_text = (
        f"INHERIT: {json.dumps(str(config.resolve()))}\n"
        f"docs_dir: {json.dumps(str(written.docs_dir.resolve()))}\n"
        f"nav: {json.dumps(written.nav, ensure_ascii=False)}\n"
        f"hooks: [{json.dumps(str(HOOKS))}]\n" + release.mkdocs_config()
    )
    child.write_text(child_text, encoding="utf-8")
    # A download gone makes the next build a full one, as a page gone does.
    downloads = downloads_root(written.docs_dir)
    sources = sorted([*relative_files(written.docs_dir), *written.held.downloads])
    state = {
        "key": _config_key(child_text, config),
        "sources": sources,
        "started_ns": _file_clock_now(written.docs_dir),
    }
    output = staging / "site"
    since = _changed_since(site_dir, state)
    dirty = since is not None
    output.mkdir()
    notebooks = [path for path in sources if path.endswith(".ipynb")]
    args = [
        "build", "--strict", "--quiet", "--config-file", str(child), "--site-dir", str(output),
        *(["--dirty"] if dirty else []),
    ]  # fmt: skip
    # The Explore notebook, executed during the build, reads this build's measurements.
    env = {
        "RA_MEASUREMENTS": str(measurements.resolve()),
        DIRTY_ENV: "1" if dirty else "0",
        CHANGED_SINCE_ENV: str(since or 0),
        LIVE_SITE_ENV: str(site_dir.resolve()),
        RENDER_ALWAYS_ENV: os.pathsep.join(notebooks),
        **({EXECUTED_ENV: str(executed)} if executed else {}),
        **({TEMPLATE_CACHE_ENV: str(cache_dir / "mkdocs-templates")} if cache_dir else {}),
    }
    process = mkdocs or start_mkdocs()
    process.send(args, env)
    # The chart files still to draw are drawn while MkDocs runs (a few in this process,
    # many in the build's pool already).
    drawn = written.later.files() if written.later is not None else {}
    result = process.wait()
    if result.returncode != 0:
        raise UserError(
            "mkdocs build --strict failed; site/ was left as it was:\n"
            + (result.stderr or result.stdout).strip(),
            fix="fix the warnings above (a broken link or a page missing from the nav)",
        )
    for relative, content in drawn.items():  # the chart files drawn while MkDocs ran
        write_bytes(downloads / relative, content)
        write_bytes(output / relative, content)  # over the placeholder the hooks copied
    (output / STATE).write_text(json.dumps(state), encoding="utf-8")
    (output / RELEASE_FILE).write_text(release.to_json(), encoding="utf-8")
    return output, dirty


def _move_into(output: Path, site_dir: Path) -> None:
    """A dirty build's files moved over their old copies in site_dir, one rename each (a
    reader of the site sees a whole old or a whole new file), the state file last."""
    (site_dir / STATE).unlink(missing_ok=True)
    last = [output / STATE, output / RELEASE_FILE]
    files = [p for p in output.rglob("*") if not p.is_dir() and p not in last]
    for path in [*files, *last]:
        target = site_dir / path.relative_to(output)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)


def _config_key(child_text: str, config: Path) -> str:
    """What every page's HTML depends on besides its own source: the navigation, the
    config, the hooks and the libraries that render it."""
    text = child_text + library_versions(_LIBRARIES)
    theme = b"".join(p.read_bytes() for p in sorted(THEME_DIR.rglob("*.html")))
    return hashlib.sha256(
        text.encode() + config.read_bytes() + HOOKS.read_bytes() + theme
    ).hexdigest()


def _file_clock_now(folder: Path) -> int:
    """Now, as the file system holding `folder` stamps a file written now (ns): sources
    written from this time on are newer than what this build renders from. Read from a
    file, not the system clock, which runs finer (the kernel stamps files from a coarser
    clock, some file systems to the second) and would date a file written just after it as
    before it."""
    handle, name = tempfile.mkstemp(prefix=".started-", dir=folder)
    try:
        return os.fstat(handle).st_mtime_ns
    finally:
        os.close(handle)
        os.unlink(name)


def _changed_since(site_dir: Path, state: dict[str, Any]) -> int | None:
    """When site_dir can be updated by a dirty build, the time (ns) from which a source
    counts as changed since it was built: the previous build's start (`_file_clock_now`;
    a file stamped in that same tick counts too). None: a full build is needed, when the
    navigation or config changed since, or a source has gone (a dirty build never deletes
    the HTML of a removed page), or there is no previous build's state."""
    path = site_dir / STATE
    if not path.is_file():
        return None
    try:
        previous = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    sources = state["sources"]
    assert isinstance(sources, list)
    started = previous.get("started_ns")
    if not isinstance(started, int) or previous.get("key") != state["key"]:
        return None
    if not set(previous.get("sources", [])) <= set(sources):
        return None
    return started
