"""Runs' steps.csv parsed once per content (ingest/steps.py)."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from generator.errors import UserError
from generator.ingest import steps
from generator.ingest.steps import cached_steps, read_steps, stored_path
from generator.store import Store

REPO = Path(__file__).resolve().parents[1]
RUNS = REPO / "measurements" / "runs"


def _runs(tmp_path: Path, count: int = 3) -> dict[str, Path]:
    """`count` real run folders' steps.csv, copied."""
    sources = sorted(p for p in RUNS.iterdir() if (p / "steps.csv").is_file())[:count]
    assert len(sources) == count
    folders = {}
    for source in sources:
        folder = tmp_path / "runs" / source.name
        folder.mkdir(parents=True)
        shutil.copy(source / "steps.csv", folder / "steps.csv")
        folders[source.name] = folder
    return folders


def test_the_store_gives_what_parsing_gives(tmp_path: Path) -> None:
    folders = _runs(tmp_path)
    cache = Store(tmp_path / "cache")
    first = cached_steps(folders, cache)
    again = cached_steps(folders, cache)
    for run, folder in folders.items():
        parsed = read_steps(folder)
        assert parsed.height > 0 and parsed["step_s"].null_count() == 0
        assert_frame_equal(first[run], parsed)
        assert_frame_equal(again[run], parsed)


def test_a_stored_file_is_not_parsed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folders = _runs(tmp_path)
    cache = Store(tmp_path / "cache")
    cached_steps(folders, cache)
    parsed: list[Path] = []
    real = steps.read_steps
    monkeypatch.setattr(steps, "read_steps", lambda folder: parsed.append(folder) or real(folder))
    cached_steps(folders, cache)
    assert parsed == []
    # a changed file is parsed again, and only it
    changed = next(iter(folders.values()))
    frame = pl.read_csv(changed / "steps.csv")
    frame.head(5).write_csv(changed / "steps.csv")
    found = cached_steps(folders, cache)
    assert parsed == [changed]
    assert found[changed.name].height == frame.head(5)["step_s"].drop_nulls().len()


def test_the_store_keeps_the_current_runs_only(tmp_path: Path) -> None:
    folders = _runs(tmp_path)
    cache = Store(tmp_path / "cache")
    cached_steps(folders, cache)
    one = dict(list(folders.items())[:1])
    cached_steps(one, cache)
    frames = pickle.loads(stored_path(cache).read_bytes())
    assert len(frames) == 1


def test_a_torn_or_foreign_store_is_parsed_anew(tmp_path: Path) -> None:
    folders = _runs(tmp_path, 1)
    cache = Store(tmp_path / "cache")
    stored_path(cache).parent.mkdir(parents=True)
    stored_path(cache).write_bytes(b"torn")
    run = next(iter(folders))
    assert_frame_equal(cached_steps(folders, cache)[run], read_steps(folders[run]))
    stored_path(cache).write_bytes(pickle.dumps(("another version's", {})))
    assert_frame_equal(cached_steps(folders, cache)[run], read_steps(folders[run]))


def test_a_missing_steps_file_is_a_user_error(tmp_path: Path) -> None:
    folder = tmp_path / "runs" / "r"
    folder.mkdir(parents=True)
    with pytest.raises(UserError, match=r"without steps\.csv"):
        cached_steps({"r": folder}, Store(tmp_path / "cache"))
