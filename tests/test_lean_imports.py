"""The MkDocs child process's skipped and deferred imports (site/lean_imports.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("mkdocs_jupyter")


def _run(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


def test_the_notebook_plugin_loads_without_nbconvert_or_jupytext() -> None:
    out = _run(
        """
        import sys
        from generator.site.lean_imports import defer_unused, skip_unused
        skip_unused(); defer_unused()
        import mkdocs_jupyter.plugin
        loaded = [m for m in ("nbconvert", "jupytext.formats", "rfc3987_syntax") if sys.modules.get(m)]
        print(loaded)
        """
    )
    assert out == "[]"


def test_a_deferred_module_loads_on_first_use() -> None:
    out = _run(
        """
        import sys
        from generator.site.lean_imports import defer_unused
        defer_unused(); defer_unused()  # twice: one finder
        from mkdocs_jupyter import convert
        import jupytext
        before = "nbconvert" in sys.modules
        assert callable(convert.nb2html) and callable(jupytext.read)
        print(before, "nbconvert" in sys.modules, "jupytext.formats" in sys.modules)
        """
    )
    assert out == "False True True"


def test_without_it_the_plugin_imports_nbconvert() -> None:
    # The check above is meaningful only while the plugin does import it eagerly.
    out = _run("import sys, mkdocs_jupyter.plugin; print('nbconvert' in sys.modules)")
    assert out == "True"


def test_the_notebook_execution_imports_altair_without_the_iri_checker(tmp_path: Path) -> None:
    # The Explore notebook imports altair before anything of ours; its cells run in the
    # process the build starts (site/notebook.py), which skips the checker (1 s of every
    # execution on the 2-core VM).
    import json

    import nbformat

    from tests.helpers import REPO

    probe = "import sys, altair\nprint(repr(sys.modules.get('rfc3987_syntax', 'never imported')))"
    source = tmp_path / "probe.ipynb"
    source.write_text(
        nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(probe)]))
    )
    target = tmp_path / "copy" / "key" / "out.ipynb"  # its HTML goes beside: copy/html
    command = [sys.executable, "-m", "generator.site.notebook", str(source), str(target)]
    subprocess.run(command, cwd=REPO, check=True, capture_output=True)
    executed = json.loads(target.read_text(encoding="utf-8"))
    assert "".join(executed["cells"][0]["outputs"][0]["text"]).strip() == "None"  # blocked
