"""The one content-keyed store (generator/store): made once per key, kind version and
code; unreadable entries made again; each codec's entries read back equal."""

from __future__ import annotations

import pickle
from pathlib import Path

import polars as pl
import pytest

from generator import store as store_module
from generator.store import FRAMES, KINDS, Frames, Kind, Pickled, Store, Text, key_digest


def test_an_entry_is_made_once_per_key_and_code(tmp_path: Path) -> None:
    calls: list[str] = []

    def make(word: str) -> dict[str, str]:
        calls.append(word)
        return {"word": word}

    first = Store(tmp_path, "code-1")
    assert first.get_or_make("memo", ["a", 1], lambda: make("a")) == {"word": "a"}
    # the next build: a new store on the same folder reads it back
    again = Store(tmp_path, "code-1")
    assert again.get_or_make("memo", ["a", 1], lambda: make("b")) == {"word": "a"}
    assert calls == ["a"]
    assert again.get_or_make("memo", ["a", 2], lambda: make("c")) == {"word": "c"}  # other key
    assert again.get_or_make("checked", ["a", 1], lambda: make("d")) == {"word": "d"}  # kind
    changed = Store(tmp_path, "code-2")
    assert changed.get_or_make("memo", ["a", 1], lambda: make("e")) == {"word": "e"}  # code
    assert calls == ["a", "c", "d", "e"]


def test_a_kind_not_keyed_by_code_survives_a_code_change(tmp_path: Path) -> None:
    Store(tmp_path, "code-1").get_or_make("ncu", ["x"], lambda: "parsed")
    assert Store(tmp_path, "code-2").get_or_make("ncu", ["x"], lambda: "again") == "parsed"


def test_a_new_kind_version_is_a_new_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    Store(tmp_path, "c").get_or_make("checked", ["k"], lambda: "old")
    monkeypatch.setitem(KINDS, "checked", Kind(KINDS["checked"].version + 1))
    assert Store(tmp_path, "c").get_or_make("checked", ["k"], lambda: "new") == "new"


def test_key_parts_are_told_apart_by_type_and_boundary() -> None:
    assert key_digest("ab", "c") != key_digest("a", "bc")
    assert key_digest(1) != key_digest("1")
    assert key_digest(b"x") != key_digest("x")
    assert key_digest(None) != key_digest("None")
    assert key_digest(-0.0) != key_digest(0.0)
    assert key_digest("a", 1) == key_digest("a", 1)


def test_an_unreadable_entry_is_made_again(tmp_path: Path) -> None:
    store = Store(tmp_path, "c")
    store.get_or_make("checked", ["k"], lambda: [1, 2])
    path = store.path("checked", store.key("checked", ["k"]))
    path.write_bytes(b"torn")
    assert Store(tmp_path, "c").get_or_make("checked", ["k"], lambda: [3]) == [3]
    assert pickle.loads(path.read_bytes()) == [3]  # and stored whole again


def test_an_entry_of_another_type_is_made_again(tmp_path: Path) -> None:
    store = Store(tmp_path, "c")
    store.get_or_make("checked", ["k"], lambda: "a string")
    assert store.get_or_make("checked", ["k"], lambda: [1], Pickled(list)) == [1]


def test_none_is_kept_as_a_result(tmp_path: Path) -> None:
    calls: list[int] = []
    for _ in range(2):
        Store(tmp_path, "c").get_or_make("memo", ["k"], lambda: calls.append(1))
    assert calls == [1]


def test_without_a_folder_nothing_is_kept(tmp_path: Path) -> None:
    store = Store(None)
    calls = []
    for _ in range(2):
        store.get_or_make("memo", ["k"], lambda: calls.append(1))
    assert len(calls) == 2
    assert not store.has("memo", store.key("memo", ["k"]))


def test_an_unknown_kind_is_refused(tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        Store(tmp_path).get_or_make("nonesuch", ["k"], lambda: 1)


def test_memory_kinds_are_read_once_per_process(tmp_path: Path) -> None:
    store = Store(tmp_path, "c")
    store.get_or_make("memo", ["k"], lambda: [1])
    path = store.path("memo", store.key("memo", ["k"]))
    path.unlink()  # gone from disk, still known to this process
    assert store.get_or_make("memo", ["k"], lambda: [2]) == [1]
    assert Store(tmp_path, "c").get_or_make("memo", ["k"], lambda: [2]) == [2]


def test_a_pickled_store_keeps_its_folder_not_its_memory(tmp_path: Path) -> None:
    store = Store(tmp_path, "c")
    store.get_or_make("memo", ["k"], lambda: [1])
    copied = pickle.loads(pickle.dumps(store))
    assert (copied.folder, copied.code, copied._memory) == (tmp_path, "c", {})
    assert copied.get_or_make("memo", ["k"], lambda: [2]) == [1]  # read from the folder


def test_frames_are_stored_as_parquet_and_read_back_equal(tmp_path: Path) -> None:
    store = Store(tmp_path, "c")
    frame = pl.DataFrame({"a": [1.0, None, -0.0], "b": ["x", "<y>", ""]})
    made = Frames({"kernels": frame}, {"layout": "raw", "notes": ["n"]})
    store.get_or_make("ncu", ["f"], lambda: made, FRAMES)
    folder = store.path("ncu", store.key("ncu", ["f"]), FRAMES)
    assert sorted(p.name for p in folder.iterdir()) == ["kernels.parquet", "meta.json"]
    read = Store(tmp_path, "c").get_or_make("ncu", ["f"], lambda: Frames({}, {}), FRAMES)
    assert read.meta == made.meta
    assert read.frames["kernels"].equals(frame)
    (folder / "meta.json").write_text("{torn")  # unreadable: made again, replaced whole
    again = Store(tmp_path, "c").get_or_make("ncu", ["f"], lambda: made, FRAMES)
    assert again is made and (folder / "meta.json").read_text().startswith("{")


def test_text_keeps_its_file_name(tmp_path: Path) -> None:
    store = Store(tmp_path, "c")
    codec = Text("explore.ipynb")
    store.get_or_make("notebook", ["n"], lambda: "{}", codec)
    path = store.path("notebook", store.key("notebook", ["n"]), codec)
    assert path.name == "explore.ipynb" and path.read_text() == "{}"
    assert store.has("notebook", store.key("notebook", ["n"]), codec)


def test_all_missing_entries_are_made_together(tmp_path: Path) -> None:
    store = Store(tmp_path, "c")
    digests = [store.key("checked", [i]) for i in range(4)]
    store.write("checked", digests[1], "one", store_module.PICKLE)
    asked: list[list[int]] = []

    def make(missing: list[int]) -> list[str]:
        asked.append(missing)
        return [f"made {i}" for i in missing]

    found = store.get_or_make_all("checked", digests, make)
    assert found == ["made 0", "one", "made 2", "made 3"]
    assert asked == [[0, 2, 3]]
    assert store.get_or_make_all("checked", digests, make) == found
    assert asked == [[0, 2, 3], []]


def test_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    store = Store(tmp_path, "c")
    store.get_or_make("checked", ["k"], lambda: 1)
    store.get_or_make("ncu", ["k"], lambda: Frames({"t": pl.DataFrame({"a": [1]})}, {}), FRAMES)
    leftovers = [p for p in tmp_path.rglob("*") if p.name.startswith(".")]
    assert leftovers == []


def test_a_folders_state_is_saved_taken_and_versioned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """State about a folder: read back as saved, one file per folder, removed when taken
    (a build cut short leaves none), and none when torn or of another version."""
    store, docs, other = Store(tmp_path / "cache"), tmp_path / "docs", tmp_path / "other"
    assert store.read_state("held", docs) is None  # none saved yet
    store.save_state("held", docs, {"docs": ["a.md"]})
    store.save_state("held", other, {"docs": ["b.md"]})
    assert store.read_state("held", docs) == {"docs": ["a.md"]}
    assert store.read_state("held", docs, take=True) == {"docs": ["a.md"]}
    assert store.read_state("held", docs) is None  # taken until saved again
    assert store.read_state("held", other) == {"docs": ["b.md"]}  # another folder's kept
    (saved,) = (tmp_path / "cache" / "held").glob("*.json")
    saved.write_text("{torn")
    assert store.read_state("held", other) is None
    store.save_state("held", other, {"docs": []})
    monkeypatch.setitem(KINDS, "held", Kind(KINDS["held"].version + 1, by_code=False))
    assert store.read_state("held", other) is None  # another version's state
    assert Store(None).read_state("held", docs) is None  # a store keeping nothing
    with pytest.raises(KeyError):  # a kind not in the table is a mistake, not "none saved"
        store.read_state("no such kind", docs)
    Store(None).save_state("held", docs, {})
