"""The Explore notebook, executed beside the build instead of inside MkDocs.

Executing docs/explore.ipynb (a kernel's start-up and the notebook's queries) took MkDocs
seconds in series after every other stage. It depends only on the measurements and the
docs (the build's input fingerprint), so it starts in its own process when the build starts
and runs while the report is analysed, drawn and written, executed the public way: nbclient
runs its cells in a Jupyter kernel, as `jupyter nbconvert --execute` does. The executed copy
is kept in the store (kind `notebook`) under the fingerprint and the notebook's bytes: a
forced rebuild of the same inputs executes nothing. MkDocs then renders that copy instead
of the source (site/notebook_hook.py), and mkdocs-jupyter converts it without executing it
(its public `execute_ignore` option, mkdocs.yml).

`python -m generator.site.notebook SOURCE TARGET` executes SOURCE into TARGET (atomically).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from generator.atomic import write_text
from generator.errors import UserError
from generator.store import Store, Text

NOTEBOOK = "explore.ipynb"  # under docs/; its page is /explore/
EXECUTED_ENV = "RA_EXECUTED_NOTEBOOK"  # publish.py tells notebook_hook.py where the copy is
KIND = "notebook"
# named as the source: mkdocs-jupyter matches its `include` pattern on the file's name
EXECUTED = Text(NOTEBOOK)
TIMEOUT_S = 1800  # the whole notebook's limit: a 10,000-run report's queries take seconds


@dataclass
class Execution:
    """A notebook being executed (or found executed) into `target`."""

    target: Path
    process: subprocess.Popen[bytes] | None
    log: Path | None

    def wait(self) -> Path:
        """The executed copy; a UserError with the failing cell's traceback when one failed,
        or when the notebook ran past TIMEOUT_S."""
        if self.process is not None:
            try:
                code = self.process.wait(timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.cancel()
                raise UserError(
                    f"docs/{NOTEBOOK} did not finish in {TIMEOUT_S} s; site/ was left as it was",
                    fix=f"run the notebook (jupyter lab docs/{NOTEBOOK}) and find the slow cell",
                ) from None
            words = self.log.read_text(errors="replace").strip() if self.log else ""
            if self.log:
                self.log.unlink(missing_ok=True)
            if code != 0 or not self.target.is_file():
                raise UserError(
                    f"docs/{NOTEBOOK} could not be executed; site/ was left as it was:\n{words}",
                    fix=f"run the notebook (jupyter lab docs/{NOTEBOOK}) and fix the failing cell",
                )
            self.process = None
        return self.target

    def cancel(self) -> None:
        """Stop an execution the build no longer needs (a stage failed)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.log is not None:
            self.log.unlink(missing_ok=True)


def start(docs_dir: Path, measurements: Path, store: Store, fingerprint: str) -> Execution | None:
    """Begin executing docs_dir's notebook for the build of `fingerprint` (None when the
    docs have no notebook), into the store's entry for it, or find it there."""
    source = docs_dir / NOTEBOOK
    if not source.is_file():
        return None
    key = store.key(KIND, [fingerprint, source.read_bytes()])
    target = store.path(KIND, key, EXECUTED)
    if store.has(KIND, key, EXECUTED):
        return Execution(target, None, None)
    target.parent.mkdir(parents=True, exist_ok=True)
    log = Path(tempfile.mkstemp(prefix="notebook-", suffix=".log", dir=target.parent)[1])
    env = {**os.environ, "RA_MEASUREMENTS": str(measurements.resolve())}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "generator.site.notebook", str(source), str(target)],
            stdout=out, stderr=subprocess.STDOUT, env=env,
        )  # fmt: skip
    return Execution(target, process, log)


def execute(source: Path, target: Path) -> None:
    """Run every cell of `source` in a kernel started from its own folder (as
    mkdocs-jupyter did), and write the notebook with its outputs to `target`."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(source, as_version=4)  # type: ignore[no-untyped-call]
    client = NotebookClient(
        notebook, timeout=TIMEOUT_S, resources={"metadata": {"path": str(source.parent)}}
    )
    client.execute()
    write_text(target, nbformat.writes(notebook))  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    # At the build's own priority: the build waits for the executed copy (a kernel's
    # start-up and the queries, ~5 s of CPU here) before MkDocs can render it. Niced as the
    # in-process shell was (+10), a rebuild of the committed report after a docs edit took
    # 15.1 to 16.1 s, 10.3 to 10.6 s without (2-core VM, under other agents' load).
    execute(Path(sys.argv[1]), Path(sys.argv[2]))
