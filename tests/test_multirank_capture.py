"""A real two-rank torch.profiler capture (`tests/data/traces/gloo_2rank/`, recorded on the
project's 2-core VM by the `record.py` beside it: DDP on CPU over gloo, rank 1 given extra
work each step). Each rank also reads as one trace; `test_multirank.py` reads them as one
capture. The expected totals are computed here with a few lines
of `json`, independently of the reader."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from generator.analysis.trace_analysis import analyze_trace
from generator.summaries.trace import summarize_trace
from tests.helpers import REPO

CAPTURE = REPO / "tests" / "data" / "traces" / "gloo_2rank"


def _trace(rank: int) -> tuple[Path, dict[str, Any]]:
    path = CAPTURE / f"rank-{rank}.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as file:
        return path, json.load(file)


def _complete(data: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [e for e in data["traceEvents"] if e.get("ph") == "X" and e.get("name") == name]


@pytest.mark.parametrize("rank", [0, 1])
def test_each_rank_names_itself(rank: int) -> None:
    _, data = _trace(rank)
    info = data["distributedInfo"]
    assert (info["backend"], info["rank"], info["world_size"]) == ("gloo", rank, 2)


@pytest.mark.parametrize("rank", [0, 1])
def test_each_rank_reads_with_its_steps_matmul_flops_and_communication(rank: int) -> None:
    path, data = _trace(rank)
    steps = sorted(
        e["name"]
        for e in data["traceEvents"]
        if e.get("ph") == "X" and e["name"].startswith("ProfilerStep#")
    )
    mm_flops = sum(
        2 * a[0] * a[1] * b[1]
        for e in _complete(data, "aten::mm")
        for a, b in [e["args"]["Input Dims"][:2]]
    )
    analysis = analyze_trace(path)
    assert sorted(analysis.by_step["step"]) == steps == [f"ProfilerStep#{n}" for n in (2, 3, 4)]
    mm = analysis.by_op.filter(analysis.by_op["op"] == "aten::mm").row(0, named=True)
    assert mm["flops"] == mm_flops
    assert len(_complete(data, "gloo:all_reduce")) == 6  # two buckets a step, three steps
    # Read as one trace, its all-reduces are timed ops with no FLOPs, and communication:
    # their self time is the communication share; read as a capture of ranks
    # (test_multirank.py), gloo's collectives are the communication of each step.
    allreduce = analysis.by_op.filter(analysis.by_op["op"] == "c10d::allreduce_").row(0, named=True)
    assert allreduce["time_s"] > 0 and not allreduce["flops"]
    assert allreduce["counted_as"] == "communication"
    summary = summarize_trace(path, None)
    assert summary["communication_time_share"] == pytest.approx(
        allreduce["time_s"] / summary["whole_s"]
    )


def test_rank_1_carries_the_extra_work() -> None:
    """The straggler by construction: 40 extra 256x256 matmuls a step, annotated."""
    _, zero = _trace(0)
    _, one = _trace(1)
    assert _complete(zero, "extra_work") == []
    assert len(_complete(one, "extra_work")) == 3
    extra = 3 * 40 * 2 * 256**3
    mm = [sum(2 * a[0] * a[1] * b[1] for e in _complete(d, "aten::mm")
              for a, b in [e["args"]["Input Dims"][:2]]) for d in (zero, one)]  # fmt: skip
    assert mm[1] - mm[0] == extra
