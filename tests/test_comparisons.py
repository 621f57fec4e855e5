"""The seeds' comparisons: the Spearman bootstrap, latency against FLOPs and parameters, speedups
between devices and precisions, and their pages on small frames with known answers."""

from __future__ import annotations

import math
from typing import Any

import polars as pl
import pytest

from generator.analysis.bootstrap import MIN_INTERVAL_POINTS, spearman
from generator.analysis.latency_correlation import latency_sets, rho_frame, sentence
from generator.analysis.per_workload import one_per_workload
from generator.analysis.results import Result, results
from generator.analysis.speedups import device_speedups, precision_speedups, summary
from generator.ingest.runs import RUN_SCHEMA
from generator.pages.latency_correlation import latency_page
from generator.pages.speedups import speedups_page

# a run's row and the median it is timed at (`timed`): the runs table carries no statistic
SCHEMA = RUN_SCHEMA | pl.Schema(dict.fromkeys(("median_s", "ci_low_s", "ci_high_s"), pl.Float64))
CPU, GPU = "AMD EPYC (2 threads)", "NVIDIA H100 SXM"


def run(run_id: str, **values: Any) -> dict[str, Any]:
    """One ok run's row: inference of a model at batch 1 in fp32 on the CPU unless told."""
    row: dict[str, Any] = dict.fromkeys(SCHEMA.names())
    row |= {"run_id": run_id, "group": "T", "model": "m", "dataset": "d", "batch": 1,
            "phase": "inference", "precision": "fp32", "device": "cpu", "device_label": CPU,
            "status": "ok", "median_s": 1.0, "ci_low_s": 0.9, "ci_high_s": 1.1}  # fmt: skip
    row |= values
    row.setdefault("workload", None)
    if row["workload"] is None:
        keys = ("model", "dataset", "batch", "phase", "precision", "device_label")
        row["workload"] = "/".join(str(row[k]) for k in keys)
    return row


def frame(*rows: dict[str, Any]) -> pl.DataFrame:
    return pl.DataFrame(list(rows), schema=SCHEMA)


def steps(**times: list[float]) -> dict[str, pl.DataFrame]:
    return {run_id: pl.DataFrame({"step_s": t}) for run_id, t in times.items()}


def timed(runs: pl.DataFrame) -> dict[str, Result]:
    """The results of the ok runs, each timed at its row's `median_s` (five equal steps)."""
    ok = runs.filter((pl.col("status") == "ok") & pl.col("median_s").is_not_null())
    return results(runs, steps(**{r: [t] * 5 for r, t in ok.select("run_id", "median_s").rows()}))


# bootstrap


def test_spearman_of_monotone_points_is_one_with_interval_one() -> None:
    found = spearman([1, 2, 3, 4, 5, 6], [0.1, 0.5, 0.7, 2.0, 3.0, 9.0])
    assert found is not None
    assert (found.value, found.low, found.high) == (1.0, 1.0, 1.0)
    assert 0 < found.used <= found.resamples == 2000


def test_spearman_is_seeded_and_skips_degenerate_resamples() -> None:
    x, y = [1, 2, 3, 4, 5, 6, 7], [2, 1, 4, 3, 7, 5, 6]
    first, again = spearman(x, y, seed=3), spearman(x, y, seed=3)
    assert first == again and first is not None
    assert first.value == pytest.approx(1 - 6 * 10 / (7 * 48))
    assert -1 <= first.low <= first.value <= first.high <= 1
    # resamples with fewer than three distinct points are dropped, not counted as ρ
    assert first.used < first.resamples


def test_spearman_undefined_or_too_few_points() -> None:
    assert spearman([1, 1, 1, 1, 1], [1, 2, 3, 4, 5]) is None  # constant ranks
    assert spearman([1, 2], [1, 2]) is None
    few = spearman([1, 2, 3], [3, 1, 2])
    assert few is not None and few.resamples == 0 and math.isnan(few.low)
    assert MIN_INTERVAL_POINTS == 5


# one point per workload


def test_one_per_workload_keeps_the_first_run_of_each() -> None:
    runs = frame(
        run("b", workload="w1"), run("a", workload="w1"), run("c", workload="w2"),
        run("d", workload="w3", status="failed", median_s=None),
    )  # fmt: skip
    assert one_per_workload(runs, timed(runs))["run_id"].to_list() == ["a", "c"]


# latency against FLOPs and parameters


def models(n: int, device_label: str = CPU, **values: Any) -> list[dict[str, Any]]:
    return [
        run(f"{device_label[:3]}{i}", model=f"m{i}", median_s=0.01 * (i + 1),
            modelled_flops=1e9 * (i + 1), params=1e6 * (n - i), device_label=device_label,
            **values)
        for i in range(n)
    ]  # fmt: skip


def test_latency_sets_need_three_models_and_count_each_workload_once() -> None:
    pooled_twice = run("dup", model="m0", median_s=0.01, modelled_flops=1e9, params=6e6,
                       workload=models(6)[0]["workload"])  # fmt: skip
    runs = frame(*models(6), pooled_twice, *models(2, GPU, device="cuda"))
    (found,) = latency_sets(runs, timed(runs))
    assert (found.device_label, found.phase, found.batch, found.points.height) == (
        CPU,
        "inference",
        1,
        6,
    )
    flops, params = found.rho["modelled_flops"], found.rho["params"]
    assert flops is not None and (flops.value, flops.low, flops.high) == (1.0, 1.0, 1.0)
    assert params is not None and params.value == -1.0 and params.high == -1.0
    assert "follows analytic FLOPs with Spearman ρ = 1.00 [1.00, 1.00] over 6 models" in sentence(
        found, "modelled_flops"
    )
    assert "runs opposite to parameters" in sentence(found, "params")
    assert "seed 003" not in sentence(found, "modelled_flops")  # its matrix pools batches


def test_latency_sentence_claims_no_ranking_when_the_interval_holds_zero() -> None:
    rows = [
        run(f"r{i}", model=f"m{i}", median_s=t, modelled_flops=float(i + 1), params=1.0 + i)
        for i, t in enumerate([0.5, 0.1, 0.4, 0.2, 0.6, 0.3])
    ]
    (found,) = latency_sets(frame(*rows), timed(frame(*rows)))
    rho = found.rho["modelled_flops"]
    assert rho is not None and rho.low < 0 < rho.high
    assert "no ranking by analytic FLOPs is established" in sentence(found, "modelled_flops")
    table = rho_frame([found])
    assert table.height == 2 and table["against"].to_list() == ["modelled_flops", "params"]


def test_latency_sets_label_a_model_measured_on_two_inputs() -> None:
    rows = [*models(3, GPU, device="cuda"),
            run("x", model="m0", dataset="other", median_s=0.5, modelled_flops=5e9, params=1e6,
                device="cuda", device_label=GPU)]  # fmt: skip
    (found,) = latency_sets(frame(*rows), timed(frame(*rows)))
    assert sorted(found.points["label"]) == ["m0 (d)", "m0 (other)", "m1", "m2"]
    text = sentence(found, "modelled_flops")
    assert "over 4 workloads of 3 models, too few for a bootstrap interval" in text


# speedups


def test_device_speedups_pair_same_configuration_and_put_the_cpu_first() -> None:
    runs = frame(
        run("c1", model="a"), run("g1", model="a", device="cuda", device_label=GPU),
        run("c2", model="b"), run("g2", model="b", device="cuda", device_label=GPU),
        run("c3", model="only-cpu"),
        run("g3", model="a", batch=64, device="cuda", device_label=GPU),  # no CPU side
    )  # fmt: skip
    times = steps(c1=[2.0] * 5, g1=[0.5] * 5, c2=[3.0] * 5, g2=[3.0] * 5, c3=[1.0], g3=[1.0])
    (table,) = device_speedups(results(runs, times))
    assert (table.kind, table.faster, table.slower) == ("device", GPU, CPU)
    assert [(r.model, r.ratio.value) for r in table.rows] == [("b", 1.0), ("a", 4.0)]
    text = summary(table)
    assert text.startswith(
        f"{GPU} is 1× [1, 1] (within one process) to 4× [4, 4] (within one process) faster "
        f"than {CPU} over 2"
    )
    assert "In 1 of 2 configurations the 95 % interval includes 1" in text


def test_device_speedups_between_two_gpus_orient_by_the_slower_side() -> None:
    other = "NVIDIA L4"
    runs = frame(
        *(run(f"h{i}", model=f"m{i}", device="cuda", device_label=GPU) for i in range(3)),
        *(run(f"l{i}", model=f"m{i}", device="cuda", device_label=other) for i in range(3)),
    )  # fmt: skip
    times = steps(h0=[1.0], h1=[1.0], h2=[1.0], l0=[3.0], l1=[2.0], l2=[0.5])
    (table,) = device_speedups(results(runs, times))
    assert (table.faster, table.slower) == (GPU, other)  # the L4 is slower on most
    assert [r.ratio.value for r in table.rows] == [0.5, 2.0, 3.0]
    # issue 49: one process each, so no side is called the slower one; the summary says why
    assert "is the slower one" not in summary(table)
    assert "3 of 3 intervals are within one process" in summary(table)


def test_precision_speedups_against_fp32_on_one_device() -> None:
    runs = frame(
        run("f", device="cuda", device_label=GPU, phase="train_step"),
        run("b", device="cuda", device_label=GPU, phase="train_step", precision="bf16-amp"),
        run("t", device="cuda", device_label=GPU, phase="train_step", precision="tf32"),
        run("c", precision="bf16-amp"),  # no fp32 on the CPU: no pair
    )  # fmt: skip
    times = steps(f=[3.0, 3.0, 3.0], b=[1.0, 1.0, 1.0], t=[6.0, 6.0], c=[1.0])
    tables = precision_speedups(results(runs, times))
    assert [(t.faster, t.slower, t.device, t.rows[0].ratio.value) for t in tables] == [
        ("bf16-amp", "fp32", GPU, 3.0),
        ("tf32", "fp32", GPU, 0.5),
    ]
    assert summary(tables[1]).startswith(f"tf32 is slower than fp32 on {GPU} on the one")


# pages


def test_pages_say_what_would_fill_them_when_empty() -> None:
    latency = latency_page([], {})
    assert "`nox -s measure -- --group H-cpu`" in latency.markdown and not latency.charts
    assert latency.tables["spearman"].height == 0
    speed = speedups_page([], [])
    assert "No configuration has been measured on two devices yet" in speed.markdown
    assert "`nox -s measure -- --group E`" in speed.markdown and not speed.charts


def test_pages_with_content_have_a_chart_per_set_and_table() -> None:
    runs = frame(*models(5), *models(5, GPU, device="cuda"))
    times = steps(**{r: [0.1] for r in runs["run_id"]})
    found = results(runs, times)
    latency = latency_page(latency_sets(runs, found), found)
    assert len(latency.charts) == 2 and latency.tables["latency-points"].height == 10
    tables = device_speedups(found)
    speed = speedups_page(tables, [])
    assert len(speed.charts) == 1 and speed.tables["speedups"].height == 5
    assert f"{GPU} against {CPU}" in speed.markdown


def test_a_speedup_over_runs_that_disagree_has_no_interval() -> None:
    """Issue 49: two runs of one configuration, each timed in one process, are never pooled
    into an interval; a ratio with such a side has none either."""
    runs = frame(
        run("c1", model="a"), run("g1", model="a", device="cuda", device_label=GPU),
        run("g2", model="a", device="cuda", device_label=GPU, group="U",
            workload=run("g1", model="a", device="cuda", device_label=GPU)["workload"]),
    )  # fmt: skip
    times = steps(c1=[2.0] * 5, g1=[0.5] * 5, g2=[0.8] * 5)
    found = results(runs, times)
    gpu = found[runs.filter(pl.col("run_id") == "g1")["workload"].item()]
    assert gpu.step.low is None and gpu.step.kind == "not calibrated" and len(gpu.runs) == 2
    assert gpu.disagreement == pytest.approx(0.6)
    assert "disagree by 60 %" in gpu.why_uncalibrated()
    (table,) = device_speedups(found)
    (row,) = table.rows
    assert row.ratio.low is None and "not calibrated" in row.ratio.times_text()
    assert "1 of 1 ratios have no interval" in summary(table)


def test_a_ratio_end_near_1_is_never_printed_as_1() -> None:
    """The compile page read "1.2× [1, 1.43] faster": its low end was just above 1."""
    from generator.analysis.interval import CALIBRATED, Interval

    faster = Interval(1.2, 1.0004, 1.43, CALIBRATED, 6)
    assert faster.times_text() == "1.2× [1.0004, 1.43] (calibrated, 6 processes)"
    slower = Interval(0.8, 0.6, 0.99996, CALIBRATED, 6)
    assert "[0.6, 0.99996]" in slower.times_text()
    assert Interval(1.0, 1.0, 1.2, CALIBRATED, 6).times_text().startswith("1× [1, 1.2]")
