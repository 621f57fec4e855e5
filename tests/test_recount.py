"""Analytic counts derived again by today's conventions (measure/recount.py,
`rederive --counts`): one configuration has one count whatever device measured it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from generator.cli import main
from generator.measure.recount import recount

REPO = Path(__file__).resolve().parents[1]
RUNS = REPO / "measurements" / "runs"
OLD = REPO / "tests" / "data" / "recount"  # the H100 run's files as counted on 2026-11-23
# ResNet-18 b128 training step, fp32: on the H100 (measured 2026-11-23, BatchNorm's training
# forward then counted at 8 FLOP an element) and on this VM's CPU (counted at 6)
H100 = "B-resnet18-cifar10-b128-train_step-fp32-cuda-4bed1e9a"
CPU = "A-resnet18-cifar10-b128-train_step-fp32-cpu-d6ced0a3"


def _run(folder: Path) -> dict[str, object]:
    return json.loads((folder / "run.json").read_text())  # type: ignore[no-any-return]


def test_an_older_count_is_made_todays_and_nothing_measured_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in (H100, CPU):
        shutil.copytree(RUNS / name, tmp_path / "runs" / name)
    for name in ("run.json", "complexity.csv", "layers.csv"):
        shutil.copy(OLD / name, tmp_path / "runs" / H100 / name)
    before = _run(tmp_path / "runs" / H100)
    cpu = _run(RUNS / CPU)
    assert before["complexity"] != cpu["complexity"]  # two counts for one configuration
    assert main(["rederive", "--counts", "--measurements", str(tmp_path)]) == 0
    said = capsys.readouterr().out
    assert f"{H100}: counted again (forward_flops, step_flops, arithmetic_intensity)" in said
    assert "2 runs counted, 1 with other counts today" in said
    after = _run(tmp_path / "runs" / H100)
    assert after["complexity"] == cpu["complexity"]  # one count now
    point, old = after["modelled_point"], before["modelled_point"]
    assert isinstance(point, dict) and isinstance(old, dict)
    assert point["flops"] == cpu["complexity"]["step_flops"]  # type: ignore[index]
    assert point["time_s"] == old["time_s"]
    assert point["attained_flops_per_s"] == pytest.approx(point["flops"] / point["time_s"])
    # everything else as it was on disk: its version, its timing, its keys
    unchanged = {k: v for k, v in before.items() if k not in ("complexity", "modelled_point")}
    assert {k: v for k, v in after.items() if k not in ("complexity", "modelled_point")} == (
        unchanged
    )
    layers = (tmp_path / "runs" / H100 / "complexity.csv").read_text()
    assert "batch_norm: 6 FLOP per output element" in layers and "8 FLOP" not in layers

    def times(path: Path) -> list[str]:  # the measured column, as text
        return [line.rsplit(",", 1)[1] for line in path.read_text().splitlines()]

    assert times(tmp_path / "runs" / H100 / "layers.csv") == times(OLD / "layers.csv")
    for name in ("run.json", "complexity.csv", "layers.csv"):  # as committed, counted again
        assert (tmp_path / "runs" / H100 / name).read_bytes() == (RUNS / H100 / name).read_bytes()
    assert (tmp_path / "runs" / CPU / "run.json").read_bytes() == (
        RUNS / CPU / "run.json"
    ).read_bytes()
    assert [r.changed for r in recount(tmp_path)] == [(), ()]  # counted again: the same


def test_a_footprint_counted_again_keeps_the_measured_peak_and_takes_its_ratio() -> None:
    from generator.measure.resources import with_footprint

    measured = {"measured": {"step_bytes": 300, "blocks": 5}, "analytic": {"total_bytes": 100},
                "ratio": 3.0, "mismatch_factor": 3.0}  # fmt: skip
    again = with_footprint(measured, {"total_bytes": 200})
    assert again == {**measured, "analytic": {"total_bytes": 200}, "ratio": 1.5}
    unmeasured = {"measured": None, "why": "not measured", "analytic": {"total_bytes": 100}}
    assert with_footprint(unmeasured, {"total_bytes": 200}) == {
        **unmeasured,
        "analytic": {"total_bytes": 200},
    }
