"""A notebook's cells run in this process by IPython's shell, their outputs recorded as a
Jupyter kernel reports them (stream, display_data, execute_result, error).

The build executes the Explore notebook in a process of its own (site/notebook.py). Through
nbclient that was two processes talking over ZeroMQ: a kernel (an interpreter, ipykernel,
tornado and zmq) and a client (jupyter_client and zmq). Without them the notebook took 2.9
to 3.6 s of the 2-core VM's CPU per 1,000-run rebuild, against 3.3 to 4.7 s, CPU taken from
the stages running beside it. The shell is the one an IPython kernel runs cells in, so a
cell sees the same `display`, the same formatters (`_repr_html_`, `_repr_mimebundle_`) and
the same last-expression result.
"""

from __future__ import annotations

import io
import platform
import sys
import traceback
from contextlib import chdir, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from IPython.core.displayhook import DisplayHook
from IPython.core.displaypub import DisplayPublisher
from IPython.core.interactiveshell import InteractiveShell
from nbformat import from_dict
from traitlets.config import Config


class CellError(Exception):
    """A cell raised; the message names it (from 1) and holds its exception's traceback."""


class _Outputs:
    """The current cell's outputs, in the order they were made."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def stream(self, name: str, text: str) -> None:
        if not text:
            return
        last = self.items[-1] if self.items else None
        if last and last["output_type"] == "stream" and last["name"] == name:
            last["text"] += text  # as a kernel's flushes arrive, joined
        else:
            self.items.append({"output_type": "stream", "name": name, "text": text})


class _Stream(io.TextIOBase):
    def __init__(self, outputs: _Outputs, name: str) -> None:
        self._outputs, self._name = outputs, name

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._outputs.stream(self._name, text)
        return len(text)


class _Publisher(DisplayPublisher):
    """`display(...)`: a display_data output."""

    outputs: _Outputs

    def publish(self, data: Any, metadata: Any = None, *args: Any, **kwargs: Any) -> None:
        self.outputs.items.append(
            {"output_type": "display_data", "data": data, "metadata": metadata or {}}
        )


class _ResultHook(DisplayHook):
    """A cell's last expression: an execute_result output, no `Out[n]:` prompt."""

    outputs: _Outputs

    def write_output_prompt(self) -> None:
        pass

    def write_format_data(self, format_dict: Any, md_dict: Any = None) -> None:
        self.outputs.items.append(
            {
                "output_type": "execute_result",
                "execution_count": self.prompt_count,  # the cell's, as a kernel numbers it
                "data": format_dict,
                "metadata": md_dict or {},
            }
        )


def run_cells(notebook: Any, folder: Path) -> None:
    """Run every code cell of `notebook` (an nbformat v4 notebook) in order from `folder`,
    setting each one's outputs and execution count; CellError at the first that raises."""
    outputs = _Outputs()
    config = Config()
    config.HistoryManager.hist_file = ":memory:"  # as nbclient starts a kernel: no file
    shell = InteractiveShell.instance(
        config=config, display_pub_class=_Publisher, displayhook_class=_ResultHook
    )
    publisher, hook = shell.display_pub, shell.displayhook
    assert isinstance(publisher, _Publisher) and isinstance(hook, _ResultHook)
    publisher.outputs = hook.outputs = outputs
    with chdir(folder):
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type != "code":
                continue
            outputs.items = []
            out, err = _Stream(outputs, "stdout"), _Stream(outputs, "stderr")
            with redirect_stdout(out), redirect_stderr(err):
                result = shell.run_cell(cell.source, store_history=True)  # type: ignore[no-untyped-call]
            error = result.error_before_exec or result.error_in_exec
            if error is not None:
                text = "".join(traceback.format_exception(error))
                raise CellError(f"cell {index + 1} failed:\n{text}") from error
            cell.execution_count = hook.prompt_count  # the shell's count, as a kernel's
            cell.outputs = [from_dict(item) for item in outputs.items]  # type: ignore[no-untyped-call]
    notebook.metadata["language_info"] = language_info()


def language_info() -> dict[str, Any]:
    """What an IPython kernel reports of its language (the HTML highlights code by it)."""
    major = sys.version_info[0]
    return {
        "codemirror_mode": {"name": "ipython", "version": major},
        "file_extension": ".py",
        "mimetype": "text/x-python",
        "name": "python",
        "nbconvert_exporter": "python",
        "pygments_lexer": f"ipython{major}",
        "version": platform.python_version(),
    }
