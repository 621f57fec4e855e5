"""The build context: what every stage of one build shares, made once in build.py and
passed to the stages (as nox passes its config to every task), instead of module globals
that `use_*` calls set.

- `measurements` and `cache_dir`: the build's input folder and its cache folder;
- `store`: the one content-keyed store in `cache_dir` (generator/store), keyed by the
  digest of the code that computes its entries (`code_digest`);
- `workers`: the build's pool of processes (pages/workers.py), started on first use;
- `citation`: fields over the citation read (the release's version and URL).

The context pickles (a worker process given it reads and writes the same store); the pool
stays behind in the process that started it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.ingest.cache import DEFAULT_CACHE
from generator.pages.workers import Workers
from generator.site.stamp import LIBRARIES, library_versions
from generator.store import Store

_PACKAGE = Path(__file__).resolve().parents[1]
# The code a stored entry is computed by: a change to any of it is a new key.
_CODE_DIRS = (
    "store",
    "memo",
    "ingest",
    "analysis",
    "findings",
    "catalog",
    "records",
    "charts",
    "pages",
)
_CACHES = (
    "content_cache.py", "trace_cache.py", "page_cache.py", "run_page_cache.py", "export_cache.py"
)  # fmt: skip


def code_digest() -> str:
    """The code and libraries that compute and draw a stored entry: the folders above, the
    package's top-level modules (formatting.py), the caches themselves, and the
    versions of the libraries whose output a stored page holds (specs, SVG and PDF, CSV and
    Parquet)."""
    digest = hashlib.sha256()
    for folder in _CODE_DIRS:
        for path in sorted((_PACKAGE / folder).rglob("*")):
            if path.suffix in (".py", ".toml", ".j2") and "__pycache__" not in path.parts:
                digest.update(path.read_bytes())
    for path in sorted(_PACKAGE.glob("*.py")):
        digest.update(path.read_bytes())
    for name in _CACHES:
        digest.update((_PACKAGE / "site" / name).read_bytes())
    digest.update(library_versions(LIBRARIES).encode())
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class BuildContext:
    measurements: Path
    cache_dir: Path
    store: Store
    citation: dict[str, Any] = field(default_factory=dict)
    workers: Workers = field(default_factory=Workers, compare=False)


def build_context(
    measurements: Path, cache_dir: Path = DEFAULT_CACHE, citation: dict[str, Any] | None = None
) -> BuildContext:
    """The context of a build of `measurements` with its cache in `cache_dir`."""
    return BuildContext(measurements, cache_dir, Store(cache_dir, code_digest()), citation or {})
