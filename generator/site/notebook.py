"""The Explore notebook, executed beside the build instead of inside MkDocs.

Executing docs/explore.ipynb takes IPython's start-up and its queries (~2 s of one core;
its cells run in that process, not in a kernel: site/notebook_shell.py), which MkDocs did in
series after every other stage. It depends only on the measurements and the docs (the
build's input fingerprint), so it starts in its own process when the build starts and runs
while the report is analysed, drawn and written; MkDocs then renders the executed copy
without executing it (site/mkdocs_hooks.py). An executed copy is kept in the cache under
the fingerprint: a forced rebuild of the same inputs executes nothing.

The same process then converts the copy to HTML as mkdocs-jupyter would, with the plugin's
own options and functions, into the plugin's cache (`html_cache`): MkDocs finds it there
instead of converting it (~0.7 s) after every other stage. Where that fails (another
mkdocs-jupyter, say), nothing is cached and MkDocs converts the copy itself.

`python -m generator.site.notebook SOURCE TARGET` executes SOURCE into TARGET (atomically)
and converts TARGET for the MkDocs config in the current folder.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from generator.atomic import write_text
from generator.errors import UserError

NOTEBOOK = "explore.ipynb"  # under docs/; its page is /explore/
EXECUTED_ENV = "RA_EXECUTED_NOTEBOOK"  # publish.py tells mkdocs_hooks.py where the copy is
TIMEOUT_S = 1800  # the whole notebook's limit: a 10,000-run report's queries take seconds
NICE = 10  # the executing process's niceness, added to the build's (`_main`)


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


def html_cache(executed: Path) -> Path:
    """Where mkdocs-jupyter keeps the HTML of executed copies (beside the copies' folders)."""
    return executed.parent.parent / "html"


def start(
    docs_dir: Path, measurements: Path, cache_dir: Path, fingerprint: str
) -> Execution | None:
    """Begin executing docs_dir's notebook for the build of `fingerprint`; None when the
    docs have no notebook."""
    source = docs_dir / NOTEBOOK
    if not source.is_file():
        return None
    key = hashlib.sha256(fingerprint.encode() + source.read_bytes()).hexdigest()[:32]
    # named as the source: mkdocs-jupyter matches its `include` pattern on the file name
    target = cache_dir / "notebooks" / key / NOTEBOOK
    if target.is_file():
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
    """Run every cell of `source` from its own folder (as mkdocs-jupyter did) and write
    the notebook with its outputs to `target` (in this process: site/notebook_shell.py)."""
    import nbformat

    from generator.site.notebook_shell import run_cells

    notebook = nbformat.read(source, as_version=4)  # type: ignore[no-untyped-call]
    run_cells(notebook, source.parent)
    write_text(target, nbformat.writes(notebook))  # type: ignore[no-untyped-call]


# The plugin's options it passes on to its converter (mkdocs_jupyter.plugin's new_render).
_CONVERTER_OPTIONS = (
    "kernel_name", "theme", "allow_errors", "show_input", "no_input", "no_prompt",
    "remove_tag_config", "highlight_extra_classes", "include_requirejs", "custom_mathjax_url",
)  # fmt: skip


def convert_for_mkdocs(executed: Path, config_file: Path) -> Path | None:
    """The executed copy's page content, made by mkdocs-jupyter's converter with the options
    the build gives the plugin (site/mkdocs_hooks.py: not executed, cached in `html_cache`),
    written where the plugin looks it up. The cache file, or None with no such plugin."""
    import json

    from mkdocs.config import load_config
    from mkdocs_jupyter import convert
    from mkdocs_jupyter import plugin as jupyter_plugin

    jupyter = load_config(str(config_file)).plugins.get("mkdocs-jupyter")
    if jupyter is None:
        return None
    options = jupyter.config
    key = jupyter_plugin._compute_cache_key(str(executed), options, False)
    body = convert.nb2html(
        str(executed), execute=False, **{name: options[name] for name in _CONVERTER_OPTIONS}
    )
    toc_tokens, title = jupyter_plugin._get_nb_toc_tokens(str(executed), options["toc_depth"])
    path = Path(jupyter_plugin._get_cache_path(html_cache(executed), key))
    content = {"content": body, "toc_tokens": toc_tokens, "title": title}
    write_text(path, json.dumps(content))
    return path


def _main(source: Path, target: Path) -> None:
    if hasattr(os, "nice"):
        # The build needs the copy only when MkDocs starts, after every other stage, and
        # the stages (one process) run meanwhile on a core this one shares with MkDocs'
        # warm-up: on the 2-core VM a rebuild after one more run at 1,000 runs was 0.45 s
        # faster (median of 9 paired rebuilds) with this process at a lower priority.
        os.nice(NICE)
    from generator.site.lean_imports import skip_unused

    skip_unused()
    # nbconvert's app, which mkdocs-jupyter imports, builds its help text at import by
    # making every exporter it has (0.2 s): named from their entry points only, here
    os.environ.setdefault("NBCONVERT_DISABLE_CONFIG_EXPORTERS", "1")
    execute(source, target)
    try:
        convert_for_mkdocs(target, Path("mkdocs.yml"))
    except Exception as error:  # MkDocs converts it instead: slower, the same page
        print(f"note: the notebook's HTML is left to MkDocs ({error!r})", file=sys.stderr)


if __name__ == "__main__":
    _main(Path(sys.argv[1]), Path(sys.argv[2]))
    # Done, and everything written (atomically): the shell's exit handlers and the last
    # collections over the cells' objects would cost 0.1 to 0.2 s of a core the build
    # needs. A failure above raises, and exits as usual.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
