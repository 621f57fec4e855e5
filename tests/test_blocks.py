"""The blocks method of `measure`: one result per configuration across groups, the shuffled
interleaving of the whole matrix, the stopping rule, adding blocks on a re-measurement, the
worker process, the run.json migration, the report's pooling by blocks, and `remeasure`."""

from __future__ import annotations

import functools
import itertools
import json
import random
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from rich.console import Console

from generator.analysis.per_workload import run_blocks
from generator.analysis.result_columns import runs_download
from generator.analysis.results import results
from generator.config import load_experiments, resolve_runs
from generator.errors import UserError
from generator.measure import runner
from generator.measure.block import BlockRequest, BlockResult, ForkedBlocks, run_block
from generator.measure.blocks import (
    BlockState,
    Shared,
    judge,
    measure_blocks,
    share_configurations,
    wave_order,
)
from generator.measure.ceilings import measure_ceilings
from generator.measure.remeasure import remeasure
from generator.records.calibration import read_calibrations
from generator.records.run import read_run
from tests.helpers import REPO

TWO_GROUPS = """
schema_version = 1
[defaults]
warmup = 1
iterations = 3
ci_target = 0
min_blocks = 3
max_blocks = 4
profile = false

[[groups]]
id = "T"
title = "tiny"
hypothesis = "none"
models = ["simple_mlp"]
datasets = ["mnist"]
batch_sizes = [4]
phases = ["train_step", "inference"]

[[groups]]
id = "U"
title = "the same inference step, filed again"
hypothesis = "none"
models = ["simple_mlp"]
datasets = ["mnist"]
batch_sizes = [4]
phases = ["inference"]
"""


@pytest.fixture(autouse=True)
def small_ceilings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        runner,
        "measure_ceilings",
        functools.partial(measure_ceilings, runs=2, gemm_size=64, stream_elements=4096),
    )


def measure(tmp_path: Path, text: str = TWO_GROUPS, force: bool = False, seed: int = 1,
            block_runner: Any = run_block) -> list[runner.Outcome]:  # fmt: skip
    path = tmp_path / "experiments.toml"
    path.write_text(text)
    return runner.execute(path, tmp_path / "m", None, force, False, ["measure"],
                          console=Console(quiet=True), block_runner=block_runner, seed=seed)  # fmt: skip


def test_one_result_per_configuration_read_by_every_group(tmp_path: Path) -> None:
    outcomes = measure(tmp_path)
    folders = sorted(p.name for p in (tmp_path / "m" / "runs").iterdir())
    assert len(folders) == 2 and all(name.startswith("T-") for name in folders)
    assert sorted(o.status for o in outcomes) == ["ok", "ok"]
    inference = next(p for p in (tmp_path / "m" / "runs").iterdir() if "inference" in p.name)
    record = read_run(inference)
    assert record is not None and record.timing is not None
    assert record.groups == ["T", "U"]
    timing = record.timing
    assert (timing.method, timing.blocks, timing.stopped_by) == ("blocks", 3, "blocks")
    steps = pl.read_csv(inference / "steps.csv")
    assert steps["block"].unique().sort().to_list() == [0, 1, 2]
    assert steps["invocation"].unique().to_list() == [0]
    assert steps.group_by("block").len()["len"].to_list() == [3, 3, 3]
    # run.json holds the design; the statistics come from steps.csv (results.estimate)
    assert not {"median_s", "remeasure_ci95_s", "levels"} & set(timing.model_dump())
    assert [len(c) for c in [record.conditions["blocks"]]] == [3]  # type: ignore[index]
    assert record.history is not None and [h.blocks for h in record.history] == [3]


def test_force_adds_blocks_and_history(tmp_path: Path) -> None:
    measure(tmp_path)
    measure(tmp_path, force=True, seed=2)
    inference = next(p for p in (tmp_path / "m" / "runs").iterdir() if "inference" in p.name)
    record = read_run(inference)
    assert record is not None and record.timing is not None and record.history is not None
    assert record.timing.blocks == 6 and record.timing.n == 18
    assert [(h.blocks, h.samples) for h in record.history] == [(3, 9), (6, 9)]
    steps = pl.read_csv(inference / "steps.csv")
    assert steps["block"].unique().sort().to_list() == list(range(6))
    assert steps.group_by("invocation").len().sort("invocation")["len"].to_list() == [9, 9]
    # every block's conditions, the first call's kept: contended-blocks judges them all
    blocks = record.conditions["blocks"]  # type: ignore[index]
    assert [(b["invocation"], b["block"]) for b in blocks] == [(0, 0), (0, 1), (0, 2), (1, 3),
                                                              (1, 4), (1, 5)]  # fmt: skip


def test_a_rival_result_in_another_group_is_retired(tmp_path: Path) -> None:
    """Before results were shared, group U had its own folder for the same step."""
    measure(tmp_path)
    runs = tmp_path / "m" / "runs"
    inference = next(p for p in runs.iterdir() if "inference" in p.name)
    rival = runs / inference.name.replace("T-", "U-", 1)
    shutil.copytree(inference, rival)
    data = json.loads((rival / "run.json").read_text())
    data["run_id"], data["config"]["group"] = rival.name, "U"
    (rival / "run.json").write_text(json.dumps(data))
    measure(tmp_path, force=True)
    assert not rival.exists() and inference.exists()
    assert not [p for p in runs.iterdir() if p.name.startswith(".")]


def test_a_failing_block_is_recorded_and_the_rest_go_on(tmp_path: Path) -> None:
    def flaky(request: BlockRequest) -> BlockResult:
        if request.config["phase"] == "train_step":
            return BlockResult.failed(RuntimeError("planted: out of memory"))
        return run_block(request)

    outcomes = measure(tmp_path, block_runner=flaky)
    assert Counter(o.status for o in outcomes) == {"ok": 1, "failed": 1}
    failed = next(p for p in (tmp_path / "m" / "runs").iterdir() if "train_step" in p.name)
    record = read_run(failed)
    assert record is not None and record.status == "failed" and record.error is not None
    assert record.error.message == "planted: out of memory"


def test_share_configurations_folds_groups() -> None:
    runs = resolve_runs(load_experiments(REPO / "measurements" / "experiments.toml"), None)
    cpu = [r for r in runs if r.device == "cpu"]
    shared = share_configurations(cpu, lambda device: "AMD EPYC (2 threads)")
    assert len(shared) < len(cpu)
    by_model = {
        (s.config.model, s.config.batch, s.config.phase, s.config.compile): s.groups for s in shared
    }
    assert by_model[("resnet18", 128, "train_step", "eager")] == ("A", "B", "D", "T-resnet18")
    assert by_model[("simple_mlp", 64, "inference", "eager")] == ("C-mnist", "I", "T-mnist")
    # a compiled configuration is one of its own
    assert by_model[("simple_mlp", 64, "inference", "compile")] == ("T-mnist",)
    assert sum(len(s.groups) for s in shared) == len(cpu)


def test_waves_interleave_the_whole_matrix() -> None:
    wanted = {0: 5, 1: 5, 2: 5, 3: 1}
    order = wave_order(wanted, random.Random(4))
    assert Counter(order) == Counter(wanted)
    assert all(a != b for a, b in itertools.pairwise(order))
    assert order != sorted(order)
    assert order == wave_order(wanted, random.Random(4))  # seeded: reproducible
    assert order != wave_order(wanted, random.Random(5))


def test_measure_blocks_runs_configurations_in_shuffled_waves() -> None:
    configs = resolve_runs(
        load_experiments(REPO / "measurements" / "experiments.toml"), ["C-mnist"]
    )
    states = [BlockState(Shared(c, (c.group,))) for c in configs[:4]]
    seen: list[str] = []

    def fake(request: BlockRequest) -> BlockResult:
        seen.append(
            request.config["model"] + request.config["phase"] + str(request.config["batch"])
        )
        return BlockResult(rows=[{"step_s": 0.01 + 0.0001 * len(seen)}] * 3, setup_s=0.1)

    finished: list[BlockState] = []
    measure_blocks(states, fake, finished.append, seed=3)
    assert len(finished) == 4 and all(not s.active for s in finished)
    first_wave = seen[: 4 * 5]
    assert len(set(first_wave[:4])) > 1  # not one configuration's blocks back to back


def test_judge_stops_on_the_interval_or_a_cap() -> None:
    config = resolve_runs(load_experiments(REPO / "measurements" / "experiments.toml"), ["A"])[0]
    state = BlockState(Shared(config, ("A",)))
    assert judge(state) == config.min_blocks  # nothing yet: the first wave
    for level in (1.0, 1.001, 0.999, 1.0005, 0.9995):
        state.add(BlockResult(rows=[{"step_s": level}] * 3, setup_s=1.0))
    assert judge(state) == 0 and state.stopped_by == "ci"
    noisy = BlockState(Shared(config, ("A",)))
    for level in (1.0, 1.3, 0.7, 1.2, 0.8):
        noisy.add(BlockResult(rows=[{"step_s": level}] * 3, setup_s=1.0))
    more = judge(noisy)
    assert noisy.active and 1 <= more <= config.max_blocks - 5
    noisy.spent_s = config.max_seconds
    assert judge(noisy) == 0 and noisy.stopped_by == "time"


def test_a_forked_worker_times_a_block() -> None:
    """The real path: a process forked from the forkserver builds, warms up and times."""
    config = resolve_runs(
        load_experiments(REPO / "measurements" / "experiments.toml"), ["C-mnist"]
    )[0]
    request = BlockRequest(config.as_dict() | {"batch": 4, "warmup": 1}, 3, 5.0)
    result = ForkedBlocks()(request)
    assert result.error is None, result.error
    assert len(result.rows) == 3 and all(row["step_s"] > 0 for row in result.rows)
    assert result.setup_s > 0 and result.settings["precision"] == "fp32"
    broken = ForkedBlocks()(BlockRequest(config.as_dict() | {"model": "no_such"}, 3, 5.0))
    assert broken.error is not None


def test_version_1_run_json_migrates() -> None:
    folder = next((REPO / "measurements" / "runs").glob("*-cuda-*"))
    record = read_run(folder)
    assert record is not None and record.timing is not None
    raw = json.loads((folder / "run.json").read_text())
    if raw["schema_version"] == 1:
        assert record.timing.method == "rounds in one process"
        assert record.groups == [record.config.group]
        assert record.history is not None and record.history[0].samples == record.timing.n


def test_pooling_reads_blocks_and_falls_back_to_one_process() -> None:
    frame = pl.DataFrame({"block": [0, 0, 1, 1, 2, 2], "step_s": [1.0, 1.1, 1.2, 1.3, 0.9, 1.0]})
    assert run_blocks(frame) == [[1.0, 1.1], [1.2, 1.3], [0.9, 1.0]]
    assert run_blocks(frame.drop("block")) == [[1.0, 1.1, 1.2, 1.3, 0.9, 1.0]]
    # blocks in block order, each in file order; a step or block left empty is not a sample
    shuffled = pl.DataFrame(
        {"block": [2, 0, None, 2, 0, 1], "step_s": [0.9, 1.0, 5.0, None, 1.1, 1.2]}
    )
    assert run_blocks(shuffled) == [[1.0, 1.1], [1.2], [0.9]]
    empty = pl.DataFrame(
        {"block": [None, None], "step_s": [1.0, None]}, schema_overrides={"block": pl.Int64}
    )
    assert run_blocks(empty) == [[1.0]]
    five = pl.DataFrame(
        {"block": [b for b in range(5) for _ in (0, 1)],
         "step_s": [1.0, 1.1, 1.2, 1.3, 0.9, 1.0, 1.1, 1.0, 1.2, 1.1]}
    )  # fmt: skip
    ids = ["a", "b", "c"]
    runs = pl.DataFrame({
        "run_id": ids, "workload": ["w1", "w2", "w3"], "group": ["A", "B", "C"],
        "groups": [["A"], ["B"], ["C"]], "model": ["m"] * 3, "dataset": ["d"] * 3,
        "batch": [1] * 3, "phase": ["inference"] * 3, "precision": ["fp32"] * 3,
        "device": ["cpu"] * 3, "device_name": ["x"] * 3, "device_label": ["x"] * 3,
        "status": ["ok"] * 3, "median_s": [1.0] * 3, "ci_low_s": [0.9] * 3,
        "ci_high_s": [1.1] * 3, "iterations": [6] * 3, "throughput": [1.0] * 3,
        "modelled_flops": [None] * 3, "modelled_bytes": [None] * 3,
        "modelled_attained": [None] * 3,
    })  # fmt: skip
    found = results(runs, {"a": five, "b": frame.drop("block"), "c": frame})
    pooled = runs_download(runs, found)
    by_run = {row["run_id"]: row for row in pooled.to_dicts()}
    # five blocks: calibrated, across processes; one process: within it; issue 49: three
    # blocks (fewer than MIN_BLOCKS) are no calibrated interval, and get none
    assert (by_run["a"]["interval"], by_run["a"]["blocks"]) == ("calibrated", 5)
    assert (by_run["b"]["interval"], by_run["b"]["blocks"]) == ("within one process", 1)
    assert (by_run["c"]["interval"], by_run["c"]["blocks"]) == ("not calibrated", 3)
    assert by_run["c"]["ci_low_s"] is None and by_run["c"]["median_s"] == 1.05
    assert by_run["a"]["ci_high_s"] - by_run["a"]["ci_low_s"] > 0.1  # across processes


# Five blocks: the fewest a calibrated interval rests on (interval.MIN_BLOCKS)
CALIBRATED = TWO_GROUPS.replace("min_blocks = 3\nmax_blocks = 4", "min_blocks = 5\nmax_blocks = 5")


def test_remeasure_checks_only_calibrated_results(tmp_path: Path) -> None:
    """Issue 64: remeasure picked results of two blocks or more, where the report calibrates
    five; it picks by the report's result (`Result.step.calibrated`)."""
    measure(tmp_path)  # three blocks each: not calibrated
    with pytest.raises(UserError, match="only 0 committed results"):
        remeasure(tmp_path / "experiments.toml", tmp_path / "m", 1, "cpu", None, 1, 0.0,
                  "remeasure", run_block, Console(quiet=True))  # fmt: skip


def test_remeasure_counts_coverage_and_writes_it(tmp_path: Path) -> None:
    measure(tmp_path, CALIBRATED)
    path = tmp_path / "experiments.toml"
    with pytest.raises(UserError, match="minutes old"):
        remeasure(path, tmp_path / "m", 2, "cpu", None, 1, 30.0, "remeasure", run_block,
                  Console(quiet=True))  # fmt: skip
    before = {p.name: (p / "run.json").read_bytes() for p in (tmp_path / "m" / "runs").iterdir()}
    result = remeasure(path, tmp_path / "m", 2, "cpu", None, 1, 0.0, "remeasure", run_block,
                       Console(quiet=True))  # fmt: skip
    assert result.total == 2 and 0 <= result.covered <= 2
    for item in result.configurations:
        low, high = item.committed.interval95_s
        assert item.inside == (low <= item.remeasured.median_s <= high)
        assert item.remeasured.blocks == 5 and item.minutes_after >= 0
    assert [c.total for c in read_calibrations(tmp_path / "m")] == [2]
    after = {p.name: (p / "run.json").read_bytes() for p in (tmp_path / "m" / "runs").iterdir()}
    assert after == before  # the committed results are not touched


def test_a_later_remeasure_checks_the_interval_widened_by_the_earlier_ones(
    tmp_path: Path,
) -> None:
    """The first call knows no between-invocation level; the second checks the committed
    intervals widened by what the first measured, and says which level it used."""
    from generator.hierarchical import block_estimate
    from generator.records.calibration import session_cvs

    measure(tmp_path, CALIBRATED)
    path, folder = tmp_path / "experiments.toml", tmp_path / "m"
    first = remeasure(path, folder, 2, "cpu", None, 1, 0.0, "remeasure", run_block,
                      Console(quiet=True))  # fmt: skip
    assert first.session_cv == 0.0
    assert all(i.committed.block_median_cv is not None for i in first.configurations)
    known = session_cvs(read_calibrations(folder))[first.device_name]
    second = remeasure(path, folder, 2, "cpu", None, 2, 0.0, "remeasure", run_block,
                       Console(quiet=True))  # fmt: skip
    assert second.session_cv == pytest.approx(known)
    for checked in second.configurations:
        steps = pl.read_csv(folder / "runs" / checked.run_id / "steps.csv")
        blocks = [g["step_s"].to_list() for _, g in steps.group_by("block", maintain_order=True)]
        stated = block_estimate(blocks, session_cv=known)
        assert checked.committed.interval95_s == pytest.approx(stated.remeasure95_s)


def test_a_remeasure_of_compiled_runs_records_the_variation_of_compiled_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call that checks only compiled runs states their intervals with the compiled
    variation (`session_key` with the mode), and records that one, not the eager one."""
    from generator.measure import remeasure as remeasure_module
    from generator.records.calibration import session_cvs, session_key

    text = CALIBRATED.replace('phases = ["train_step", "inference"]',
                              'phases = ["train_step", "inference"]\ncompile = ["eager", "compile"]')  # fmt: skip
    measure(tmp_path, text)
    path, folder = tmp_path / "experiments.toml", tmp_path / "m"
    for seed in (1, 2):  # checks of both modes: each mode a variation of its own
        remeasure(path, folder, 4, "cpu", None, seed, 0.0, "remeasure", run_block,
                  Console(quiet=True))  # fmt: skip
    name = read_calibrations(folder)[0].device_name
    # The variations those checks measured may both be 0 on a quiet machine (the estimate is
    # floored there): the variations the call reads are set apart, so which one it records
    # is seen.
    measured = session_cvs(read_calibrations(folder))
    known = {**measured, session_key(name): 0.01, session_key(name, "compile"): 0.05}
    monkeypatch.setattr(remeasure_module, "session_cvs", lambda _: known)
    compiled = remeasure(path, folder, 2, "cpu", None, 3, 0.0, "remeasure", run_block,
                         Console(quiet=True), mode="compile")  # fmt: skip
    assert {i.run_id.rsplit("-", 2)[1] for i in compiled.configurations} == {"compile"}
    assert known[session_key(name, "compile")] != known[session_key(name)]
    assert compiled.session_cv == pytest.approx(known[session_key(name, "compile")])
