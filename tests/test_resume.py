"""Nothing measured is lost when `measure` stops early: each block is kept as it is timed
(records/pending.py), a call killed at any point (SIGKILL, SIGTERM) keeps exactly the blocks
it timed, and the next call resumes from them to the same design as a call that was never
stopped. Then `--budget`: whole configurations, planned up front."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from generator.config import load_experiments, resolve_runs
from generator.measure.budget import DEFAULT_SETUP_S, Budget, Estimate, estimate, plan
from generator.records.pending import PENDING_DIR, read_all_pending
from generator.records.run import read_runs
from tests.helpers import REPO

EXPERIMENTS = """
schema_version = 1
[defaults]
warmup = 1
iterations = 3
ci_target = 0
min_blocks = 3
max_blocks = 4
max_seconds = 20
profile = false

[[groups]]
id = "T"
title = "tiny"
hypothesis = "none"
models = ["simple_mlp"]
datasets = ["mnist"]
batch_sizes = [4, 8]
phases = ["train_step", "inference"]
"""
CONFIGURATIONS = 4
MIN_BLOCKS = 3


def start(
    tmp_path: Path, name: str, budget: float | None = None
) -> tuple[subprocess.Popen[bytes], Path, Path]:
    config = tmp_path / "experiments.toml"
    config.write_text(EXPERIMENTS)
    measurements, log = tmp_path / name, tmp_path / f"{name}.log"
    command = [sys.executable, "-m", "tests.resume_child", str(config), str(measurements), str(log)]
    if budget is not None:
        command.append(str(budget))
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return process, measurements, log


def timed(log: Path) -> list[str]:
    """The blocks the runner returned, in order."""
    if not log.exists():
        return []
    return [line.split()[1] for line in log.read_text().splitlines() if line.startswith("timed ")]


def kept(measurements: Path) -> set[str]:
    """The blocks on disk: in the pending store, and in the run folders written."""
    tokens = {
        str(b.block["conditions"]["token"])
        for p in read_all_pending(measurements)
        for b in p.blocks
    }
    for _, record in read_runs(measurements):
        for block in (record.conditions or {}).get("blocks") or []:
            tokens.add(str(block["token"]))
    return tokens


def wait_for_blocks(process: subprocess.Popen[bytes], log: Path, count: int) -> None:
    deadline = time.monotonic() + 180
    while len(timed(log)) < count:
        assert process.poll() is None, process.communicate()[1].decode()[-2000:]
        assert time.monotonic() < deadline, "no block was timed in 180 s"
        time.sleep(0.02)


def wait_for_kept(process: subprocess.Popen[bytes], measurements: Path, count: int) -> None:
    """Until `count` blocks are in the pending store (a logged block is kept a moment later)."""
    deadline = time.monotonic() + 180
    while sum(len(p.blocks) for p in read_all_pending(measurements)) < count:
        assert process.poll() is None, process.communicate()[1].decode()[-2000:]
        assert time.monotonic() < deadline, "no block was kept in 180 s"
        time.sleep(0.02)


def design(measurements: Path) -> dict[str, tuple[int, tuple[int, ...], tuple[int, ...], int]]:
    """Per run: blocks in its timing, its steps.csv blocks and invocations, its history."""
    found = {}
    for folder, record in read_runs(measurements):
        assert record.status == "ok" and record.timing is not None and record.history is not None
        steps = pl.read_csv(folder / "steps.csv")
        found[record.run_id] = (
            int(record.timing.blocks or 0),
            tuple(steps["block"].unique().sort().to_list()),
            tuple(steps["invocation"].unique().sort().to_list()),
            len(record.history),
        )
    return found


def finish(process: subprocess.Popen[bytes]) -> str:
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err.decode()[-3000:]
    return err.decode()


@pytest.fixture(scope="module")
def uninterrupted(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[int, tuple[int, ...], tuple[int, ...], int]]:
    tmp_path = tmp_path_factory.mktemp("whole")
    process, measurements, _ = start(tmp_path, "m")
    finish(process)
    found = design(measurements)
    assert len(found) == CONFIGURATIONS
    assert set(found.values()) == {(MIN_BLOCKS, (0, 1, 2), (0,), 1)}
    assert not (measurements / PENDING_DIR).exists()
    return found


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_measure_killed_at_a_random_point_keeps_every_block_it_timed_and_resumes(
    tmp_path: Path,
    seed: int,
    uninterrupted: dict[str, tuple[int, tuple[int, ...], tuple[int, ...], int]],
) -> None:
    rng = random.Random(seed)
    process, measurements, log = start(tmp_path, "m")
    wait_for_blocks(process, log, 1)
    time.sleep(rng.uniform(0.0, 2.0))  # 12 blocks of 0.15 s, then the records
    process.send_signal(signal.SIGKILL)
    process.wait()
    before, on_disk = timed(log), kept(measurements)
    assert on_disk <= set(before)
    # the one block that may be lost is the one in flight: returned, not yet written
    assert set(before) - on_disk <= set(before[-1:])
    again = start(tmp_path, "m")[0]
    finish(again)
    after = design(measurements)
    assert after == uninterrupted  # the same runs, each of the same design
    final = kept(measurements)
    assert on_disk <= final  # what was kept is in the results: not timed again
    assert len(final) == CONFIGURATIONS * MIN_BLOCKS
    assert not (measurements / PENDING_DIR).exists()
    assert not list((measurements / "runs").glob(".*"))  # a killed call's staging swept


def test_sigterm_stops_like_ctrl_c_says_what_is_kept_and_the_next_call_resumes(
    tmp_path: Path, uninterrupted: dict[str, tuple[int, tuple[int, ...], tuple[int, ...], int]]
) -> None:
    process, measurements, log = start(tmp_path, "m")
    wait_for_kept(process, measurements, 2)
    process.send_signal(signal.SIGTERM)  # a block returned by now is kept before the stop
    _, err = process.communicate(timeout=60)
    assert process.returncode != 0
    pending = read_all_pending(measurements)
    count = sum(len(p.blocks) for p in pending)
    said = " ".join(err.decode().split())  # the console wraps long lines
    assert count >= 2 and f"stopped: {count} timed block(s)" in said
    assert "the same command resumes from them" in said
    assert set(timed(log)) == kept(measurements)  # a clean stop loses nothing
    resumed = finish(start(tmp_path, "m")[0])
    assert "resuming from" in resumed
    assert design(measurements) == uninterrupted


def test_a_budget_times_whole_configurations_and_says_which_up_front(tmp_path: Path) -> None:
    """From its caps, a configuration is estimated at 3 blocks x 2 s + max_seconds / 2 and
    10 s to close: 26 s. A 60 s budget fits two of the four, in the file's order."""
    process, measurements, _ = start(tmp_path, "m", budget=60)
    err = finish(process)
    assert "budget 60 s: 2 of 4 configurations fit" in err and "s of the 60 s budget" in err
    assert err.count("left out") >= 2
    runs = design(measurements)
    assert len(runs) == 2 and set(runs.values()) == {(MIN_BLOCKS, (0, 1, 2), (0,), 1)}
    # the next call with room measures the rest, and the planner now knows them
    process = start(tmp_path, "m", budget=600)[0]
    err = finish(process)
    assert "2 of 2 configurations fit" in err and len(design(measurements)) == CONFIGURATIONS


def test_the_plan_is_greedy_in_order_and_uses_what_was_measured() -> None:
    config = resolve_runs(load_experiments(REPO / "measurements" / "experiments.toml"), ["A"])[0]
    capped = estimate(config, "a", 10.0)
    assert capped.source == "from its caps"
    assert capped.blocks_s == config.min_blocks * DEFAULT_SETUP_S + config.max_seconds / 2
    measured = estimate(config, "a", 10.0, [(1.0, 20, 0.05), (1.2, 20, 0.05)])
    assert measured.source == "measured before"
    assert measured.blocks_s == pytest.approx(config.min_blocks * 2.1)
    chosen = plan(
        [Estimate("a", 50, 10, "x"), Estimate("b", 100, 10, "x"), Estimate("c", 20, 10, "x")], 100
    )
    assert [e.run_id for e in chosen.fit] == ["a", "c"]  # b does not fit; c after it does
    assert [e.run_id for e in chosen.left_out] == ["b"]
    assert chosen.lines()[0] == "budget 100 s: 2 of 3 configurations fit (estimated 90 s)"


def test_the_budget_stops_extra_blocks_when_finishing_needs_the_time() -> None:
    now = [0.0]
    budget = Budget(100.0, finish_s=10.0, clock=lambda: now[0])
    budget.reserve_s = 30.0
    now[0] = 60.0
    assert not budget.short()
    now[0] = 75.0
    assert budget.short() and budget.left() == 25.0


def test_a_pending_block_file_from_a_newer_version_says_to_update(tmp_path: Path) -> None:
    from generator.errors import UserError

    folder = tmp_path / PENDING_DIR / "T-x"
    folder.mkdir(parents=True)
    (folder / "block-000-0000.json").write_text(json.dumps({"schema_version": 99}))
    with pytest.raises(UserError, match="newer than this tool reads"):
        read_all_pending(tmp_path)


def test_the_report_lists_a_stopped_configuration_as_not_calibrated_with_its_command(
    tmp_path: Path,
) -> None:
    from generator.pages.render import render
    from generator.pages.runs import _pending_row

    process, measurements, log = start(tmp_path, "m")
    wait_for_blocks(process, log, 2)
    process.send_signal(signal.SIGKILL)
    process.wait()
    pending = read_all_pending(measurements)
    assert pending
    first = pending[0]
    row = _pending_row(first)
    assert row[1] == f"not calibrated ({len(first.blocks)} of 5 blocks)"
    assert row[4] == "`nox -s measure -- --group T --device cpu`"
    page = render("runs.md.j2", groups=[], ceilings=[], pending=[row])
    assert "## Stopped before they finished" in page and first.run_id in page


def test_a_result_timed_in_too_few_blocks_says_how_many_and_how_to_complete_it() -> None:
    from generator.analysis.results import estimate as step_estimate

    three = step_estimate([[0.010, 0.011], [0.012, 0.010], [0.011, 0.013]], True, 0.0)
    assert three.short_kind() == "not calibrated (3 of 5 blocks)"
    assert three.kind_words() == "no interval: not calibrated (3 of 5 blocks)"
    one_process = step_estimate([[0.010, 0.011], [0.012, 0.010]], False, 0.0)
    assert one_process.short_kind() == "not calibrated"  # two one-process runs: no blocks


def test_a_sigterm_while_a_returned_block_is_kept_waits_for_it() -> None:
    """The stop takes effect after the keeping section, not inside it (measure/stopping.py):
    a block the runner returned is never lost to a SIGTERM."""
    import os

    from generator.measure import stopping

    previous = stopping.install()
    done = []
    try:
        with pytest.raises(stopping.Stopped), stopping.keeping():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.01)  # the handler has run by now, and deferred the stop
            done.append("kept")
        assert done == ["kept"]
        with pytest.raises(stopping.Stopped):  # outside a keeping section: at once
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)
    finally:
        signal.signal(signal.SIGTERM, previous)
