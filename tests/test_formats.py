"""The input formats registry (generator/ingest/formats.py): every real file under
tests/data is sniffed to its own format, no two specific sniffers claim one file, and a
broad sniffer comes after every format it would also claim. Then the format that went in
through the registry alone, `nsys stats --format json`, end to end on the real reports of
tests/data/nsys/stats-json-miniweather/: sniff, read, summarize (numbers checked against
the file, and against the SQLite export of the same capture), import, and the report's
page of the imported capture."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from generator.catalog import load_catalog
from generator.cli import main
from generator.errors import UserError
from generator.ingest.formats import (
    FORMATS,
    NCU_CSV,
    NCU_REPORT,
    NSYS_REPORT,
    ROCPROF_CSV,
    ROCPROF_JSON,
    SQLITE,
    STATS_CSV,
    STATS_JSON,
    TORCH_TRACE,
    InputFormat,
    claimants,
    sniff,
)
from generator.ingest.nsys.capture import read_nsys
from generator.ingest.nsys.stats_json import read_stats_json
from generator.pages.nsys_page import nsys_page
from generator.records.import_source import discover_nsys
from generator.site.captures import nsys_views
from generator.summaries.nsys import summarize_nsys

DATA = Path(__file__).parent / "data"
JSON_DIR = DATA / "nsys" / "stats-json-miniweather"
KERNELS = JSON_DIR / "miniweather_cuda_gpu_kern_sum.json"
API = JSON_DIR / "miniweather_cuda_api_sum.json"
SQLITE_EXPORT = DATA / "nsys" / "NCAR__GPU_workshop__miniweather_baseline.sqlite"

# The real files (each folder's PROVENANCE.md says where each came from), by format.
REAL: dict[InputFormat, list[Path]] = {
    NCU_REPORT: sorted((DATA / "ncu-rep").glob("*.ncu-rep")),
    NSYS_REPORT: sorted((DATA / "nsys" / "binary").glob("*.nsys-rep")),
    SQLITE: sorted((DATA / "nsys").rglob("*.sqlite")),
    ROCPROF_JSON: sorted((DATA / "rocprof").glob("*.json.gz")),
    STATS_JSON: sorted((DATA / "nsys").glob("stats-json-*/*.json")),
    TORCH_TRACE: sorted((DATA / "traces").rglob("*.json.gz")),
    ROCPROF_CSV: sorted((DATA / "rocprof").glob("*.csv")),
    STATS_CSV: sorted((DATA / "nsys").glob("*/*.csv")),
    NCU_CSV: sorted((DATA / "ncu").glob("*.csv")),
}
FILES = [(f, path) for f, paths in REAL.items() for path in paths]


def test_every_format_has_real_files_and_a_fuzzer() -> None:
    assert set(REAL) == set(FORMATS)
    for found, paths in REAL.items():
        assert paths, found.name
        assert importlib.util.find_spec(found.fuzz) is not None, (found.name, found.fuzz)
    assert len({f.name for f in FORMATS}) == len(FORMATS)


@pytest.mark.parametrize(("own", "path"), FILES, ids=[p.name for _, p in FILES])
def test_a_real_file_sniffs_to_its_own_format(own: InputFormat, path: Path) -> None:
    assert sniff(path) is own
    claims = list(claimants(path))
    # no two specific sniffers claim it; a broad one that also does comes later in the order
    assert [f for f in claims if not f.broad] == ([] if own.broad else [own])
    assert all(FORMATS.index(f) >= FORMATS.index(own) for f in claims)


def test_the_order_is_what_the_broad_sniffers_need() -> None:
    """A broad sniffer takes files of the formats before it: taken out of the order, the
    torch.profiler trace's would read rocprofv3's and nsys stats' JSON as traces."""
    for path in REAL[ROCPROF_JSON] + REAL[STATS_JSON]:
        assert TORCH_TRACE.sniff(path)
        assert FORMATS.index(TORCH_TRACE) > FORMATS.index(sniff(path))  # type: ignore[arg-type]
    broad = [FORMATS.index(f) for f in FORMATS if f.broad]
    # every broad sniffer after every binary one (magic bytes must win)
    for binary in (NCU_REPORT, NSYS_REPORT, SQLITE):
        assert all(FORMATS.index(binary) < i for i in broad)


def _rows(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return rows


def test_the_stats_json_reader_converts_units() -> None:
    kernels = read_stats_json(KERNELS)
    assert kernels.kind == "kernels"
    first = kernels.rows[0]
    # the file's first row, by hand: "Total Time (ns)": 24454637, "Instances": 288
    assert (first.name, first.count) == ("compute_tendencies_z_334_gpu", 288)
    assert first.total_s == pytest.approx(24_454_637e-9, rel=1e-15)
    api = read_stats_json(API)
    assert api.kind == "api" and len(api.rows) == 14


@pytest.fixture(scope="module")
def summary() -> dict[str, Any]:
    return summarize_nsys([KERNELS, API])


def test_summarize_of_the_real_reports(summary: dict[str, Any]) -> None:
    kernels, api = _rows(KERNELS), _rows(API)
    assert summary["form"] == "nsys stats JSON"
    assert summary["reports"] == ["kernels", "api"]
    # by hand from the file: 10 kernel names, 2,596 launches, 60,322,982 ns
    assert sum(r["Instances"] for r in kernels) == 2596
    assert sum(r["Total Time (ns)"] for r in kernels) == 60_322_982
    assert summary["kernel_time_s"] == pytest.approx(60_322_982e-9, rel=1e-12)
    assert {k["name"]: k["count"] for k in summary["kernels"]} == {
        r["Name"]: r["Instances"] for r in kernels
    }
    assert {a["name"]: a["count"] for a in summary["api"]} == {
        r["Name"]: r["Num Calls"] for r in api
    }
    # every kernel launch is one cuLaunchKernel call (OpenACC launches through the driver)
    launches = next(a for a in summary["api"] if a["name"] == "cuLaunchKernel")
    assert launches["count"] == 2596
    assert launches["time_s"] == pytest.approx(9_786_512e-9, rel=1e-12)


def test_the_json_reports_agree_with_the_export_they_were_made_from(
    summary: dict[str, Any],
) -> None:
    """nsys stats wrote the JSON from the SQLite export beside it (PROVENANCE.md): the same
    kernels, launches and time, read by two readers."""
    export = summarize_nsys([SQLITE_EXPORT])
    assert export["kernel_time_s"] == pytest.approx(summary["kernel_time_s"], rel=1e-12)
    by_name = {k["name"]: (k["count"], k["time_s"]) for k in export["kernels"]}
    for kernel in summary["kernels"]:
        count, time_s = by_name[kernel["name"]]
        assert kernel["count"] == count
        assert kernel["time_s"] == pytest.approx(time_s, rel=1e-12)


def test_summarize_and_import_reach_it_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["summarize", str(KERNELS), str(API), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["form"] == "nsys stats JSON" and printed["kernels"][0]["count"] == 288
    name = "miniweather-stats-json"
    args = ["import", str(KERNELS), str(API), "--name", name, "--measurements", str(tmp_path)]
    # the reports name no GPU, so --device is needed; the capture ran on a Quadro GP100,
    # which the catalog lacks: any catalog id serves this test
    args += ["--device", "a100-40gb-sxm"]
    assert main(args) == 0
    capsys.readouterr()
    folder = tmp_path / "imported" / name
    for path in (KERNELS, API):
        assert (folder / "nsys" / path.name).read_bytes() == path.read_bytes()  # verbatim
    (found,) = discover_nsys(tmp_path)  # the report's kind finds it
    assert found.source.title == f"{name} (Nsight Systems, nsys stats JSON)"
    (view,) = nsys_views([found], load_catalog())
    assert view.analysis.kernel_time_s == pytest.approx(60_322_982e-9, rel=1e-12)
    page = nsys_page(view).markdown
    assert "compute_tendencies_z_334_gpu" in page and "nsys stats JSON" in page


def test_mixed_csv_and_json_reports_of_one_capture_are_one_capture(tmp_path: Path) -> None:
    csv = DATA / "nsys" / "cuda-link-producer" / "producer_nvtx_sum.csv"
    capture = read_nsys([KERNELS, csv])
    assert capture.form == "nsys stats CSV and nsys stats JSON"
    assert capture.reports == ("kernels", "nvtx")
    with pytest.raises(UserError, match="a second cuda_gpu_kern_sum"):
        read_nsys([KERNELS, DATA / "nsys" / "cudalm-agent-2022.4.2" /
                   "v07_batched_nsys_kernel_summary_gpukernsum.csv"])  # fmt: skip


@pytest.mark.parametrize(
    ("text", "message", "key"),
    [
        ("", None, None),  # an empty file is no report: sniffed as none
        ('[{"Time (%)": 1, "Total Time (ns)": -5, "Instances": 1, "Name": "k"}]',
         "-5 is not a number of zero or more", "[0].Total Time (ns)"),
        ('[{"Time (%)": 1, "Total Time (ns)": 5, "Instances": 1.5, "Name": "k"}]',
         "1.5 is not a count", "[0].Instances"),
        ('[{"Time (%)": 1, "Total Time (ns)": 5, "Num Calls": 1, "Name": "sem_wait"}]',
         "not CUDA's", None),
        ('[{"Time (%)": 1, "Bytes": 5}]', "a kind not read here", "[0]"),
        ('[{"Time (%)": 1, "Total Time (ns)": 5, "Instances": 1, "Name": "k"}', "invalid JSON",
         None),
    ],
)  # fmt: skip
def test_bad_reports_name_the_file_the_key_and_the_fix(
    tmp_path: Path, text: str, message: str | None, key: str | None
) -> None:
    path = tmp_path / "report.json"
    path.write_text(text, encoding="utf-8")
    if message is None:
        assert sniff(path) is None
        with pytest.raises(UserError, match="report is empty"):
            read_stats_json(path)
        return
    assert sniff(path) is STATS_JSON
    with pytest.raises(UserError, match=message) as caught:
        read_nsys([path])
    assert caught.value.file == str(path) and caught.value.fix
    if key is not None:
        assert caught.value.key == key
