"""The CPU ceiling sweep (measure/cpu_sweep.py), the ceilings file it writes (old files still
read with their numbers), and the above-ceiling finding on synthetic and committed runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import torch

from generator.findings.ceiling_checks import above_ceiling, ops_above_ceiling
from generator.measure.ceilings import measure_ceilings
from generator.measure.cpu_sweep import (
    Series,
    SweepPlan,
    kernel_flops,
    plateaued,
    sweep_ceilings,
    thread_counts,
)
from generator.records.ceilings import (
    CeilingsFile,
    MeasuredCeilings,
    load_ceilings,
    read_ceilings,
    write_ceilings,
)
from generator.site.context import build_context
from tests.helpers import REPO, attaining, measured_results

MEASUREMENTS = REPO / "measurements"
EPYC = "AMD EPYC (2 threads)"


def test_a_series_stops_growing_at_a_plateau() -> None:
    assert not plateaued([])
    assert not plateaued([100.0])
    assert not plateaued([100.0, 104.0])  # gained 4 %: grow on
    assert plateaued([100.0, 102.9])  # gained under 3 %
    assert plateaued([100.0, 80.0])  # fell
    assert not plateaued([100.0, 102.9], tolerance=0.02)


def test_thread_counts_double_up_to_all() -> None:
    assert thread_counts(1) == (1,)
    assert thread_counts(2) == (1, 2)
    assert thread_counts(6) == (1, 2, 4, 6)


def test_kernel_flops() -> None:
    assert kernel_flops("mm", (2, 3, 4)) == 2 * 2 * 3 * 4
    assert kernel_flops("linear", (1024, 784, 4096)) == 2 * 1024 * 784 * 4096
    assert kernel_flops("bmm", (8, 128, 768, 768)) == 2 * 8 * 128 * 768 * 768
    # 2 * N * Cout * Hout * Wout * Cin * kh * kw, 'same' padding
    assert kernel_flops("conv2d", (4, 3, 5, 6, 7, 3, 3)) == 2 * 4 * 7 * 5 * 6 * 3 * 3 * 3
    with pytest.raises(ValueError, match="unknown kernel"):
        kernel_flops("fft", (1,))


def test_the_sweep_records_every_point_picks_the_best_and_stops_at_a_plateau() -> None:
    square = Series("mm", ((8, 8, 8), (16, 16, 16), (32, 32, 32), (64, 64, 64)), "square")
    conv = Series("conv2d", ((1, 2, 4, 4, 2, 3, 3), (2, 2, 4, 4, 2, 3, 3)), "conv")
    plan = SweepPlan(series=(square, conv), threads=(1,), runs=2)
    # square: 1, 2, then 2.02 GFLOP/s (under 3 % more: stop before 64³); conv: 5 then 3
    rates = iter([1e9, 2e9, 2.02e9, 5e9, 3e9])
    flops = [kernel_flops("mm", s) for s in square.shapes[:3]]
    flops += [kernel_flops("conv2d", s) for s in conv.shapes]
    calls: list[int] = []

    def timer(action: Any, runs: int, point_s: float) -> list[float]:
        action()
        calls.append(runs)
        rate, shape_flops = next(rates), flops.pop(0)
        return [shape_flops / rate, 2 * shape_flops / rate]

    gemm = sweep_ceilings({"fp32": torch.float32}, plan, timer)["fp32"]
    points = gemm["sweep"]["points"]
    assert [(p["kernel"], p["shape"]) for p in points] == [
        ("mm", [8, 8, 8]), ("mm", [16, 16, 16]), ("mm", [32, 32, 32]),
        ("conv2d", [1, 2, 4, 4, 2, 3, 3]), ("conv2d", [2, 2, 4, 4, 2, 3, 3]),
    ]  # fmt: skip
    assert [p["flops_per_s"] for p in points] == pytest.approx([1e9, 2e9, 2.02e9, 5e9, 3e9])
    assert gemm["best_flops_per_s"] == pytest.approx(5e9)
    assert (gemm["kernel"], gemm["shape"], gemm["threads"]) == ("conv2d", [1, 2, 4, 4, 2, 3, 3], 1)
    assert gemm["sweep"]["plateau"] == 0.03 and not gemm["sweep"]["stopped_by_budget"]
    assert calls == [2] * 5


def test_a_real_tiny_sweep_runs_every_kernel_and_keeps_torch_threads() -> None:
    before = torch.get_num_threads()
    plan = SweepPlan(
        series=(
            Series("mm", ((16, 16, 16), (32, 32, 32)), "square"),
            Series("linear", ((8, 16, 32),), "linear"),
            Series("bmm", ((2, 8, 16, 8),), "batched"),
            Series("conv2d", ((1, 4, 8, 8, 4, 3, 3),), "conv"),
        ),
        threads=(1,),
        runs=2,
        # long beside these kernels' ~10 µs: a point whose warm-up call outlasts point_s
        # is timed once by design, which a 1 ms budget let a slow first call trigger
        point_s=0.05,
    )
    data = measure_ceilings("cpu", runs=2, stream_elements=4096, sweep=plan)
    assert torch.get_num_threads() == before
    gemm = data["gemm"]["fp32"]
    points = gemm["sweep"]["points"]
    assert {p["kernel"] for p in points} == {"mm", "linear", "bmm", "conv2d"}
    assert gemm["best_flops_per_s"] == max(p["flops_per_s"] for p in points)
    for point in points:
        assert point["flops_per_s"] == pytest.approx(point["flops"] / min(point["times_s"]))
        assert len(point["times_s"]) >= 2 and point["threads"] == 1
    assert data["stream"]["triad"]["bytes"] == 3 * 4 * 4096


def test_a_swept_file_reads_back_with_what_reached_its_best(tmp_path: Path) -> None:
    gemm = {
        "best_flops_per_s": 4.9e11, "kernel": "conv2d", "shape": [4, 128, 28, 28, 128, 3, 3],
        "threads": 2, "flops": 1, "times_s": [1.0],
        "sweep": {"points": [{"kernel": "conv2d", "flops_per_s": 4.9e11}]},
    }  # fmt: skip
    stream = {"copy": {"best_bytes_per_s": 1.0}, "triad": {"best_bytes_per_s": 2.0}}
    record = CeilingsFile.model_validate(
        {"device_id": "cpu-x", "device": "cpu", "device_name": "X (2 threads)",
         "gemm": {"fp32": gemm}, "stream": stream}
    )  # fmt: skip
    write_ceilings(tmp_path, record)
    saved = json.loads((tmp_path / "ceilings" / "cpu-x.json").read_text())
    assert saved["schema_version"] == 1 and saved["gemm"]["fp32"]["sweep"]["points"]
    measured = read_ceilings(tmp_path / "ceilings" / "cpu-x.json")
    assert measured.gemm_flops_per_s == {"fp32": 4.9e11}
    assert measured.device_id == "cpu-x"
    assert measured.gemm_best_of == {"fp32": "conv2d [4, 128, 28, 28, 128, 3, 3] on 2 thread(s)"}


def test_the_committed_ceilings_files_read_with_the_same_numbers() -> None:
    for path in sorted((MEASUREMENTS / "ceilings").glob("*.json")):
        data = json.loads(path.read_text())
        measured = read_ceilings(path)
        assert measured.gemm_flops_per_s == {
            p: rate["best_flops_per_s"] for p, rate in data["gemm"].items()
        }
        assert measured.triad_bytes_per_s == data["stream"]["triad"]["best_bytes_per_s"]
        assert measured.device_id == path.stem
    gpu = read_ceilings(MEASUREMENTS / "ceilings" / "nvidia-h100-80gb-hbm3.json")
    assert gpu.gemm_flops_per_s["fp32"] == pytest.approx(51472178997528.68)
    assert gpu.gemm_best_of == {}  # one square GEMM: nothing to name


def _row(**values: Any) -> dict[str, Any]:
    """A run's row with the modelled FLOP/s its result attains (`helpers.attaining`)."""
    row = {
        "run_id": "r1", "model": "simple_mlp", "batch": 1024, "phase": "inference",
        "precision": "fp32", "device_name": EPYC, "status": "ok", "modelled_attained": 161e9,
    } | values  # fmt: skip
    return row | {"workload": row["run_id"]}


def _ceilings(gemm: float) -> list[MeasuredCeilings]:
    return [MeasuredCeilings(EPYC, {"fp32": gemm}, 1.0, 2.0, "", "cpu-amd-epyc-2-threads")]


def test_a_step_above_its_measured_ceiling_raises_above_ceiling() -> None:
    runs = pl.DataFrame(
        [
            _row(),
            _row(run_id="r2", modelled_attained=100e9),  # under the ceiling
            _row(run_id="r3", status="failed"),
            _row(run_id="r4", device_name="NVIDIA H100 80GB HBM3"),  # no ceilings here
            _row(run_id="r5", precision="bf16-amp"),  # no bf16 ceiling measured
        ]
    )
    found = above_ceiling(runs, attaining(runs), _ceilings(108.5e9))
    assert list(found) == ["r1"]
    (finding,) = found["r1"]
    assert finding.id == "above-ceiling" and finding.severity == "warning"
    assert finding.evidence.startswith(
        "simple_mlp b1024 inference runs at 161 GFLOP/s, above the measured fp32 GEMM ceiling "
        "of 108.5 GFLOP/s on AMD EPYC (2 threads) (1.48×): the ceiling is no ceiling"
    )
    assert "measurements/ceilings/cpu-amd-epyc-2-threads.json" in finding.fix
    assert "nox -s measure" in finding.fix
    assert above_ceiling(runs, attaining(runs), _ceilings(490e9)) == {}


def test_an_op_above_the_ceiling_is_named() -> None:
    by_op = pl.DataFrame({"op": ["aten::addmm", "aten::relu"], "attained_flops_per_s": [2e11, 1e9]})
    (finding,) = ops_above_ceiling(_row(), by_op, _ceilings(108.5e9))
    assert finding.title == "aten::addmm runs above its device's measured ceiling"
    assert "200 GFLOP/s, above the measured fp32 GEMM ceiling of 108.5 GFLOP/s" in finding.evidence
    assert ops_above_ceiling(_row(), by_op, _ceilings(490e9)) == []
    runs = pl.DataFrame([_row(modelled_attained=1e9)])
    found = above_ceiling(runs, attaining(runs), _ceilings(108.5e9), {"r1": by_op})
    assert [f.title for f in found["r1"]] == [finding.title]


def test_no_committed_cpu_step_beats_the_swept_ceiling_nor_the_one_gemm_it_replaced() -> None:
    """On the committed data: no CPU step is above the swept EPYC ceiling beyond its interval
    (H-cpu-batch's AlexNet, at 104 % [94.6, 115] of it, may run at it), while the one
    2048³ torch.mm ceiling it replaced (108.5 GFLOP/s) would be beaten by several; and no
    measured ceiling is above the EPYC's derived datasheet peak."""
    from generator.catalog import lookup_device

    runs, found = measured_results(MEASUREMENTS)
    ceilings = load_ceilings(MEASUREMENTS)
    epyc = next(c for c in ceilings if c.device_name == EPYC)
    assert epyc.gemm_best_of  # re-measured with the sweep
    on_epyc = [run for run in above_ceiling(runs, found, ceilings) if run in set(runs["run_id"])]
    labels = {r["run_id"]: r for r in runs.to_dicts()}
    assert not [run for run in on_epyc if labels[run]["device_name"] == EPYC]
    one_gemm = [c if c.device_name != EPYC else _ceilings(108.5e9)[0] for c in ceilings]
    beaten = [
        run for run in above_ceiling(runs, found, one_gemm) if labels[run]["device_name"] == EPYC
    ]
    assert len(beaten) >= 5
    device = lookup_device(EPYC)
    peak = device.peak("fp32") if device else None
    assert peak is not None and epyc.gemm_flops_per_s["fp32"] < peak  # derived: 332 GFLOP/s


def test_the_check_stage_adds_above_ceiling_to_the_run_findings(tmp_path: Path) -> None:
    from dataclasses import replace

    from generator.site.analyse import analyse
    from generator.site.check import check
    from generator.site.load import load_measurements

    analysed = analyse(
        load_measurements(build_context(REPO / "tests/data/golden/measurements", tmp_path))
    )
    assert not any(
        f.id == "above-ceiling" for found in check(analysed).run_findings.values() for f in found
    )
    low = [replace(c, gemm_flops_per_s={"fp32": 1e3}) for c in analysed.loaded.ceilings]
    checked = check(replace(analysed, loaded=replace(analysed.loaded, ceilings=low)))
    cpu_runs = analysed.runs.filter(pl.col("device") == "cpu")["run_id"].to_list()
    assert cpu_runs
    for run in cpu_runs:
        ids = [f.id for f in checked.run_findings[run]]
        assert "above-ceiling" in ids
