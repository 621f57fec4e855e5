"""The site's files: generated pages swapped in whole, and the local copies of Vega and
MathJax (no CDN)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from generator.atomic import write_text
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


def replace_generated(
    docs_dir: Path, pages: dict[str, str], files: dict[str, bytes] | None = None
) -> None:
    """The generated folder replaced in one swap. A file whose bytes did not change is the
    old file, hard-linked (its modification time kept), so `mkdocs build --dirty` renders
    only the pages that changed; the rest are written new."""
    docs_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".generated-", dir=docs_dir))
    contents: dict[str, bytes] = {k: v.encode("utf-8") for k, v in pages.items()}
    contents.update(files or {})
    old = docs_dir / GENERATED_DIR
    try:
        for relative, content in contents.items():
            if relative.startswith(f"{GENERATED_DIR}/"):
                inner = relative.removeprefix(f"{GENERATED_DIR}/")
                path = staging / inner
                path.parent.mkdir(parents=True, exist_ok=True)
                if not _link_if_same(old / inner, path, content):
                    path.write_bytes(content)
        swap_dir(staging, old)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    for relative, text in pages.items():
        if not relative.startswith(f"{GENERATED_DIR}/"):
            target = docs_dir / relative
            if not (target.is_file() and target.read_bytes() == text.encode("utf-8")):
                write_text(target, text)


def _link_if_same(previous: Path, path: Path, content: bytes) -> bool:
    """Hard-link `previous` to `path` when it holds exactly `content`."""
    try:
        if previous.stat().st_size != len(content) or previous.read_bytes() != content:
            return False
        os.link(previous, path)
    except OSError:  # no previous file, or no hard links on this filesystem
        return False
    return True


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

    import jupyter_server_mathjax

    stamp = f"jupyter-server-mathjax {version('jupyter-server-mathjax')} stix-config-3\n"
    if (folder / "VERSION").is_file() and (folder / "VERSION").read_text() == stamp:
        return
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
