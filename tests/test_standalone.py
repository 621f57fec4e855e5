"""The repository stands alone: no tracked file depends on a folder beside the clone."""

from __future__ import annotations

import re

from tests.helpers import REPO, repository_files

# Spelled in pieces, so that this file does not name the folder it forbids naming.
_FOLDER = "shared" + "/"
_SHARED = re.compile(r"(?<![\w-])(\.\./)?" + re.escape(_FOLDER))


def _tracked_text_files() -> list[str]:
    return repository_files()


def test_no_tracked_file_refers_to_the_shared_folder() -> None:
    offenders = []
    for name in _tracked_text_files():
        path = REPO / name
        if not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary (Parquet, images)
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if _SHARED.search(line):
                offenders.append(f"{name}:{number}: {line.strip()[:100]}")
    assert not offenders, f"tracked files refer to {_FOLDER}:\n" + "\n".join(offenders)


def test_the_pattern_catches_both_spellings() -> None:
    assert _SHARED.search(f"see ../{_FOLDER}data/ncu/x.csv")
    assert _SHARED.search(f"({_FOLDER}seeds/000.txt)")
    assert not _SHARED.search("the " + "shared y axis")
    assert not _SHARED.search(f"pre-{_FOLDER}x")
