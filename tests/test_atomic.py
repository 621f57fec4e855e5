"""Atomic writes leave a whole file, readable like any other file the user writes."""

from __future__ import annotations

import os
from pathlib import Path

from generator.atomic import write_json


def test_written_file_follows_the_umask_not_mkstemps_0600(tmp_path: Path) -> None:
    target = tmp_path / "run.json"
    old = os.umask(0o022)
    try:
        write_json(target, {"a": 1})
    finally:
        os.umask(old)
    assert target.read_text() == '{\n  "a": 1\n}\n'
    assert target.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temporary left behind
