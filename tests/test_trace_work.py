"""A trace's work, stored once (analysis/trace_work.py): the report's analysis from the
stored file equals the analysis from the trace, and a file that is not current is never
read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from generator.analysis.trace_analysis import TraceAnalysis, analysis_of_work, analyze_trace
from generator.analysis.trace_work import (
    WORK_FILE,
    WORK_KEY,
    read_work,
    stored_state,
    work,
    write_work,
)
from generator.cli import main
from generator.findings import trace_findings
from generator.measure.run_files import layer_times
from generator.records.ceilings import read_ceilings
from tests.helpers import REPO
from tests.trace_helpers import REAL_TRACES

CPU_RUN = REPO / "measurements" / "runs" / "A-resnet18-cifar10-b32-train_step-fp32-cpu-182cb488"
CEILINGS = REPO / "measurements" / "ceilings" / "cpu-amd-epyc-2-threads.json"
TRACES = [*sorted(REAL_TRACES.glob("*.json.gz")), CPU_RUN / "trace.json.gz"]
FRAMES = ("by_op", "by_step", "by_phase", "by_layer", "by_range")


def _copy(trace: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(trace, folder / "trace.json.gz"))


def _same(direct: TraceAnalysis, stored: TraceAnalysis) -> None:
    for name in FRAMES:
        assert_frame_equal(getattr(direct, name), getattr(stored, name))
    assert direct.total == stored.total
    assert direct.match == stored.match and direct.roofs == stored.roofs
    assert direct.kernels == stored.kernels
    assert direct.attribution.steps == stored.attribution.steps
    assert direct.attribution.on_gpu == stored.attribution.on_gpu
    assert trace_findings(direct, "train_step") == trace_findings(stored, "train_step")


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: p.name if p.parent != CPU_RUN else "cpu")
def test_the_stored_work_gives_the_analysis_the_trace_gives(trace: Path, tmp_path: Path) -> None:
    ceilings = read_ceilings(CEILINGS) if trace.parent == CPU_RUN else None
    path = _copy(trace, tmp_path / "t")
    direct = analyze_trace(path, None, ceilings)
    write_work(direct.work, path, path.parent)
    stored = read_work(path.parent, path)
    assert stored is not None
    assert_frame_equal(stored.points, direct.work.points)
    assert stored.launch_calls_us == direct.work.launch_calls_us
    _same(direct, analysis_of_work(stored, path, None, ceilings))


def test_a_file_that_is_not_current_is_never_read(tmp_path: Path) -> None:
    path = _copy(REAL_TRACES / "hta__amd_mi250_minitoy_train.json.gz", tmp_path / "t")
    folder = path.parent
    assert stored_state(folder, path) == "missing"
    written = write_work(work(path, folder), path, folder)
    assert stored_state(folder, path) == "current"
    # another analysis version
    meta = json.loads(pl.read_parquet_metadata(written)[WORK_KEY])
    points = pl.read_parquet(written)
    points.write_parquet(written, metadata={WORK_KEY: json.dumps({**meta, "version": 0})})
    assert stored_state(folder, path).startswith("version 0, now ")
    assert read_work(folder, path) is None
    # another trace
    write_work(work(path, folder), path, folder)
    other = _copy(REAL_TRACES / "hta__triton_example__a100.json.gz", tmp_path / "t")
    assert stored_state(folder, other) == "the trace changed"
    assert read_work(folder, other) is None
    assert work(other, folder).kernel_count == analyze_trace(other).kernels
    # not a Parquet file at all
    (folder / WORK_FILE).write_text("torn")
    assert stored_state(folder, other) == "unreadable"


def test_measure_stores_the_work_of_its_profiled_step(tmp_path: Path) -> None:
    path = _copy(CPU_RUN / "trace.json.gz", tmp_path / "run")
    layer_times(path)
    assert stored_state(path.parent, path) == "current"


def test_trace_work_command_stores_what_is_missing_and_goes_on_past_a_bad_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    measurements = tmp_path / "m"
    good = _copy(CPU_RUN / "trace.json.gz", measurements / "runs" / "good")
    imported = _copy(
        REAL_TRACES / "hta__triton_example__a100.json.gz", measurements / "imported" / "i"
    )
    bad = measurements / "runs" / "bad" / "trace.json.gz"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"\x1f\x8b not gzip")
    args = ["trace-work", "--measurements", str(measurements)]
    assert main([*args, "--check"]) == 1
    assert "3 traces, 3 without current stored work" in capsys.readouterr().out
    assert main(args) == 1  # the bad one failed, the others were stored
    captured = capsys.readouterr()
    assert "the gzip stream is broken" in captured.err and str(bad) in captured.err
    assert "3 traces: 2 stored, 1 failed" in captured.out
    assert stored_state(good.parent, good) == stored_state(imported.parent, imported) == "current"
    assert not (bad.parent / WORK_FILE).exists()
    bad.unlink()
    assert main([*args, "--check"]) == 0


def test_the_build_names_only_the_traces_it_reads_without_stored_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Traces whose view is cached are not read, so their stored work is not asked about.
    from generator.site.analyse import _say_unstored
    from generator.site.load import LoadedTrace

    trace = tmp_path / "run" / "trace.json.gz"
    trace.parent.mkdir()
    shutil.copy(REAL_TRACES / "hta__triton_example__a100.json.gz", trace)
    _say_unstored([], 1000)
    assert capsys.readouterr().err == ""
    _say_unstored([LoadedTrace("run-x", trace)], 1000)
    assert "report: 1 of 1000 traces have no current stored analysis (1 missing)" in (
        capsys.readouterr().err
    )
