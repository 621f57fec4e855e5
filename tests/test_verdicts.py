"""Verdicts and observations of experiment groups, from synthetic and committed runs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from generator.analysis.observations import observations
from generator.analysis.verdict_needs import NOT_TESTABLE, metric_interval
from generator.analysis.verdicts import ratio_verdict, swept, trend_verdict
from generator.config import load_experiments
from generator.errors import UserError
from tests.helpers import REPO, result_row


def run(batch: int, median: float, low: float, high: float, **extra: Any) -> dict[str, Any]:
    row = {
        "model": "resnet18", "dataset": "cifar10", "batch": batch, "phase": "train_step",
        "precision": "fp32", "device": "cpu", "device_label": "AMD EPYC", "median_s": median,
        "ci_low_s": low, "ci_high_s": high, "cv": 0.01, "modelled_flops": 1e9 * batch,
        "modelled_ai": 10.0, "run_id": f"r{batch}",
    }  # fmt: skip
    row.update(extra)
    return result_row(row)


def test_trend_verdicts() -> None:
    rising = [run(32, 0.20, 0.19, 0.21), run(256, 1.0, 0.99, 1.01)]  # 160 -> 256 samples/s
    assert swept(rising) == ["batch"]
    verdict = trend_verdict(rising, "batch", "throughput", "increases")
    assert verdict.outcome == "supported"
    assert verdict.reason == (
        "throughput increases from batch 32 (160 samples/s) to batch 256 (256 samples/s), "
        "intervals apart"
    )
    assert trend_verdict(rising, "batch", "throughput", "decreases").outcome == "not supported"
    wide = [run(32, 0.20, 0.10, 0.40), run(256, 1.0, 0.99, 1.01)]
    overlapping = trend_verdict(wide, "batch", "throughput", "increases")
    assert overlapping.outcome == "inconclusive" and "overlap" in overlapping.reason


def test_ratio_verdicts() -> None:
    rows = [
        run(64, 0.30, 0.29, 0.31, phase="train_step"),
        run(64, 0.06, 0.059, 0.061, phase="inference"),
    ]
    verdict = ratio_verdict(rows, "phase", "throughput", "inference", "train_step", (2.5, 3.5))
    assert verdict.outcome == "not supported"
    assert verdict.reason == (
        "throughput of inference over train_step is 5× [4.75, 5.25] (calibrated, 10 processes) "
        "(expected between 2.5 and 3.5)"
    )
    assert (
        ratio_verdict(rows, "phase", "throughput", "inference", "train_step", (4.0, 6.0)).outcome
        == "supported"
    )
    assert (
        ratio_verdict(rows, "phase", "throughput", "inference", "train_step", (5.0, 6.0)).outcome
        == "inconclusive"
    )


def test_intervals_follow_the_step_time_ci() -> None:
    row = run(100, 0.5, 0.4, 0.6)
    step = metric_interval(row, "step_time")
    assert step is not None and (step.value, step.low, step.high) == (0.5, 0.4, 0.6)
    rate = metric_interval(row, "throughput")
    assert rate is not None
    assert (rate.value, rate.low, rate.high) == pytest.approx((200, 100 / 0.6, 250))
    assert rate.kind == "calibrated"
    assert metric_interval({**row, "result": None}, "throughput") is None


def test_a_verdict_without_calibrated_intervals_is_not_testable() -> None:
    """Issue 49: a verdict that needs a calibrated interval it lacks says so, with the
    command that re-measures it, instead of judging on intervals within one process."""
    rising = [run(32, 0.20, 0.19, 0.21), run(256, 1.0, 0.99, 1.01)]
    rising[1] = result_row({k: v for k, v in rising[1].items() if k != "result"},
                           "within one process", 1)  # fmt: skip
    verdict = trend_verdict(rising, "batch", "throughput", "increases")
    assert verdict.outcome == NOT_TESTABLE
    assert "nox -s measure -- --group A --device cpu --force" in verdict.reason


def test_observations_say_what_moved() -> None:
    rows = [run(32, 0.20, 0.19, 0.21), run(256, 1.0, 0.99, 1.01, cv=0.12)]
    sentences = observations(rows, "batch", None)
    assert sentences[0] == (
        "Throughput rises from 160 samples/s to 256 samples/s (60 %) as the batch goes from "
        "32 to 256."
    )
    assert sentences[-1] == (
        "1 of 2 results have a 95 % interval wider than ±3 % (up to ±5 %): compare them by "
        "their intervals."
    )


@pytest.mark.parametrize(
    ("expect", "message"),
    [
        ('{ metric = "throughput" }', "give either trend or ratio"),
        ('{ metric = "throughput", trend = "increases", ratio = ["a", "b"] }', "give either"),
        ('{ metric = "throughput", ratio = ["a", "b"] }', "a ratio needs between"),
        ('{ metric = "speed", trend = "increases" }', "Input should be 'throughput'"),
        ('{ metric = "step_time", trend = "saturates" }', 'judged on metric = "throughput"'),
        ('{ metric = "throughput", of_ceiling = [0, 0.01] }', "modelled_flops_per_s"),
        (
            '{ metric = "modelled_flops_per_s", of_ceiling = [0, 1], trend = "increases" }',
            "exactly one",
        ),
    ],
)
def test_expectation_errors(tmp_path: Path, expect: str, message: str) -> None:
    path = tmp_path / "experiments.toml"
    path.write_text(
        'schema_version = 1\n[[groups]]\nid = "A"\ntitle = "t"\nhypothesis = "h"\n'
        f'models = ["resnet18"]\ndatasets = ["cifar10"]\nbatch_sizes = [32]\nexpect = {expect}\n'
    )
    with pytest.raises(UserError, match=message) as caught:
        load_experiments(path)
    assert "groups[0].expect" in caught.value.message


@pytest.mark.site
def test_group_pages_state_their_verdicts(repo_site: Path) -> None:
    pages = repo_site / "measurements" / "experiments"
    experiments = load_experiments(REPO / "measurements" / "experiments.toml")
    for group in experiments.groups:
        assert (pages / group.id / "index.html").is_file(), group.id
    a = (pages / "A" / "index.html").read_text(encoding="utf-8")
    # A's `saturates`, judged on the pooled timings of its one series
    assert re.search(r'data-verdict="(supported|not supported|inconclusive)"', a)
    assert "resnet18 training (cifar10, fp32) on AMD EPYC" in a
    assert 'data-verdict="not evaluated"' in (pages / "G" / "index.html").read_text(
        encoding="utf-8"
    )


def test_a_not_testable_verdict_says_what_the_uncalibrated_runs_say_provisionally() -> None:
    """Issue 66: B asks >= 10x and even its slower run gives 26.5x; the reader wants that
    beside "not testable", labelled provisional, with the least favourable pair's margin."""
    from dataclasses import replace

    from generator.analysis.interval import Interval
    from generator.analysis.provisional import PROVISIONAL, reading
    from generator.analysis.results import RunTime
    from generator.config import Expectation

    cpu = run(128, 0.20, None, None, device="cpu", run_id="cpu-run")
    gpu = run(128, 0.0069, None, None, device="cuda", device_label="NVIDIA H100 SXM")
    pooled = replace(
        gpu["result"],
        runs=(RunTime("fast", "B", Interval(0.00548), False),
              RunTime("slow", "E", Interval(0.00811), False)),
    )  # fmt: skip
    rows = [cpu, gpu | {"result": pooled}]
    claim = Expectation(metric="throughput", ratio=["cuda", "cpu"], between=[10.0, 1e9])
    said = reading(claim, rows, "device_label")
    assert said.startswith(PROVISIONAL) and "decides nothing until re-measured" in said
    assert "24.7× to 36.5× over 2 pairs of runs (expected at least 10)" in said
    assert "the least favourable pair, slow against cpu-run" in said
    assert said.endswith("gives 24.7×, which clears it by 2.47×.")
    missed = Expectation(metric="throughput", ratio=["cuda", "cpu"], between=[30.0, 1e9])
    assert reading(missed, rows, "device_label").endswith("which misses it by 1.22×.")
    bounded = Expectation(metric="throughput", ratio=["cuda", "cpu"], between=[2.0, 30.0])
    assert "clears" not in reading(bounded, rows, None)  # 36.5× is above 30: it misses
    saturates = Expectation(metric="throughput", trend="saturates")
    assert reading(saturates, rows, "batch") == ""  # nothing to read provisionally


def test_observations_count_the_intervals_too_wide_to_state() -> None:
    """Issue 64: the runs download blanks `ci_low_s`/`ci_high_s` where an interval is too
    wide to state (analysis/result_columns.py); the widest must still be counted."""
    narrow = run(32, 0.20, 0.199, 0.201)
    wide = run(256, 1.0, 0.1, 10.0)  # ends 100x apart: too uncertain for an interval
    wide |= {"ci_low_s": None, "ci_high_s": None}  # as the runs download states it
    assert wide["result"].step.too_wide
    sentences = observations([narrow, wide], "batch", None)
    assert sentences[-1] == (
        "1 of 2 results have a 95 % interval wider than ±3 % (up to ±900 %): compare them by "
        "their intervals."
    )
