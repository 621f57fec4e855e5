"""Imports the build's child processes skip.

jsonschema, which nbformat imports (MkDocs' notebook plugin, the notebook's execution),
registers an IRI format checker when `rfc3987_syntax` is installed, and that module compiles
38 Lark grammars on import: 1.1 to 1.4 s of every MkDocs run and every notebook execution on
the 2-core VM. Notebooks are never validated against an `iri` format, so the checker is
left out by making its import fail, which jsonschema already handles (`ImportError`).

`python -m generator.site.lean_imports ARGS...` runs `mkdocs ARGS...` this way.
"""

from __future__ import annotations

import sys

SKIPPED = ("rfc3987_syntax",)


def skip_unused() -> None:
    """Make `import rfc3987_syntax` raise ImportError in this process."""
    for name in SKIPPED:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


if __name__ == "__main__":
    skip_unused()
    from mkdocs.__main__ import cli

    sys.argv[0] = "mkdocs"
    cli()
