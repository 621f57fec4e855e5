"""Multi-rank captures (issue 33), pinned on the real two-rank capture in
`tests/data/traces/gloo_2rank/` (DDP over gloo on CPU, rank 1 given 40 extra matmuls a
step). The expected split of each step is computed here from the JSON with a sweep over
the events' edges, independently of `rank_timeline`; bad input is that capture altered."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from generator.analysis.multirank import analyse_ranks
from generator.analysis.multirank_store import CAPTURE_FILE, read_capture, write_capture
from generator.analysis.rank_timeline import rank_timeline
from generator.cli import main
from generator.errors import UserError
from generator.findings.rank_checks import rank_findings
from generator.ingest.trace.read import read_trace
from generator.records.import_source import discover_captures
from generator.summaries.capture_import import import_capture
from generator.summaries.importer import ImportRequest
from tests.helpers import REPO

CAPTURE = REPO / "tests" / "data" / "traces" / "gloo_2rank"
COLLECTIVE = re.compile(r"allreduce|all_reduce|nccl", re.IGNORECASE)


def _doc(rank: int) -> dict[str, Any]:
    with gzip.open(CAPTURE / f"rank-{rank}.json.gz", "rt", encoding="utf-8") as file:
        data: dict[str, Any] = json.load(file)
    return data


def _covered(spans: list[tuple[float, float]], lo: float, hi: float) -> float:
    """Length of the union of spans within [lo, hi]: a sweep line that counts how many
    spans are open between two edges (not the merge of intervals the code does)."""
    edges = sorted((min(max(t, lo), hi), delta) for s, e in spans for t, delta in ((s, 1), (e, -1)))
    total, open_spans, last = 0.0, 0, lo
    for at, delta in edges:
        if open_spans > 0:
            total += at - last
        open_spans += delta
        last = at
    return total


def _expected(rank: int) -> dict[str, dict[str, float]]:
    """Per step (µs): compute = the step thread's ops but collectives, communication =
    collective ops and ranges on any thread, both = the two at once."""
    events = [e for e in _doc(rank)["traceEvents"] if e.get("ph") == "X"]
    steps = [e for e in events if e["name"].startswith("ProfilerStep#")]
    out = {}
    for step in steps:
        lo, hi = step["ts"], step["ts"] + step["dur"]
        ops = [
            (e["ts"], e["ts"] + e["dur"])
            for e in events
            if e.get("cat") == "cpu_op"
            and e["tid"] == step["tid"]
            and not COLLECTIVE.search(e["name"])
        ]
        comm = [
            (e["ts"], e["ts"] + e["dur"])
            for e in events
            if e.get("cat") in ("cpu_op", "user_annotation") and COLLECTIVE.search(e["name"])
        ]
        compute, communication = _covered(ops, lo, hi), _covered(comm, lo, hi)
        either = _covered(ops + comm, lo, hi)
        out[step["name"]] = {
            "step": step["dur"],
            "compute": compute,
            "communication": communication,
            "overlap": compute + communication - either,
            "idle": step["dur"] - either,
        }
    return out


@pytest.mark.parametrize("rank", [0, 1])
def test_each_step_splits_as_the_events_say(rank: int) -> None:
    timeline = rank_timeline(read_trace(CAPTURE / f"rank-{rank}.json.gz"))
    expected = _expected(rank)
    assert timeline["step"].to_list() == list(expected) == [f"ProfilerStep#{n}" for n in (2, 3, 4)]
    for row in timeline.iter_rows(named=True):
        want = expected[row["step"]]
        for key in ("step", "compute", "communication", "overlap", "idle"):
            assert row[f"{key}_s"] == pytest.approx(want[key] * 1e-6, abs=1e-9), key


def test_on_a_gpu_kernels_split_the_step_by_their_launch() -> None:
    """A real A100 training trace with NCCL kernels (HTA's test data): each kernel belongs
    to the step whose range holds its launch; NCCL ones are communication."""
    path = REPO / "tests" / "data" / "traces" / "hta__trace_diff_control__a100.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as file:
        events = [e for e in json.load(file)["traceEvents"] if e.get("ph") == "X"]
    steps = sorted(
        (
            e
            for e in events
            if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")
        ),
        key=lambda e: e["ts"],
    )
    launches = {
        e["args"]["correlation"]: e["ts"]
        for e in events
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})
    }
    timeline = {r["step"]: r for r in rank_timeline(read_trace(path)).iter_rows(named=True)}
    assert list(timeline) == [s["name"] for s in steps]
    for step in steps:
        lo, hi = step["ts"], step["ts"] + step["dur"]
        mine = [
            e for e in events
            if e.get("cat") == "kernel"
            and lo <= launches.get(e["args"].get("correlation"), e["ts"]) <= hi
        ]  # fmt: skip
        nccl = [(e["ts"], e["ts"] + e["dur"]) for e in mine if "nccl" in e["name"].lower()]
        other = [(e["ts"], e["ts"] + e["dur"]) for e in mine if "nccl" not in e["name"].lower()]
        edge = (min([s for s, _ in nccl + other] + [lo]), max([e for _, e in nccl + other] + [hi]))
        compute, communication = _covered(other, *edge), _covered(nccl, *edge)
        both = compute + communication - _covered(nccl + other, *edge)
        row = timeline[step["name"]]
        assert row["compute_s"] == pytest.approx(compute * 1e-6, rel=1e-9)
        assert row["communication_s"] == pytest.approx(communication * 1e-6, rel=1e-9)
        assert row["overlap_s"] == pytest.approx(both * 1e-6, rel=1e-9, abs=1e-12)
        assert communication > 0  # every step all-reduces its gradients


def test_rank_1_is_the_straggler_and_rank_0_waits_for_it() -> None:
    capture = analyse_ranks([CAPTURE])
    assert [r.rank for r in capture.ranks] == [0, 1]
    assert {r.rank_from for r in capture.ranks} == {"distributedInfo"}
    assert (capture.world_size, capture.backend, capture.problems) == (2, "gloo", ())
    assert capture.stragglers["straggler_rank"].to_list() == [1, 1, 1]
    zero, one = _expected(0), _expected(1)
    for row in capture.stragglers.iter_rows(named=True):
        lag = one[row["step"]]["compute"] - zero[row["step"]]["compute"]
        assert row["lag_s"] == pytest.approx(lag * 1e-6, abs=1e-9)
    # the extra work is 40 times tanh(x @ x) of 256x256 a step: a matmul and a tanh each
    flops = capture.steps.group_by("rank").agg(pl.col("flops").first()).sort("rank")["flops"]
    assert flops[1] - flops[0] == pytest.approx(40 * (2 * 256**3 + 256**2))
    ids = [f.id for f in rank_findings(capture)]
    assert ids == ["straggler-rank", "exposed-communication"]


def test_the_order_of_the_files_does_not_matter() -> None:
    forward = analyse_ranks([CAPTURE / "rank-0.json.gz", CAPTURE / "rank-1.json.gz"])
    backward = analyse_ranks([CAPTURE / "rank-1.json.gz", CAPTURE / "rank-0.json.gz"])
    assert forward.steps.equals(backward.steps)
    assert forward.stragglers.equals(backward.stragglers)


def _write(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_rank_from_the_file_name_without_distributed_info(tmp_path: Path) -> None:
    for rank in (0, 1):
        doc = _doc(rank)
        del doc["distributedInfo"]
        _write(tmp_path / f"worker_rank{rank + 4}.pt.trace.json", doc)
    capture = analyse_ranks([tmp_path])
    assert [(r.rank, r.rank_from) for r in capture.ranks] == [(4, "file name"), (5, "file name")]
    assert capture.world_size is None and capture.stragglers["straggler_rank"].to_list() == [5] * 3


def _problems(capture: Any) -> list[str]:
    return [p.message for p in capture.problems]


def test_a_missing_rank_is_named_and_the_other_still_shown(tmp_path: Path) -> None:
    shutil.copy(CAPTURE / "rank-1.json.gz", tmp_path)
    capture = analyse_ranks([tmp_path])
    assert [r.rank for r in capture.ranks] == [1]
    (problem,) = capture.problems
    assert "no file of rank 0" in problem.what and problem.file == str(tmp_path)
    assert problem.fix and "every rank's trace" in problem.fix
    assert capture.steps.height == 3  # rank 1's steps are all there


def test_a_truncated_rank_never_hides_the_good_one(tmp_path: Path) -> None:
    shutil.copy(CAPTURE / "rank-0.json.gz", tmp_path)
    raw = (CAPTURE / "rank-1.json.gz").read_bytes()
    (tmp_path / "rank-1.json.gz").write_bytes(raw[: len(raw) // 2])
    capture = analyse_ranks([tmp_path])
    assert [r.rank for r in capture.ranks] == [0]
    messages = _problems(capture)
    assert any("rank-1.json.gz" in m and "gzip stream is broken" in m for m in messages)
    assert any("no file of rank 1" in m for m in messages)


def test_ranks_of_different_step_counts(tmp_path: Path) -> None:
    shutil.copy(CAPTURE / "rank-0.json.gz", tmp_path)
    doc = _doc(1)
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("name") != "ProfilerStep#4"]
    _write(tmp_path / "rank-1.json", doc)
    capture = analyse_ranks([tmp_path])
    (problem,) = capture.problems
    assert problem.file == str(tmp_path / "rank-1.json")
    assert "rank 1 has 2 profiled steps, the other ranks 3: it lacks ProfilerStep#4" in problem.what
    assert "same torch.profiler schedule" in (problem.fix or "")
    assert capture.common_steps == ["ProfilerStep#2", "ProfilerStep#3"]


def test_the_same_rank_twice_and_a_rank_without_a_number(tmp_path: Path) -> None:
    shutil.copy(CAPTURE / "rank-0.json.gz", tmp_path / "a.json.gz")
    shutil.copy(CAPTURE / "rank-0.json.gz", tmp_path / "b.json.gz")
    doc = _doc(1)
    del doc["distributedInfo"]
    _write(tmp_path / "worker.json", doc)
    capture = analyse_ranks([tmp_path])
    messages = _problems(capture)
    assert any("b.json.gz" in m and "rank 0 again" in m for m in messages)
    assert any("worker.json" in m and "key 'distributedInfo.rank'" in m for m in messages)


def test_no_rank_readable_is_one_error_listing_each(tmp_path: Path) -> None:
    (tmp_path / "rank-0.json").write_text('{"traceEvents": [', encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a trace", encoding="utf-8")  # left alone
    with pytest.raises(UserError, match=r"no rank of the capture could be read:\n.*rank-0.json"):
        analyse_ranks([tmp_path])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UserError, match=r"holds no torch\.profiler trace"):
        analyse_ranks([empty])


def test_summarize_a_folder_and_ranks_given_as_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["summarize", str(CAPTURE), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["format"] == "multi-rank torch.profiler capture"
    assert [r["rank"] for r in summary["ranks"]] == [0, 1]
    assert [s["straggler_rank"] for s in summary["stragglers"]] == [1, 1, 1]
    files = [str(CAPTURE / f"rank-{r}.json.gz") for r in (0, 1)]
    assert main(["summarize", "--ranks", *files]) == 0
    text = capsys.readouterr().out
    assert "2 ranks read of world size 2, backend gloo" in text
    assert "[straggler-rank] Rank 1 is the straggler" in text
    shutil.copy(CAPTURE / "rank-1.json.gz", tmp_path)
    assert main(["summarize", str(tmp_path)]) == 1  # a rank missing: shown, and said
    captured = capsys.readouterr()
    assert "rank 1" in captured.out and "no file of rank 0" in captured.err


def _request(tmp_path: Path, name: str = "ddp") -> ImportRequest:
    return ImportRequest(file=CAPTURE, name=name, measurements=tmp_path, phase="train_step")


def _ceilings() -> Any:
    from generator.records.ceilings import read_ceilings

    return read_ceilings(REPO / "measurements" / "ceilings" / "cpu-amd-epyc-2-threads.json")


def test_import_stores_the_ranks_and_their_analysis(tmp_path: Path) -> None:
    result = import_capture(_request(tmp_path), [CAPTURE], _ceilings())
    folder = tmp_path / "imported" / "ddp"
    assert sorted(p.name for p in (folder / "ranks").iterdir()) == [
        "rank-0.json.gz",
        "rank-1.json.gz",
    ]
    for rank in (0, 1):  # already gzip: the same bytes
        assert (folder / "ranks" / f"rank-{rank}.json.gz").read_bytes() == (
            CAPTURE / f"rank-{rank}.json.gz"
        ).read_bytes()
    assert result.source.device == "cpu-amd-epyc-2-threads"
    (found,) = discover_captures(tmp_path)
    assert found.name == "ddp"
    fresh = analyse_ranks([folder / "ranks"])
    stored = read_capture(folder, fresh.roofs)
    assert stored.steps.equals(fresh.steps) and stored.stragglers.equals(fresh.stragglers)


def test_a_stale_stored_analysis_is_never_read(tmp_path: Path) -> None:
    import_capture(_request(tmp_path), [CAPTURE], _ceilings())
    folder = tmp_path / "imported" / "ddp"
    capture = read_capture(folder, {})
    write_capture(
        type(capture)(
            **{**capture.__dict__, "steps": capture.steps.with_columns(pl.lit(1.0).alias("step_s"))}
        ),
        folder,
    )
    assert read_capture(folder, {}).steps["step_s"].to_list() == [1.0] * 6  # current: read
    # the trace changed since: the stored file is out of date, the ranks are read again
    doc = _doc(0)
    with gzip.open(folder / "ranks" / "rank-0.json.gz", "wt", encoding="utf-8") as file:
        json.dump(doc, file)
    assert read_capture(folder, {}).steps["step_s"].to_list() != [1.0] * 6
    (folder / CAPTURE_FILE).write_bytes(b"torn")
    assert read_capture(folder, {}).steps.height == 6


def test_import_refuses_a_broken_capture_and_writes_nothing(tmp_path: Path) -> None:
    ranks = tmp_path / "in"
    ranks.mkdir()
    shutil.copy(CAPTURE / "rank-1.json.gz", ranks)
    with pytest.raises(UserError) as raised:
        import_capture(_request(tmp_path), [ranks], _ceilings())
    assert "rank(s) 1 read fine" in raised.value.what and "no file of rank 0" in raised.value.what
    assert not (tmp_path / "imported").exists() or not any((tmp_path / "imported").iterdir())


def test_import_of_a_cpu_capture_needs_its_ceilings(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="pass --ceilings"):
        import_capture(_request(tmp_path), [CAPTURE], None)
    assert not (tmp_path / "imported" / "ddp").exists()


def test_the_committed_capture_is_current() -> None:
    """measurements/imported/cpu-ddp-gloo-2rank holds this capture, its analysis current."""
    folder = REPO / "measurements" / "imported" / "cpu-ddp-gloo-2rank"
    for rank in (0, 1):
        assert (folder / "ranks" / f"rank-{rank}.json.gz").read_bytes() == (
            CAPTURE / f"rank-{rank}.json.gz"
        ).read_bytes()
    from generator.analysis.multirank_store import _current

    assert _current(folder) is not None


def test_covered_windows_agree_with_the_interval_overlap() -> None:
    """`Covered.within` (bisect and prefix sums) against `overlap` (a walk) on random unions."""
    import random

    from generator.analysis.rank_timeline import Covered, merged, overlap

    rng = random.Random(5)
    for _ in range(200):
        spans = [(t, t + rng.uniform(0, 5)) for t in (rng.uniform(0, 100) for _ in range(20))]
        union = merged(spans)
        covered = Covered(union)
        lo = rng.uniform(-10, 110)
        hi = lo + rng.uniform(0, 40)
        assert covered.within(lo, hi) == pytest.approx(overlap(union, [(lo, hi)]), abs=1e-9)
    assert Covered([]).within(0, 1) == 0.0
