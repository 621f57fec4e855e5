"""The Explore notebook executed beside the build (site/notebook.py): once per inputs, its
outputs on the built page, converted where MkDocs looks, and a failing cell reported with
the notebook's name."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from generator.errors import UserError
from generator.site.notebook import EXECUTED_ENV, NICE, NOTEBOOK, html_cache, start
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
    running = start(docs, tmp_path / "measurements", tmp_path / "cache", "inputs-1")
    assert running is not None and running.process is not None
    executed = json.loads(running.wait().read_text(encoding="utf-8"))
    printed = "".join(executed["cells"][0]["outputs"][0]["text"])
    assert printed == f"42 {(tmp_path / 'measurements').resolve()}\n"
    again = start(docs, tmp_path / "measurements", tmp_path / "cache", "inputs-1")
    assert again is not None and again.process is None  # found, not executed again
    assert again.wait() == running.target
    other = start(docs, tmp_path / "measurements", tmp_path / "cache", "inputs-2")
    assert other is not None and other.target != running.target
    other.cancel()
    assert start(tmp_path / "empty", tmp_path, tmp_path / "cache", "x") is None


def test_the_executing_process_ends_without_its_teardown(tmp_path: Path) -> None:
    """Once the copy is written, the process ends at once: exit handlers (IPython's own
    cost 0.5 s of a core at 1,000 runs) do not run; nbconvert is told not to make every
    exporter at import; and it runs at a lower priority than the build."""
    flag = tmp_path / "exit-handler-ran"
    source = (
        f"import atexit, os, pathlib\natexit.register(pathlib.Path({str(flag)!r}).touch)\n"
        "print(os.environ.get('NBCONVERT_DISABLE_CONFIG_EXPORTERS'), os.nice(0))"
    )
    docs = _notebook(tmp_path / "docs", source)
    running = start(docs, tmp_path, tmp_path / "cache", "inputs")
    assert running is not None and running.process is not None
    executed = json.loads(running.wait().read_text(encoding="utf-8"))  # exit status 0
    niceness = min(os.nice(0) + NICE, 19)  # below the build's priority: it has slack
    assert "".join(executed["cells"][0]["outputs"][0]["text"]) == f"1 {niceness}\n"
    assert not flag.exists()


def test_outputs_are_recorded_as_a_kernel_reports_them(tmp_path: Path) -> None:
    # The cells run in the executing process (site/notebook_shell.py), not in a kernel:
    # printed text, display() and a last expression come out as nbclient recorded them.
    docs = tmp_path / "docs"
    docs.mkdir()
    cells = [
        "import sys\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')",
        "from IPython.display import HTML, display\ndisplay(HTML('<b>x</b>'))\n6 * 7",
        "quiet = 1;",
        "quiet",
    ]
    code = [{"cell_type": "code", "metadata": {}, "source": text, "outputs": [],
             "execution_count": None} for text in cells]  # fmt: skip
    prose = {"cell_type": "markdown", "metadata": {}, "source": "# Notes"}
    notebook = {"cells": [prose, *code], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (docs / NOTEBOOK).write_text(json.dumps(notebook), encoding="utf-8")
    running = start(docs, tmp_path, tmp_path / "cache", "inputs")
    assert running is not None
    executed = json.loads(running.wait().read_text(encoding="utf-8"))
    printed, shown, quiet, last = (cell["outputs"] for cell in executed["cells"][1:])
    assert [(o["name"], "".join(o["text"])) for o in printed] == [
        ("stdout", "a\n"), ("stderr", "b\n"), ("stdout", "c\n")
    ]  # fmt: skip
    assert [o["output_type"] for o in shown] == ["display_data", "execute_result"]
    assert "".join(shown[0]["data"]["text/html"]) == "<b>x</b>"
    assert "".join(shown[1]["data"]["text/plain"]) == "42" and shown[1]["execution_count"] == 2
    assert quiet == []  # a trailing semicolon shows nothing, as in Jupyter
    assert last[0]["execution_count"] == 4 and "".join(last[0]["data"]["text/plain"]) == "1"
    assert [cell.get("execution_count") for cell in executed["cells"]] == [None, 1, 2, 3, 4]
    assert executed["metadata"]["language_info"]["pygments_lexer"] == "ipython3"


def test_a_notebook_that_never_ends_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.site import notebook

    monkeypatch.setattr(notebook, "TIMEOUT_S", 1)
    docs = _notebook(tmp_path / "docs", "import time\ntime.sleep(600)")
    running = start(docs, tmp_path, tmp_path / "cache", "inputs")
    assert running is not None and running.process is not None
    with pytest.raises(UserError, match=r"explore\.ipynb did not finish in 1 s"):
        running.wait()
    assert running.process.poll() is not None  # killed, not left running
    assert not running.target.exists()


def test_a_failing_cell_names_the_notebook(tmp_path: Path) -> None:
    docs = _notebook(tmp_path / "docs", "raise ValueError('no such column: tflops')")
    running = start(docs, tmp_path, tmp_path / "cache", "inputs")
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


def test_the_executed_copy_is_converted_where_mkdocs_jupyter_looks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mkdocs.config import load_config
    from mkdocs_jupyter import plugin as jupyter_plugin

    from generator.site import mkdocs_hooks

    monkeypatch.chdir(REPO)  # the worker converts for the mkdocs.yml it runs beside
    docs = _notebook(tmp_path / "docs", "print(6 * 7)")
    running = start(docs, tmp_path / "measurements", tmp_path / "cache", "inputs")
    assert running is not None
    executed = running.wait()
    # the plugin as the build configures it (the hooks' on_config), asked for its cache
    # entry as it asks when it renders the page
    monkeypatch.setenv(EXECUTED_ENV, str(executed))
    config = mkdocs_hooks.on_config(load_config(str(REPO / "mkdocs.yml")))
    jupyter = config.plugins["mkdocs-jupyter"]
    key = jupyter_plugin._compute_cache_key(
        str(executed), jupyter.config, jupyter.config["execute"]
    )
    entry = jupyter_plugin._get_cache_path(jupyter.config["cache_dir"], key)
    assert entry == html_cache(executed) / f"{key}.json"
    page = json.loads(entry.read_text(encoding="utf-8"))
    assert "42" in page["content"] and "print" in page["content"]
