"""Where generated pages lie inside docs/ (standard library only: the up-to-date check
reads these before anything heavy is imported)."""

GENERATED_DIR = "measurements"  # every generated page but the hardware page
HARDWARE_PAGE = "hardware.md"  # beside the hand-written pages
DATA_DIR = f"{GENERATED_DIR}/data"  # each page's downloads
