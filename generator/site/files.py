"""The site's files: the generated pages kept in step with the report (only what changed is
written), and the local copies of Vega and MathJax (no CDN)."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from typing import Any

from generator.atomic import write_bytes, write_text
from generator.pages.chart_render import VEGA_LITE_VERSION
from generator.pages.paths import GENERATED_DIR


def install(output: Path, site_dir: Path, skip: str, previous: frozenset[str]) -> frozenset[str]:
    """A build's output (MkDocs') moved into site_dir: each file whose bytes differ from its
    old copy renamed over it (a reader sees a whole old or a whole new file), the others
    left as they are, and the files of `previous` it no longer makes removed. `skip`: a
    folder of the output left out (the downloads, `sync_tree`'s). Returns what it made."""
    made = frozenset(p for p in relative_files(output) if not p.startswith(f"{skip}/"))
    for relative in made:
        source, target = os.path.join(output, relative), os.path.join(site_dir, relative)
        try:
            if os.stat(target).st_size == os.stat(source).st_size and _read(target) == _read(
                source
            ):
                continue
        except FileNotFoundError:
            os.makedirs(os.path.dirname(target), exist_ok=True)
        os.replace(source, target)
    _remove_listed(str(site_dir), previous - made, "")
    return made


def sync_tree(source: Path, target: Path) -> None:
    """Make `target` hold `source`'s files, copied with their modification times. A folder
    of `source` changed since its copy in `target` was (its time, which a file written new
    or renamed in stamps: site/files.py, atomic.py) has its files compared by size and time
    and copied where they differ, and the files it no longer holds removed; an unchanged
    folder's files are not looked at (22,000 at 1,000 runs)."""
    folders = [""]
    while folders:
        relative = folders.pop()
        here, there = os.path.join(source, relative), os.path.join(target, relative)
        try:
            copied = os.stat(there).st_mtime_ns
        except FileNotFoundError:
            shutil.copytree(here, there)  # copy2: the times kept
            continue
        changed = os.stat(here).st_mtime_ns >= copied
        names = set()
        with os.scandir(here) as entries:
            for entry in entries:
                names.add(entry.name)
                if entry.is_dir():
                    folders.append(os.path.join(relative, entry.name))
                elif changed and not _same_file(entry, os.path.join(there, entry.name)):
                    _copy(entry.path, os.path.join(there, entry.name))
        if changed:
            for name in set(os.listdir(there)) - names:
                path = os.path.join(there, name)
                shutil.rmtree(path) if os.path.isdir(path) else os.unlink(path)


def _copy(source: str, target: str) -> None:
    """A file copied with its times, into a temporary file renamed over the old copy."""
    temporary = f"{target}.{os.getpid()}.tmp"
    shutil.copy2(source, temporary)
    os.replace(temporary, target)


def _same_file(entry: os.DirEntry[str], copy: str) -> bool:
    try:
        stat, copied = entry.stat(), os.stat(copy)
    except FileNotFoundError:
        return False
    return stat.st_size == copied.st_size and stat.st_mtime_ns == copied.st_mtime_ns


def relative_files(root: Path, skip: str | None = None) -> list[str]:
    """Every file under root, as a '/'-separated path relative to it; `skip`: a top-level
    folder not walked. (os.walk: pathlib's rglob and relative_to cost ~30 µs a file, and a
    1,000-run report's docs/ has 25,000.)"""
    found = []
    for folder, children, names in os.walk(root):
        inner = os.path.relpath(folder, root).replace(os.sep, "/")
        if inner == "." and skip is not None:
            children[:] = [child for child in children if child != skip]
        prefix = "" if inner == "." else f"{inner}/"
        found += [prefix + name for name in names]
    return found


def replace_generated(
    docs_dir: Path,
    pages: dict[str, str],
    files: dict[str, bytes] | None = None,
    untouched: set[str] | None = None,
    previous: frozenset[str] | None = None,
) -> frozenset[str]:
    """Make the generated folder hold exactly these pages and files. A file whose bytes
    did not change is left as it is (its modification time kept), so the pages and copies
    made from it are left as they are too; a changed file is written whole (a temporary file
    renamed over it), a new one in place, and a file no page makes any more is removed. The
    work follows what changed: nothing is copied or linked for the files that stay. (Paths
    as strings: pathlib costs more than the comparisons at 25,000 files.) `untouched`:
    files known to hold what they should (site/written.py), neither read nor removed.
    `previous`: what the folder held after the last write, when known (`Held`): the files
    to remove are found from it, not by walking the folder. Returns what it holds now (its
    paths under GENERATED_DIR, relative to `docs_dir`)."""
    contents: dict[str, bytes] = {k: v.encode("utf-8") for k, v in pages.items()}
    contents.update(files or {})
    root = str(docs_dir)
    for relative, content in contents.items():
        path = os.path.join(root, relative)
        try:
            same = os.stat(path).st_size == len(content) and _read(path) == content
        except FileNotFoundError:  # new: written in place (a torn one differs next build)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as file:
                file.write(content)
            continue
        if not same:
            write_bytes(Path(path), content)
    inside = f"{GENERATED_DIR}/"
    held = frozenset(p for p in (*contents, *(untouched or ())) if p.startswith(inside))
    if previous is None:
        _remove_others(os.path.join(root, GENERATED_DIR), {os.path.join(root, p) for p in held})
    else:
        _remove_listed(root, previous - held)
    return held


def _read(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def _remove_listed(root: str, gone: frozenset[str], top: str = GENERATED_DIR) -> None:
    """These files (relative to root; one already gone is no error), and the folders they
    leave empty, up to `top`."""
    folders = set()
    for relative in gone:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(root, relative))
        parent = os.path.dirname(relative)
        while parent not in ("", top):
            folders.add(parent)
            parent = os.path.dirname(parent)
    for folder in sorted(folders, key=len, reverse=True):  # the deepest first
        with contextlib.suppress(OSError):  # not empty, or gone
            os.rmdir(os.path.join(root, folder))


def _remove_others(folder: str, keep: set[str]) -> None:
    """Every file under `folder` not in `keep` (a page gone, a build's torn temporary
    file), and the folders left empty."""
    for parent, _, names in os.walk(folder, topdown=False):
        for name in names:
            if (path := os.path.join(parent, name)) not in keep:
                os.unlink(path)
        if parent != folder and not os.listdir(parent):
            os.rmdir(parent)


MATHJAX_FONT_CONFIG = """MathJax.Hub.Config({
  "HTML-CSS": {
    availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null,
    // MathJax 2's blank font is url('about:blank'), which Chromium refuses (CORS) with a
    // console error; a local() source is never fetched.
    styles: {"@font-face": {"font-family": "MathJax_Blank", src: "local('MathJax_Blank')"}}
  }
});
MathJax.Ajax.loadComplete("[MathJax]/config/local/stix.js");
"""


def copy_mathjax(folder: Path) -> None:
    """MathJax 2 from the jupyter-server-mathjax wheel, for the notebook page's formulas
    (mkdocs-jupyter would load it from a CDN). Copied once per package version."""
    from importlib.metadata import version

    stamp = f"jupyter-server-mathjax {version('jupyter-server-mathjax')} stix-config-3\n"
    if (folder / "VERSION").is_file() and (folder / "VERSION").read_text() == stamp:
        return
    import jupyter_server_mathjax  # its import (jupyter_server) costs more than the check

    source = Path(jupyter_server_mathjax.__file__).parent / "static"
    # English only, HTML-CSS output only: the SVG output and 2 MB of translations go unused.
    skip = shutil.ignore_patterns("localization", "SVG")
    staging = folder.with_name(f".{folder.name}-new")
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(source, staging, ignore=skip)
    # The package ships only the STIX-Web fonts; MathJax's default TeX fonts would 404.
    (staging / "config" / "local").mkdir(parents=True, exist_ok=True)
    (staging / "config" / "local" / "stix.js").write_text(MATHJAX_FONT_CONFIG)
    (staging / "VERSION").write_text(stamp)
    shutil.rmtree(folder, ignore_errors=True)
    staging.rename(folder)


def write_vega_bundle(folder: Path) -> None:
    """Vega, Vega-Lite and vega-embed as one local script (no CDN), rebuilt on version change."""
    import vl_convert as vlc

    stamp = f"vega {vlc.get_vega_version()} vega-lite {VEGA_LITE_VERSION} embed {vlc.get_vega_embed_version()}\n"
    bundle, stamp_file = folder / "vega-bundle.js", folder / "VERSION"
    if bundle.is_file() and stamp_file.is_file() and stamp_file.read_text() == stamp:
        return
    source: Any = vlc.javascript_bundle(vl_version=VEGA_LITE_VERSION)  # type: ignore[call-arg]
    # The bundle declares top-level consts; a function scope keeps them from clashing with
    # other scripts. It still assigns window.vegaEmbed, window.vega and window.vegaLite.
    write_text(bundle, f"(function () {{\n{source}\n}})();\n")
    write_text(stamp_file, stamp)
