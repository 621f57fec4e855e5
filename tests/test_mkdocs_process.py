"""The build's MkDocs process, warmed up before it is told what to build
(site/mkdocs_process.py)."""

from __future__ import annotations

import pytest

from generator.site.mkdocs_process import start
from tests.helpers import REPO

pytest.importorskip("mkdocs")


def test_it_runs_the_command_sent_later_with_its_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(REPO)  # mkdocs.yml, which it loads while it waits
    mkdocs = start()
    assert mkdocs.process.poll() is None  # waiting for its command
    result = mkdocs.run(["--version"], {"RA_SOME_SETTING": "1"})
    assert result.returncode == 0 and "version" in result.stdout


def test_a_bad_command_fails_with_mkdocs_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = start().run(["build", "--config-file", "no-such.yml"], {})
    assert result.returncode != 0 and "no-such.yml" in result.stderr


def test_a_cancelled_process_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    mkdocs = start()
    mkdocs.cancel()
    assert mkdocs.process.poll() is not None
    mkdocs.cancel()  # twice: nothing left to stop


def test_the_process_freezes_what_mkdocs_made_before_it_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The build waits for this process's end: its last collections over every page MkDocs
    # made are skipped (warm_then_run, run here in this process with MkDocs' CLI stubbed).
    import gc
    import io
    import json
    import sys

    import mkdocs.__main__

    from generator.site import mkdocs_process

    def cli() -> None:
        assert sys.argv == ["mkdocs", "build", "--strict"]
        raise SystemExit(0)  # as click ends a command

    monkeypatch.chdir(REPO)
    monkeypatch.setattr(mkdocs.__main__, "cli", cli)
    monkeypatch.setattr(
        sys, "stdin", io.StringIO(json.dumps({"args": ["build", "--strict"], "env": {}}) + "\n")
    )
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    gc.unfreeze()
    try:
        with pytest.raises(SystemExit):
            mkdocs_process.warm_then_run()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
