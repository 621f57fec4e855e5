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


def swap_dir(new: Path, target: Path) -> None:
    """Move `new` to `target`, replacing it; the old tree is removed only after the move."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        target.rename(old)
    new.rename(target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


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
    did not change is left as it is (its modification time kept), so `mkdocs build --dirty`
    renders only the pages that changed; a changed file is written whole (a temporary file
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


def _remove_listed(root: str, gone: frozenset[str]) -> None:
    """These files (relative to root; one already gone is no error), and the folders they
    leave empty, up to the generated folder."""
    folders = set()
    for relative in gone:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(root, relative))
        parent = os.path.dirname(relative)
        while parent not in ("", GENERATED_DIR):
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
