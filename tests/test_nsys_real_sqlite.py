"""Real Nsight Systems SQLite exports of two versions (tests/data/nsys/cpu-nvtx-2022.4.2/ and
cpu-nvtx-2023.4.4/, recorded on this project's VM with NVTX tracing, no GPU): read through
the same path as any export, their ranges equal what a plain SQL query of the file says,
and a capture that traced no CUDA is not called idle or host-bound."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from generator.analysis.nsys_analysis import analyse_nsys
from generator.cli import main
from generator.findings.nsys_checks import nsys_findings
from generator.ingest.nsys.capture import read_nsys
from generator.ingest.nsys.sqlite import read_sqlite
from tests.helpers import REPO

NSYS = REPO / "tests" / "data" / "nsys"
CAPTURES = [
    NSYS / "cpu-nvtx-2022.4.2" / "capture.sqlite",
    NSYS / "cpu-nvtx-2023.4.4" / "capture.sqlite",
]


def _ranges_by_sql(path: Path) -> dict[str, tuple[int, float]]:
    """Each NVTX range's count and summed seconds, straight from the file: push/pop and
    start/end ranges (the ENUM_NSYS_EVENT_TYPE table names their numbers)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    kinds = dict(db.execute("SELECT name, id FROM ENUM_NSYS_EVENT_TYPE"))
    rows = db.execute(
        "SELECT COALESCE(e.text, s.value), COUNT(*), SUM(e.end - e.start) FROM NVTX_EVENTS e "
        "LEFT JOIN StringIds s ON s.id = e.textId WHERE e.eventType IN (?, ?) "
        "GROUP BY 1",
        (kinds["NvtxPushPopRange"], kinds["NvtxStartEndRange"]),
    ).fetchall()
    db.close()
    return {name: (count, total / 1e9) for name, count, total in rows}


@pytest.mark.parametrize("capture_file", CAPTURES, ids=lambda p: p.parent.name)
def test_the_real_exports_ranges_equal_a_plain_query(capture_file: Path) -> None:
    expected = _ranges_by_sql(capture_file)
    assert set(expected) == {"train_step", "forward", "backward", "optimizer", "data"}
    assert {name: count for name, (count, _) in expected.items()} == dict.fromkeys(expected, 5)
    capture = read_nsys([capture_file])
    assert capture.form == "SQLite export" and capture.reports == ("nvtx",)
    ranges = {r["range"]: r for r in analyse_nsys(capture).ranges.iter_rows(named=True)}
    for name, (count, seconds) in expected.items():
        assert ranges[name]["count"] == count
        assert ranges[name]["time_s"] == pytest.approx(seconds, rel=1e-12)
    # each step holds its phases: the step's time is at least theirs
    phases = sum(expected[p][1] for p in ("forward", "backward", "optimizer"))
    assert expected["train_step"][1] >= phases


@pytest.mark.parametrize("capture_file", CAPTURES, ids=lambda p: p.parent.name)
def test_a_capture_without_cuda_tracing_is_not_called_idle(
    capture_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = read_sqlite(capture_file)
    assert export.kernels.start == [] and export.gpus == {} and export.traced == ("nvtx",)
    analysis = analyse_nsys(read_nsys([capture_file]))
    assert not analysis.capture.gpu_traced
    assert analysis.ranges["utilization"].null_count() == analysis.ranges.height  # unknown, not 0
    assert nsys_findings(analysis) == []  # no host-bound step: the GPU was not recorded
    assert main(["summarize", str(capture_file)]) == 0
    text = capsys.readouterr().out
    assert "SQLite export: nvtx)" in text and "kernel time" not in text.split("not known")[0]
    assert "not traced in this capture" in text and "--trace=cuda,nvtx" in text
    assert main(["summarize", str(capture_file), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["findings"] == [] and summary["gpus"] == []


def test_the_page_of_a_capture_without_cuda_says_so(tmp_path: Path) -> None:
    from generator.catalog import load_catalog
    from generator.pages.nsys_page import nsys_page
    from generator.records.import_source import discover_nsys
    from generator.site.captures import nsys_views
    from generator.summaries.importer import ImportRequest
    from generator.summaries.nsys_import import import_nsys

    request = ImportRequest(file=CAPTURES[1], name="cpu", measurements=tmp_path)
    import_nsys(request, [CAPTURES[1]])
    (view,) = nsys_views(discover_nsys(tmp_path), load_catalog())
    assert view.device_name == "not recorded"  # no GPU traced: no --device asked for
    page = nsys_page(view)
    assert "This capture traced no GPU work" in page.markdown
    assert page.charts == {}  # no empty utilization timeline
    assert "<th>GPU busy</th>" not in page.markdown  # the ranges' GPU columns are unknown
    assert "<td>train_step</td><td>5</td>" in page.markdown
    assert "no kernel was traced" in page.markdown and "none was traced" in page.markdown
    assert "ra-copies" not in page.markdown  # no empty table


MINIWEATHER = NSYS / "NCAR__GPU_workshop__miniweather_baseline.sqlite"


def test_miniweather_capture_without_a_step_gets_no_host_bound_claim() -> None:
    """NCAR's miniWeather (OpenACC Fortran, Quadro GP100, nsys 2022.2): the GPU is busy a
    small share of the whole capture, which holds the program's start-up and no NVTX range
    marks a step: no step-level `host-bound` claim, and nowhere PyTorch's advice."""
    db = sqlite3.connect(f"file:{MINIWEATHER}?mode=ro", uri=True)
    kernels, kernel_ns = db.execute(
        "SELECT COUNT(*), SUM(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"
    ).fetchone()
    db.close()
    analysis = analyse_nsys(read_nsys([MINIWEATHER]))
    assert int(analysis.kernels["count"].sum()) == kernels == 2596
    assert analysis.kernel_time_s == pytest.approx(kernel_ns / 1e9, rel=1e-12)
    (gpu,) = analysis.gpus.iter_rows(named=True)  # type: ignore[union-attr]
    assert gpu["busy_s"] / gpu["wall_s"] < 0.3  # idle most of the capture, start-up included
    findings = nsys_findings(analysis)
    assert "host-bound" not in [f.id for f in findings]
    assert not any("DataLoader" in f.fix or "torch" in f.fix for f in findings)
