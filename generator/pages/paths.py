"""Where generated pages lie inside docs/ (standard library only: the up-to-date check
reads these before anything heavy is imported)."""

GENERATED_DIR = "measurements"  # every generated page but the hardware page
HARDWARE_PAGE = "hardware.md"  # beside the hand-written pages
LANDING_PAGE = "index.md"  # the site's front page, results first
DATA_DIR = f"{GENERATED_DIR}/data"  # each page's downloads
INCLUDES_DIR = f"{DATA_DIR}/includes"  # text hand-written pages include (site/mkdocs_hooks.py)
