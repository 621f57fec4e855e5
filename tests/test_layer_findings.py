"""profiler-overhead: per-layer times from the profiled step that add up to more than 1.1x
the timed phase are said to be profiled time, in run.json and on the run page."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from generator.analysis.thresholds import PROFILER_OVERHEAD_RATIO
from generator.cli import main
from generator.findings import layer_time_by_phase, profiler_overhead
from generator.summaries.run_findings import rederive

REPO = Path(__file__).resolve().parents[1]
RUNS = REPO / "measurements" / "runs"
MLP_B64 = "C-mnist-simple_mlp-mnist-b64-inference-fp32-cpu-8b225d5b"


def test_fires_above_the_ratio_and_names_each_phase() -> None:
    timed = {"forward": 1.0, "backward": 2.0, "loss": 0.1}
    assert profiler_overhead({"forward": 1.1, "backward": 2.2}, timed) == []
    found = profiler_overhead({"forward": 1.6, "backward": 2.3, "loss": 0.5}, timed)
    assert [f.id for f in found] == ["profiler-overhead"]
    assert "forward: layers 1.6 s against 1 s timed (1.6×)" in found[0].evidence
    assert "backward: layers 2.3 s against 2 s timed (1.15×)" in found[0].evidence
    assert "loss" in found[0].evidence  # 5x its timed median
    assert profiler_overhead({"forward": 5.0}, {"forward": None}) == []  # nothing timed


def test_layer_times_sum_per_phase_and_skip_empty_cells() -> None:
    rows = [
        {"phase": "forward", "time_s": "0.5"},
        {"phase": "forward", "time_s": "0.25"},
        {"phase": "backward", "time_s": ""},
        {"phase": "backward", "time_s": 1.0},
    ]
    assert layer_time_by_phase(rows) == {"forward": 0.75, "backward": 1.0}


def _ratios(folder: Path) -> dict[str, float]:
    record = json.loads((folder / "run.json").read_text())
    timed = record.get("phase_median_s") or {}
    summed: dict[str, float] = {}
    with (folder / "layers.csv").open() as handle:
        for row in csv.DictReader(handle):
            if row["time_s"]:
                summed[row["phase"]] = summed.get(row["phase"], 0.0) + float(row["time_s"])
    return {p: t / timed[p] for p, t in summed.items() if timed.get(p)}


def test_every_committed_run_above_the_ratio_carries_the_finding() -> None:
    over = 0
    for folder in sorted(RUNS.iterdir()):
        if not (folder / "layers.csv").is_file():
            continue
        ids = [f["id"] for f in json.loads((folder / "run.json").read_text()).get("findings", [])]
        above = any(r > PROFILER_OVERHEAD_RATIO for r in _ratios(folder).values())
        assert ("profiler-overhead" in ids) == above, folder.name
        over += above
    assert over >= 5  # 22 runs when the check was added; 9 after the re-measurement in blocks


def test_rederive_restores_the_finding_and_is_idempotent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(RUNS / MLP_B64, runs / MLP_B64)
    path = runs / MLP_B64 / "run.json"
    record = json.loads(path.read_text())
    del record["findings"]  # as written before the check existed
    path.write_text(json.dumps(record))
    assert main(["rederive", "--measurements", str(tmp_path)]) == 0
    assert "1 runs read, 1 run.json rewritten" in capsys.readouterr().out
    stored = json.loads(path.read_text())["findings"]
    assert [f["id"] for f in stored] == ["profiler-overhead", "memory-mismatch"]
    worst = max(_ratios(runs / MLP_B64).values())  # from the committed files
    assert f"({worst:.2f}×)" in stored[0]["evidence"]
    before = path.read_bytes()
    assert [r.changed for r in rederive(tmp_path)] == [False]
    assert path.read_bytes() == before


def test_rederive_of_the_committed_runs_changes_nothing(tmp_path: Path) -> None:
    """Every finding measure wrote is one rederive derives again: over a copy of every
    committed run, nothing is rewritten (it had dropped the 18 memory-mismatch findings)."""
    shutil.copytree(RUNS, tmp_path / "runs")
    done = rederive(tmp_path)
    assert len(done) >= 100 and [r.run_id for r in done if r.changed] == []
    assert sum("memory-mismatch" in r.findings for r in done) >= 10
