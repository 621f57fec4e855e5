"""The Explore notebook executed beside the build (site/notebook.py, with nbclient): once
per inputs, through the store; its outputs on the built page; the executed copy put in
place of the source for MkDocs (site/notebook_hook.py); a failing cell reported with the
notebook's name."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from generator.errors import UserError
from generator.site.notebook import EXECUTED_ENV, NOTEBOOK, start
from generator.store import Store
from tests.helpers import REPO


def _notebook(folder: Path, source: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    cell = {"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
            "execution_count": None}  # fmt: skip
    notebook = {"cells": [cell], "metadata": {"kernelspec": {"name": "python3",
                "display_name": "Python 3", "language": "python"}},
                "nbformat": 4, "nbformat_minor": 5}  # fmt: skip
    (folder / NOTEBOOK).write_text(json.dumps(notebook), encoding="utf-8")
    return folder


def test_executed_once_per_inputs(tmp_path: Path) -> None:
    docs = _notebook(tmp_path / "docs", "import os\nprint(6 * 7, os.environ['RA_MEASUREMENTS'])")
    running = start(docs, tmp_path / "measurements", Store(tmp_path / "cache"), "inputs-1")
    assert running is not None and running.process is not None
    executed = json.loads(running.wait().read_text(encoding="utf-8"))
    printed = "".join(executed["cells"][0]["outputs"][0]["text"])
    assert printed == f"42 {(tmp_path / 'measurements').resolve()}\n"
    again = start(docs, tmp_path / "measurements", Store(tmp_path / "cache"), "inputs-1")
    assert again is not None and again.process is None  # found, not executed again
    assert again.wait() == running.target
    other = start(docs, tmp_path / "measurements", Store(tmp_path / "cache"), "inputs-2")
    assert other is not None and other.target != running.target
    other.cancel()
    assert start(tmp_path / "empty", tmp_path, Store(tmp_path / "cache"), "x") is None


def test_outputs_are_recorded_as_a_kernel_reports_them(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    cells = [
        "print('a')",
        "from IPython.display import HTML, display\ndisplay(HTML('<b>x</b>'))\n6 * 7",
        "quiet = 1;",
    ]
    code = [{"cell_type": "code", "metadata": {}, "source": text, "outputs": [],
             "execution_count": None} for text in cells]  # fmt: skip
    prose = {"cell_type": "markdown", "metadata": {}, "source": "# Notes"}
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook = {"cells": [prose, *code], "metadata": {"kernelspec": kernel},
                "nbformat": 4, "nbformat_minor": 5}  # fmt: skip
    (docs / NOTEBOOK).write_text(json.dumps(notebook), encoding="utf-8")
    running = start(docs, tmp_path, Store(tmp_path / "cache"), "inputs")
    assert running is not None
    executed = json.loads(running.wait().read_text(encoding="utf-8"))
    printed, shown, quiet = (cell["outputs"] for cell in executed["cells"][1:])
    assert [(o["name"], "".join(o["text"])) for o in printed] == [("stdout", "a\n")]
    assert [o["output_type"] for o in shown] == ["display_data", "execute_result"]
    assert "".join(shown[0]["data"]["text/html"]) == "<b>x</b>"
    assert "".join(shown[1]["data"]["text/plain"]) == "42" and shown[1]["execution_count"] == 2
    assert quiet == []  # a trailing semicolon shows nothing, as in Jupyter
    assert [cell.get("execution_count") for cell in executed["cells"]] == [None, 1, 2, 3]
    assert executed["metadata"]["language_info"]["pygments_lexer"] == "ipython3"


def test_a_notebook_that_never_ends_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.site import notebook

    monkeypatch.setattr(notebook, "TIMEOUT_S", 1)
    docs = _notebook(tmp_path / "docs", "import time\ntime.sleep(600)")
    running = start(docs, tmp_path, Store(tmp_path / "cache"), "inputs")
    assert running is not None and running.process is not None
    with pytest.raises(UserError, match=r"explore\.ipynb did not finish in 1 s"):
        running.wait()
    assert running.process.poll() is not None  # killed, not left running
    assert not running.target.exists()


def test_a_failing_cell_names_the_notebook(tmp_path: Path) -> None:
    docs = _notebook(tmp_path / "docs", "raise ValueError('no such column: tflops')")
    running = start(docs, tmp_path, Store(tmp_path / "cache"), "inputs")
    assert running is not None
    with pytest.raises(UserError, match=r"explore\.ipynb could not be executed") as error:
        running.wait()
    assert "no such column: tflops" in str(error.value)
    assert not running.target.exists()  # nothing half-written to be found next time


def test_the_explore_page_shows_the_executed_outputs(repo_site: Path) -> None:
    html = (repo_site / "explore" / "index.html").read_text(encoding="utf-8")
    # the first cell's printed count (its source says `{runs.height} runs`)
    assert re.search(r"\b\d+ runs, \d+ ok\b", html)
    assert re.search(r"In\xa0\[\d+\]", html)  # numbered: executed, not a bare source


def test_mkdocs_renders_the_executed_copy_without_executing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook points the notebook's file at the executed copy (its settable
    `abs_src_path`), and mkdocs-jupyter's `execute_ignore` (mkdocs.yml) matches the copy's
    path in the store: converted as it is, never executed again. Checked on the config the
    build's ProperDocs reads (publish.build_config), which once named only the other hook:
    MkDocs then executed the notebook a second time in every build, 4.3 s of a rebuild's 11.
    (mkdocs-jupyter imports `mkdocs.*`: ProperDocs' alias, as in its own process.)"""
    import pathlib

    import properdocs.replacement  # noqa: F401
    from properdocs.config import load_config
    from properdocs.structure.files import File, Files

    from generator.site.publish import build_config, hooks_of
    from generator.site.release import make_release

    monkeypatch.chdir(REPO)
    docs = _notebook(tmp_path / "docs", "print(6 * 7)")
    running = start(docs, tmp_path / "measurements", Store(tmp_path / "cache"), "inputs")
    assert running is not None
    executed = running.wait()
    assert {hook.name for hook in hooks_of(REPO / "mkdocs.yml")} == {
        "mkdocs_hooks.py", "notebook_hook.py"
    }  # fmt: skip
    (tmp_path / "staging").mkdir()
    release = make_release({}, None, None)
    nav = [{"Explore": NOTEBOOK}]
    child = build_config(REPO / "mkdocs.yml", docs, nav, release, tmp_path / "staging")
    config = load_config(str(child))

    def notebook_file() -> Any:
        files = Files([File(NOTEBOOK, str(docs), str(tmp_path / "site"), True)])
        found = config.plugins.on_files(files, config=config).get_file_from_path(NOTEBOOK)
        assert found is not None and found.is_documentation_page()  # wrapped by the plugin
        return found

    monkeypatch.delenv(EXECUTED_ENV, raising=False)
    assert notebook_file().abs_src_path == str(docs / NOTEBOOK)  # executed by the plugin
    monkeypatch.setenv(EXECUTED_ENV, str(executed))
    found = notebook_file()
    assert found.abs_src_path == str(executed) and found.src_uri == NOTEBOOK
    ignored = config.plugins["mkdocs-jupyter"].config["execute_ignore"]
    assert any(pathlib.PurePath(str(executed)).match(pattern) for pattern in ignored)
    assert not any(pathlib.PurePath(str(docs / NOTEBOOK)).match(p) for p in ignored)
