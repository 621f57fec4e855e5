"""Has the report's input changed since site/ was built? Answered with the standard library
only, so an unchanged `nox -s site` returns before the heavy imports."""

from __future__ import annotations

import hashlib
import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from generator.ingest.digests import file_digest
from generator.pages.paths import GENERATED_DIR, HARDWARE_PAGE, LANDING_PAGE

VEGA_DIR = Path("assets") / "vega"
# The whole generator package (analysis, charts, pages, templates), not just this folder.
PACKAGE = Path(__file__).resolve().parents[1]
MATHJAX_DIR = Path("assets") / "mathjax"  # for the notebook page (mkdocs-jupyter), no CDN
STAMP = ".roofline-atlas-build"
# where ProperDocs keeps its theme's compiled templates between builds (the build's cache folder)
TEMPLATE_CACHE_ENV = "RA_MKDOCS_TEMPLATES"
LIBRARIES = (
    "polars",
    "altair",
    "properdocs",
    "mkdocs-material",
    "mkdocs-jupyter",
    "vl-convert-python",
    "jinja2",
)


def library_versions(names: tuple[str, ...]) -> str:
    """'name=version;' for each library ('name=none;' when it is not installed)."""
    found = []
    for name in names:
        try:
            found.append(f"{name}={version(name)};")
        except PackageNotFoundError:
            found.append(f"{name}=none;")
    return "".join(found)


def input_fingerprint(measurements: Path, docs_dir: Path, release: str = "") -> str:
    """Everything the report is made from: measurements, hand-written docs, mkdocs.yml, the
    benchmark results, this package's code and templates, the library versions, and
    `release` (the version built and the URL overrides: `release.release_inputs`)."""
    digest = hashlib.sha256((library_versions(LIBRARIES) + "\0" + release).encode())
    generated = {
        docs_dir / GENERATED_DIR,
        docs_dir / HARDWARE_PAGE,
        docs_dir / LANDING_PAGE,
        docs_dir / VEGA_DIR,
        docs_dir / MATHJAX_DIR,
    }
    roots = [
        measurements,
        docs_dir,
        PACKAGE,
        Path("mkdocs.yml"),
        measurements.parent / "benchmarks" / "results.json",
        measurements.parent / "CITATION.cff",
    ]
    for root in roots:
        for path in _files(root, generated):
            digest.update(f"{path}\0{file_digest(Path(path))}\0".encode())
    return digest.hexdigest()


def _files(root: Path, skip: set[Path]) -> list[str]:
    """The files under root, sorted, not descending into `skip` (the generated pages: at
    scale, thousands of files that filtering one by one took seconds), caches or dot-files.
    (Strings and directory entries: Path objects and a stat a file cost 0.3 s at 1,000 runs.)"""
    if not root.is_dir():
        return [str(root)] if root.is_file() and root not in skip else []
    skipped = {str(path) for path in skip}
    found: list[str] = []
    folders = [str(root)]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.name.startswith(".") or entry.path in skipped:
                    continue
                if entry.is_dir():
                    if entry.name != "__pycache__":
                        folders.append(entry.path)
                elif entry.is_file():  # not a dangling link, a FIFO or a socket
                    found.append(entry.path)
    return sorted(found)


def up_to_date(docs_dir: Path, site_dir: Path, fingerprint: str) -> bool:
    """site/ carries this fingerprint and the generated pages are still there."""
    stamp = site_dir / STAMP
    return (
        stamp.is_file() and (docs_dir / GENERATED_DIR).is_dir() and stamp.read_text() == fingerprint
    )


def report_up_to_date(site_dir: Path) -> None:
    print(f"report: up to date ({site_dir}/ was built from these inputs; --force rebuilds)")
