"""Imports the build's child processes skip or put off.

jsonschema, which nbformat imports (MkDocs' notebook plugin, the notebook's execution),
registers an IRI format checker when `rfc3987_syntax` is installed, and that module compiles
38 Lark grammars on import: 1.1 to 1.4 s of every MkDocs run and every notebook execution on
the 2-core VM (the notebook's execution, whose cells import altair, skips it too). Notebooks
are never validated against an `iri` format, so the checker is left out by making its
import fail, which jsonschema already handles (`ImportError`).

mkdocs-jupyter imports jupytext and its `convert` module (nbconvert) when MkDocs loads it,
0.85 s of every MkDocs run here. It uses them only to read a Markdown page as a notebook
(our config ignores `*.md`) and to convert a notebook its cache does not hold, and the
build converts the Explore notebook into that cache beforehand (site/notebook.py). So
those modules are loaded lazily: on first use, which a build that finds the cache never
makes. A build that does convert loads them then, and works as before.

`python -m generator.site.lean_imports ARGS...` runs `mkdocs ARGS...` this way.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType

SKIPPED = ("rfc3987_syntax",)
DEFERRED = ("jupytext", "mkdocs_jupyter.convert")


class _Deferred(importlib.abc.MetaPathFinder):
    """Finds the DEFERRED modules as the other finders would, with a loader that runs a
    module's code on its first attribute access (importlib.util.LazyLoader)."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name not in DEFERRED:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = importlib.util.LazyLoader(spec.loader)
                return spec
        return None


def skip_unused() -> None:
    """Make `import rfc3987_syntax` raise ImportError in this process."""
    for name in SKIPPED:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


def defer_unused() -> None:
    """Load the DEFERRED modules in this process on their first use."""
    if not any(isinstance(finder, _Deferred) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Deferred())


if __name__ == "__main__":
    skip_unused()
    defer_unused()
    from mkdocs.__main__ import cli

    sys.argv[0] = "mkdocs"
    cli()
