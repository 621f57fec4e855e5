"""The MkDocs process of a build, started early and told what to build when the pages are
written.

A MkDocs run spends ~0.5 s on the 2-core VM before it builds anything: the interpreter, its
imports, the theme, plugins, hooks and Markdown extensions its config loads. That does not
depend on the pages, so the build starts the process with the stages (`start`): it loads
mkdocs.yml's config to import all of that, then waits for one line on its standard input,
the arguments and environment of the build publish asks for (`WarmMkDocs.run`). The build
itself is `mkdocs ARGS...` as before, in that process (`python -m
generator.site.mkdocs_process --wait-for-stdin`).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import subprocess
import sys
from dataclasses import dataclass

WAIT_FLAG = "--wait-for-stdin"


@dataclass
class WarmMkDocs:
    process: subprocess.Popen[str]

    def send(self, args: list[str], env: dict[str, str]) -> None:
        """Start `mkdocs ARGS...` with these environment variables added (`wait` for it).
        MkDocs is quiet (`--quiet`) until then: its pipes never fill meanwhile."""
        assert self.process.stdin is not None
        with contextlib.suppress(BrokenPipeError):  # it ended already: `wait` says how
            self.process.stdin.write(json.dumps({"args": args, "env": env}) + "\n")
            self.process.stdin.flush()  # one line is all it reads; `wait` closes the pipe

    def wait(self) -> subprocess.CompletedProcess[str]:
        stdout, stderr = self.process.communicate()
        return subprocess.CompletedProcess(
            self.process.args, self.process.returncode, stdout, stderr
        )

    def run(self, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        """`mkdocs ARGS...` with these environment variables added, run to its end."""
        self.send(args, env)
        return self.wait()

    def cancel(self) -> None:
        """Stop a process the build no longer needs (a stage failed)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


def start() -> WarmMkDocs:
    """A MkDocs process, warming up in the current folder (where mkdocs.yml is)."""
    command = [sys.executable, "-m", "generator.site.mkdocs_process", WAIT_FLAG]
    pipe = subprocess.PIPE
    return WarmMkDocs(subprocess.Popen(command, stdin=pipe, stdout=pipe, stderr=pipe, text=True))


def warm_then_run() -> None:
    """In the child: load mkdocs.yml's config (its imports stay), then run the build the
    first line of standard input asks for. A config that fails here fails again, with its
    message, in the build itself."""
    from mkdocs.__main__ import cli
    from mkdocs.config import load_config

    with contextlib.suppress(Exception, SystemExit):  # SystemExit: MkDocs' own checks
        load_config("mkdocs.yml")
    line = sys.stdin.readline()
    if not line:  # the build stopped before publishing
        sys.exit(0)
    request = json.loads(line)
    os.environ.update(request["env"])
    sys.argv = ["mkdocs", *request["args"]]
    try:
        cli()  # ends in SystemExit, MkDocs' status
    finally:
        # The build waits for this process to end, and its last garbage collections would
        # walk every page MkDocs made (0.12 s of a dirty build at 1,000 runs): skipped.
        gc.freeze()


if __name__ == "__main__":
    warm_then_run()
