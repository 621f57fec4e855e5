"""Results kept between builds by the content of their inputs (generator/memo)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from generator import memo
from generator.store import Store, active_store, storing_in
from tests.helpers import REPO

_PRINT_CONTENT = """
import hashlib
from pathlib import Path
import polars as pl
from generator.config import load_experiments
from generator.memo import content_bytes
groups = load_experiments(Path("measurements/experiments.toml")).groups
value = (groups[0], {"a", "bb", "ccc", "dddd"}, frozenset({"x", "y"}),
         pl.DataFrame({"run": ["r1", "r2"], "s": [0.1, -0.0]}))
print(hashlib.sha256(content_bytes(value)).hexdigest())
"""


def test_content_bytes_are_the_same_in_every_process() -> None:
    # String hashing differs per process: a set's pickle, and a pydantic model's (it keeps
    # the set of fields it was given), would too, and no build would find another's result.
    found = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        result = subprocess.run(
            [sys.executable, "-c", _PRINT_CONTENT],
            capture_output=True, text=True, check=True, cwd=REPO, env=env,
        )  # fmt: skip
        found.add(result.stdout.strip())
    assert len(found) == 1


def test_content_bytes_tell_values_apart() -> None:
    frame = pl.DataFrame({"s": [0.0]})
    assert memo.content_bytes(frame) != memo.content_bytes(pl.DataFrame({"s": [-0.0]}))
    assert memo.content_bytes(frame) != memo.content_bytes(pl.DataFrame({"s": [0]}))
    assert memo.content_bytes({1, 2}) != memo.content_bytes({1, 3})
    assert memo.content_bytes([{"a"}, 1]) == memo.content_bytes([{"a"}, 1])


@pytest.fixture
def calls():  # type: ignore[no-untyped-def]
    made: list[tuple[int, ...]] = []

    def total(*values: int) -> int:
        made.append(values)
        return sum(values)

    return total, made


def _build(folder: Path, code: str) -> Any:
    """As a build enters its store (site/build.py)."""
    return storing_in(Store(folder, code))


def test_a_result_is_computed_once_per_content_and_code(calls, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    total, made = calls
    with _build(tmp_path, "code-1"):
        assert memo.remembered("total", total, 1, 2) == 3
        assert memo.remembered("total", total, 1, 2) == 3  # this process
    with _build(tmp_path, "code-1"):  # as the next build would
        assert memo.remembered("total", total, 1, 2) == 3  # read back from the folder
        assert made == [(1, 2)]
        assert memo.remembered("total", total, 2, 1) == 3  # other arguments
        assert memo.remembered("other", total, 1, 2) == 3  # another function's name
    with _build(tmp_path, "code-2"):  # the code changed
        assert memo.remembered("total", total, 1, 2) == 3
    assert made == [(1, 2), (2, 1), (1, 2), (1, 2)]


def test_lists_of_floats_are_keyed_by_their_values(tmp_path: Path) -> None:
    """A list of floats is keyed as its 8-byte values, not pickled float by float; equal
    lists share a result, and -0.0, 0.0, ints and tuples are told apart."""
    made: list[object] = []

    def first(values: object) -> object:
        made.append(values)
        return values

    with _build(tmp_path, "code-1"):
        for value in ([0.5, 2.0], [0.5, 2.0], [0.5, -0.0], [0.5, 0.0], [1, 2.0], (0.5, 2.0)):
            memo.remembered("first", first, value)
    with _build(tmp_path, "code-1"):  # the next build
        memo.remembered("first", first, [0.5, 2.0])
    assert made == [[0.5, 2.0], [0.5, -0.0], [0.5, 0.0], [1, 2.0], (0.5, 2.0)]
    assert memo._floats_as_bytes([0.5, 2.0]) == memo._floats_as_bytes([0.5, 2.0])
    assert not isinstance(memo._floats_as_bytes([1, 2.0]), bytes)


def test_a_torn_entry_is_computed_again(calls, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    total, made = calls
    with _build(tmp_path, "code-1"):
        memo.remembered("total", total, 5)
    (entry,) = (tmp_path / "memo").rglob("*.pickle")
    entry.write_bytes(entry.read_bytes()[:3])
    with _build(tmp_path, "code-1"):
        assert memo.remembered("total", total, 5) == 5
    assert made == [(5,), (5,)]


def test_outside_a_build_nothing_is_kept(tmp_path: Path) -> None:
    made = []
    assert active_store() is None
    for _ in range(2):
        memo.remembered("f", lambda x: made.append(x), 1)
    assert made == [1, 1]
    with _build(tmp_path, "code-1"):
        assert active_store() is not None
    assert active_store() is None  # the build's store is left on the way out


def test_frame_content_is_the_values_however_the_frame_was_made(tmp_path: Path) -> None:
    from generator.memo import frame_content

    frame = pl.DataFrame({"kernel": [f"sm90_xmma_gemm_{i}_long_name" for i in range(50)],
                          "t": [i / 7 for i in range(50)]})  # fmt: skip
    frame.write_csv(tmp_path / "f.csv")
    parsed = pl.read_csv(tmp_path / "f.csv")  # strings laid out otherwise in memory
    assert parsed.equals(frame) and frame_content(parsed) == frame_content(frame)
    assert frame_content(pl.concat([frame.head(20), frame.tail(30)])) == frame_content(frame)
    signed = pl.DataFrame({"t": [0.0, -0.0]})
    assert frame_content(signed) != frame_content(pl.DataFrame({"t": [0.0, 0.0]}))
    nan = pl.DataFrame({"t": [float("nan")]})
    assert frame_content(nan) != frame_content(
        pl.DataFrame({"t": [None]}, schema={"t": pl.Float64})
    )
    assert frame_content(frame) != frame_content(frame.rename({"t": "u"}))
    objects = pl.DataFrame({"o": [{1}, {2}]}, schema={"o": pl.Object})
    assert frame_content(objects) != frame_content(
        pl.DataFrame({"o": [{1}, {3}]}, schema={"o": pl.Object})
    )
