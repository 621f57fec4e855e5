"""The README runs as written: every fenced shell example, in a fresh copy of the repository.

Each line of a `bash`, `sh` or `shell` block, and each `$ ` line of a `console` block, runs in
README order, in a copy of the working tree (tracked files and untracked ones git does not
ignore, committed into a new git repository), with pipx installing into the copy's own
folders. Three kinds of command do not run as written:

- `nox -s measure …` and `nox -s publish …` run as `nox -s NAME -- --help` (a measurement
  takes minutes; publishing commits into gh-pages);
- `nox -s serve …` is started on a free port, must answer with the report's landing page,
  and is stopped;
- `nox -s tests` and `nox -s lint` are .ci/run's own steps (the suite cannot run itself
  inside itself): the test checks that .ci/run runs them as written.

A `console` block's output must be what its command prints. The run builds the report twice
(minutes), so it is marked `readme`; without pipx it is skipped, unless RA_REQUIRE_README=1
(set by .ci/run, which runs it on Python 3.11 and, with no torch, on 3.13).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import REPO, repository_files

README = (REPO / "README.md").read_text(encoding="utf-8")
CI = (REPO / ".ci" / "run").read_text(encoding="utf-8")
NOXFILE = (REPO / "noxfile.py").read_text(encoding="utf-8")

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
SHELL = ("bash", "sh", "shell")
HELP_ONLY = ("measure", "publish")
CI_STEPS = ("tests", "lint")
COMMAND_SECONDS = 1200  # the slowest, a first `nox -s site`, takes 3 to 4 minutes
SERVE_SECONDS = 900


@dataclass(frozen=True)
class Example:
    """One command of the README, and the output its `console` block shows (None: none)."""

    command: str
    shown: str | None = None


def examples(text: str) -> list[Example]:
    found: list[Example] = []
    for language, body in FENCE.findall(text):
        if language in SHELL:
            found += [Example(command) for command in _commands(body)]
        elif language == "console":
            found += _console(body)
    return found


def _commands(body: str) -> list[str]:
    """The block's commands: continued lines joined, blank and comment-only lines left out."""
    joined = re.sub(r"\s*\\\n\s*", " ", body)
    return [line.strip() for line in joined.splitlines() if _words(line)]


def _console(body: str) -> list[Example]:
    found: list[Example] = []
    command: str | None = None
    output: list[str] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            if command is not None:
                found.append(Example(command, "\n".join(output)))
            command, output = line[2:].strip(), []
        elif command is not None:
            output.append(line)
    if command is not None:
        found.append(Example(command, "\n".join(output)))
    return found


def _words(command: str) -> list[str]:
    return shlex.split(command, comments=True)


def nox_session(command: str) -> str | None:
    words = _words(command)
    if words[:2] == ["nox", "-s"] and len(words) > 2:
        return words[2]
    return None


def how(command: str) -> str:
    """'help', 'serve', 'ci' or 'run': see the module's docstring."""
    session = nox_session(command)
    if session in HELP_ONLY:
        return "help"
    if session in CI_STEPS:
        return "ci"
    if session == "serve":
        return "serve"
    return "run"


def test_the_readme_has_examples_of_every_kind() -> None:
    found = examples(README)
    kinds = {how(example.command) for example in found}
    assert kinds == {"help", "serve", "ci", "run"}, kinds
    assert any(example.shown for example in found), "no console block shows an output"
    assert any(_words(e.command)[:2] == ["pipx", "install"] for e in found)


def test_every_nox_session_the_readme_names_exists() -> None:
    sessions = set(re.findall(r"^def (\w+)\(session", NOXFILE, re.MULTILINE))
    sessions |= set(re.findall(r'name="([\w-]+)"', NOXFILE))
    named = {nox_session(e.command) for e in examples(README)} - {None}
    assert named, "the README runs no nox session"
    assert named <= sessions, named - sessions


def _nox_arguments(line: str) -> list[str] | None:
    """What a line runs nox with (`nox …` or `python3 -m nox …`), or None."""
    try:
        words = _words(line)
    except ValueError:  # not one shell command (a quote left open for the next line)
        return None
    return words[words.index("nox") + 1 :] if "nox" in words else None


def test_the_ci_runs_the_readmes_test_and_lint_commands_as_written() -> None:
    ci_runs = [_nox_arguments(line) for line in CI.splitlines()]
    for example in examples(README):
        if how(example.command) == "ci":
            assert _nox_arguments(example.command) in ci_runs, (
                f"README's `{example.command}` is not a step of .ci/run"
            )


def test_the_files_the_examples_name_ship_with_the_repository() -> None:
    named = [
        word
        for example in examples(README)
        for word in _words(example.command)
        if word.startswith("tests/data/")
    ]
    assert named, "no example runs on a file in tests/data"
    for word in named:
        assert (REPO / word).exists(), word


def test_a_console_block_is_split_into_commands_and_outputs() -> None:
    text = (
        "```console\n$ echo a\na\n$ printf 'b\\nc\\n'\nb\nc\n```\n```bash\nls \\\n  -l  # x\n```\n"
    )
    assert examples(text) == [
        Example("echo a", "a"),
        Example("printf 'b\\nc\\n'", "b\nc"),
        Example("ls -l  # x"),
    ]
    assert how("nox -s publish -- 2026.11 --alias latest") == "help"
    assert how("nox -s site") == "run"


# --- the slow part: the README, run -------------------------------------------------------


def _fresh_copy(target: Path) -> Path:
    for name in repository_files():
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    git = ["git", "-c", "user.name=README test", "-c", "user.email=readme@example.invalid"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "a fresh copy"]):
        subprocess.run([*git, *args], cwd=target, check=True, capture_output=True)
    return target


def _fresh_environment(tmp: Path) -> dict[str, str]:
    """This process's environment without its virtualenv; pipx installs under tmp."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME") and not key.startswith("NOX")
    }
    ours = Path(sys.prefix, "bin").resolve()
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and Path(p).resolve() != ours]
    env["PATH"] = os.pathsep.join([str(tmp / "bin"), *path])
    env["PIPX_HOME"] = str(tmp / "pipx")
    env["PIPX_BIN_DIR"] = str(tmp / "bin")
    env["PIPX_MAN_DIR"] = str(tmp / "man")
    return env


def _run(command: str, cwd: Path, env: dict[str, str]) -> str:
    try:
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=COMMAND_SECONDS,
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"README's `{command}` ran past {COMMAND_SECONDS} s:\n{error.output}")
    if done.returncode != 0:
        pytest.fail(f"README's `{command}` exited {done.returncode}:\n{done.stdout[-6000:]}")
    return done.stdout


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(command: str, cwd: Path, env: dict[str, str], log: Path) -> None:
    """Start the README's serve command on a free port, fetch its landing page, stop it."""
    address = f"127.0.0.1:{_free_port()}"
    words = _words(command)
    served = shlex.join([*words, *([] if "--" in words else ["--"]), "--dev-addr", address])
    with log.open("w") as out:
        server = subprocess.Popen(
            ["bash", "-c", f"exec {served}"],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + SERVE_SECONDS
        while time.monotonic() < deadline:
            if server.poll() is not None:
                pytest.fail(f"README's `{command}` exited {server.returncode}:\n{log.read_text()}")
            try:
                with urllib.request.urlopen(f"http://{address}/", timeout=5) as page:
                    body = page.read().decode("utf-8", "replace")
            except OSError:
                time.sleep(2)
                continue
            assert "Roofline Atlas" in body, body[:2000]
            return
        pytest.fail(f"README's `{command}` served nothing in {SERVE_SECONDS} s:\n{log.read_text()}")
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


@pytest.mark.readme
def test_the_readme_runs_as_written(tmp_path: Path) -> None:
    if shutil.which("pipx") is None:
        if os.environ.get("RA_REQUIRE_README") == "1":
            pytest.fail("RA_REQUIRE_README=1 but pipx is missing (apt-get install pipx)")
        pytest.skip("pipx is missing (apt-get install pipx; .ci/run installs it)")
    clone = _fresh_copy(tmp_path / "roofline-atlas")
    env = _fresh_environment(tmp_path)
    ran = []
    for example in examples(README):
        kind = how(example.command)
        if kind == "ci":
            continue  # checked by test_the_ci_runs_the_readmes_test_and_lint_commands_as_written
        if kind == "serve":
            _serve(example.command, clone, env, tmp_path / "serve.log")
        elif kind == "help":
            output = _run(f"nox -s {nox_session(example.command)} -- --help", clone, env)
            assert "usage:" in output, output[-3000:]
        else:
            output = _run(example.command, clone, env)
            if example.shown is not None:
                assert _lines(output) == _lines(example.shown), (
                    f"README shows for `{example.command}`:\n{example.shown}\nit prints:\n{output}"
                )
        ran.append(example.command)
    assert ran
    assert (clone / "site" / "index.html").is_file(), "the README's commands built no report"


def test_an_example_that_fails_fails_the_test(tmp_path: Path) -> None:
    assert _run("echo ran", tmp_path, dict(os.environ)) == "ran\n"
    with pytest.raises(pytest.fail.Exception, match="exited 3"):
        _run("echo a; exit 3", tmp_path, dict(os.environ))
