"""The repository stands alone: no tracked file depends on a folder beside the clone."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.helpers import REPO

_SHARED = re.compile(r"(?<![\w-])(\.\./)?shared/")
_THIS_FILE = "tests/test_standalone.py"  # it spells the pattern out


def _tracked_text_files() -> list[str]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [name for name in listed.decode().split("\0") if name]


def test_no_tracked_file_refers_to_the_shared_folder() -> None:
    offenders = []
    for name in _tracked_text_files():
        path = REPO / name
        if name == _THIS_FILE or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary (Parquet, images)
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if _SHARED.search(line):
                offenders.append(f"{name}:{number}: {line.strip()[:100]}")
    assert not offenders, "tracked files refer to shared/:\n" + "\n".join(offenders)


def test_the_pattern_catches_both_spellings() -> None:
    assert _SHARED.search("see ../shared/data/ncu/x.csv")
    assert _SHARED.search("(shared/seeds/000.txt)")
    assert not _SHARED.search("the shared y axis")
    assert not _SHARED.search("pre-shared/x")
