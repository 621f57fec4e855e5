"""Where generated pages lie inside docs/, and their downloads beside it (standard library
only: the up-to-date check reads these before anything heavy is imported)."""

from pathlib import Path

GENERATED_DIR = "measurements"  # every generated page but the hardware page
HARDWARE_PAGE = "hardware.md"  # beside the hand-written pages
LANDING_PAGE = "index.md"  # the site's front page, results first
DATA_DIR = f"{GENERATED_DIR}/data"  # each page's downloads, in the site
INCLUDES_DIR = f"{DATA_DIR}/includes"  # text hand-written pages include (site/mkdocs_hooks.py)


def downloads_root(docs_dir: Path) -> Path:
    """Where the downloads (`DATA_DIR/...`) are written: beside docs_dir, not in it. At
    1,000 runs they are 22,000 files that MkDocs would list, wrap and check on every build;
    the build's hooks (site/mkdocs_hooks.py) resolve the pages' links to them and copy them
    into the site, at the same paths."""
    return docs_dir.parent / f"{docs_dir.name}-downloads"


def is_download(relative: str) -> bool:
    """Whether a docs-relative path names a download (it lies under `downloads_root`)."""
    return relative.startswith(f"{DATA_DIR}/")
