"""rocprofv3 JSON through the Nsight Systems capture's path: read (generator/ingest/rocprof/),
analysed, summarized, imported and shown on its page.

The real file's numbers are pinned against the same file read here with `gzip`, `json` and
plain arithmetic on its integer nanoseconds; the record kinds it lacks (copies, HIP calls,
roctx ranges, counters) on a document written to rocprofv3's layout (tests/rocprof_json.py),
against numbers worked out by hand from its records."""

from __future__ import annotations

import csv
import gzip
import itertools
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from generator.analysis.nsys_analysis import GAP_MIN_S
from generator.cli import main
from generator.errors import UserError
from generator.ingest.formats import ROCPROF_JSON, sniff
from generator.ingest.nsys.capture import is_nsys, nsys_files, read_nsys
from generator.ingest.rocprof import looks_like_rocprofv3, looks_like_rocprofv3_csv, read_rocprofv3
from generator.ingest.trace.read import looks_like_trace
from generator.pages.nsys_page import nsys_page
from generator.records.import_source import discover_nsys
from generator.site.captures import nsys_views
from generator.summaries.nsys import format_nsys_summary, summarize_nsys
from tests import fuzz_nsys
from tests.rocprof_json import REAL, real_cut, real_document, synthetic, write

GAP_NS = round(GAP_MIN_S * 1e9)


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


@pytest.fixture(scope="module")
def real() -> dict[str, Any]:
    return real_document()


@pytest.fixture(scope="module")
def real_summary() -> dict[str, Any]:
    return summarize_nsys([REAL])


def test_the_real_file_is_told_apart_by_its_head_alone(tmp_path: Path) -> None:
    plain = tmp_path / "908_results.json"
    plain.write_bytes(gzip.decompress(REAL.read_bytes()))
    for path in (REAL, plain):
        assert looks_like_rocprofv3(path) and is_nsys(path)
        # torch.profiler's sniffer takes any JSON: the registry's order gives it to rocprofv3
        assert looks_like_trace(path) and sniff(path) is ROCPROF_JSON
    chrome = tmp_path / "trace.json"
    chrome.write_text('{"traceEvents": [], "rocprofiler-sdk-tool": []}')
    assert looks_like_trace(chrome) and not looks_like_rocprofv3(chrome)
    # the sniff reads the head only: a file cut after it is still recognised, then refused
    cut = tmp_path / "cut.json"
    cut.write_bytes(plain.read_bytes()[:10_000])
    assert looks_like_rocprofv3(cut)
    with pytest.raises(UserError, match="not valid JSON") as caught:
        read_nsys([cut])
    assert caught.value.file == str(cut) and caught.value.fix
    assert nsys_files([tmp_path]) == sorted([cut, plain])


def test_real_kernel_time_dispatches_and_names(
    real: dict[str, Any], real_summary: dict[str, Any]
) -> None:
    (process,) = real["rocprofiler-sdk-tool"]
    dispatches = process["buffer_records"]["kernel_dispatch"]
    assert len(dispatches) == 43_915  # as PROVENANCE.md states
    symbols = {s["kernel_id"]: s["formatted_kernel_name"] for s in process["kernel_symbols"]}
    count: dict[str, int] = defaultdict(int)
    time_ns: dict[str, int] = defaultdict(int)
    for record in dispatches:
        name = symbols[record["dispatch_info"]["kernel_id"]]
        count[name] += 1
        time_ns[name] += record["end_timestamp"] - record["start_timestamp"]
    assert real_summary["kernel_time_s"] == pytest.approx(sum(time_ns.values()) * 1e-9, rel=1e-12)
    kernels = {row["name"]: row for row in real_summary["kernels"]}
    assert sum(row["count"] for row in kernels.values()) == len(dispatches)
    assert set(kernels) == set(count)
    for name, row in kernels.items():
        assert row["count"] == count[name]
        assert row["time_s"] == pytest.approx(time_ns[name] * 1e-9, rel=1e-9)
    top = real_summary["kernels"][0]
    assert top["name"] == max(time_ns, key=lambda n: time_ns[n])
    assert top["name"].startswith("ncclDevKernel_Generic_1")  # RCCL: 94 % of the kernel time


def test_real_busy_time_utilization_and_idle_gaps_per_gpu(
    real: dict[str, Any], real_summary: dict[str, Any]
) -> None:
    (process,) = real["rocprofiler-sdk-tool"]
    dispatches = process["buffer_records"]["kernel_dispatch"]
    spans: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for record in dispatches:
        handle = record["dispatch_info"]["agent_id"]["handle"]
        spans[handle].append((record["start_timestamp"], record["end_timestamp"]))
    agents = {a["id"]["handle"]: a for a in process["agents"]}
    wall_ns = max(e for s in spans.values() for _, e in s) - min(
        b for s in spans.values() for b, _ in s
    )  # the file holds kernel dispatches only: the capture's span is theirs
    rows = {row["device"]: row for row in real_summary["gpus"]}
    assert len(rows) == len(spans) == 1  # 8 GPU agents listed; the process ran on one
    for handle, intervals in spans.items():
        agent = agents[handle]
        row = rows[agent["gpu_index"]]
        busy = _union(intervals)
        gaps = [b[0] - a[1] for a, b in itertools.pairwise(busy) if b[0] - a[1] >= GAP_NS]
        assert row["name"] == agent["product_name"] == "AMD Instinct MI350X"
        assert row["wall_s"] == pytest.approx(wall_ns * 1e-9, rel=1e-12)
        assert row["busy_s"] == pytest.approx(sum(e - s for s, e in busy) * 1e-9, rel=1e-9)
        assert row["utilization"] == pytest.approx(sum(e - s for s, e in busy) / wall_ns)
        assert row["idle_gaps"] == len(gaps)
        assert row["longest_gap_s"] == pytest.approx(max(gaps) * 1e-9, rel=1e-9)
        assert row["idle_in_gaps_s"] == pytest.approx(sum(gaps) * 1e-9, rel=1e-9)
    # what the reader writes beside them: nothing else was traced
    assert real_summary["reports"] == ["kernels"] and real_summary["counters"] == []
    assert real_summary["device_names"] == ["AMD Instinct MI350X"]


def test_real_summary_speaks_rocprofv3(real_summary: dict[str, Any]) -> None:
    assert real_summary["format"] == "rocprofv3 capture"
    assert real_summary["form"] == "rocprofv3 JSON"
    text = format_nsys_summary(real_summary)
    for word in ("Nsight", "nsys", "NVTX", "CUDA API", "ncu"):
        assert word not in text, word
    assert "rocprofv3 --runtime-trace --output-format json" in text
    ids = [f["id"] for f in real_summary["findings"]]
    # no roctx range marks a step: the whole capture's idle time (start-up included) is no
    # host-bound claim (issue 51)
    assert ids == ["dominant-kernel"]
    # RCCL's kernel, 93.6 % of the time: communication, for which no roofline point applies
    dominant = real_summary["findings"][0]
    assert "(communication)" in dominant["evidence"]
    assert dominant["fix"].startswith("this is collective communication")
    families = {f["family"]: f for f in real_summary["families"]}
    assert families["communication"]["count"] == 1310


def test_the_host_bound_fix_speaks_hip() -> None:
    from generator.analysis.nsys_analysis import analyse_nsys
    from generator.findings.nsys_checks import host_fix

    fix = host_fix(analyse_nsys(read_nsys([REAL])))
    assert "HIP graphs (torch.cuda graphs on ROCm)" in fix and "CUDA graphs" not in fix
    assert "nsys" not in fix


def test_summarize_import_and_page_of_the_real_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["summarize", str(REAL), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["form"] == "rocprofv3 JSON"
    args = ["import", str(REAL), "--name", "mi350x-aorta", "--measurements", str(tmp_path)]
    assert main(args) == 0
    folder = tmp_path / "imported" / "mi350x-aorta"
    assert (folder / "nsys" / REAL.name).read_bytes() == REAL.read_bytes()  # verbatim
    (found,) = discover_nsys(tmp_path)
    assert found.source.device == "mi350x"  # the agents' product name, matched to the catalog
    assert found.source.title.endswith("(rocprofv3 JSON)")
    from generator.catalog import load_catalog

    (view,) = nsys_views([found], load_catalog())
    assert view.device_name == "AMD Instinct MI350X"
    assert view.analysis.kernel_time_s == pytest.approx(summary["kernel_time_s"])
    page = nsys_page(view).markdown
    assert "Imported rocprofv3 capture (rocprofv3 JSON)" in page
    assert "methodology.md#rocprofv3-captures" in page
    for word in ("Nsight", "nsys", "NVTX", "CUDA"):
        assert word not in page, word
    assert "## Hardware counters" in page and "--pmc" in page  # none collected: how to


def test_every_record_kind_of_the_layout(tmp_path: Path) -> None:
    path = write(synthetic(), tmp_path / "results.json")
    summary = summarize_nsys([path])
    assert summary["reports"] == ["kernels", "api", "memtime", "memsize", "nvtx"]
    gpus = {row["device"]: row for row in summary["gpus"]}
    # GPU 0: copies 0.90-0.95 and 2.60-2.61 ms, kernels 1.00-1.40, 1.45-1.85 with 1.80-1.90
    # overlapping it, 2.50-2.52: busy 0.05 + 0.40 + 0.45 + 0.02 + 0.01 = 0.93 ms; one gap of
    # 100 us or more (1.90 to 2.50). The capture: 0.90 (first copy) to 2.70 ms (the range).
    assert gpus[0]["busy_s"] == pytest.approx(0.93e-3)
    assert gpus[0]["wall_s"] == pytest.approx(1.80e-3)
    assert (gpus[0]["idle_gaps"], gpus[0]["longest_gap_s"]) == (1, pytest.approx(0.6e-3))
    assert gpus[1]["busy_s"] == pytest.approx(0.1e-3) and gpus[1]["name"] == "AMD Instinct MI350X"
    copies = {row["operation"]: row for row in summary["copies"]}
    assert copies["Host-to-Device"]["bytes"] == 4e6
    assert copies["Host-to-Device"]["bandwidth_bytes_per_s"] == pytest.approx(4e6 / 50e-6)
    assert copies["Device-to-Host"]["bytes"] == 1e6
    assert [(r["name"], r["count"]) for r in summary["api"]] == [("hipLaunchKernel", 2)]
    assert summary["api"][0]["time_s"] == pytest.approx(
        10.5e-6 + 1e-6
    )  # 0.990-1.0005, 1.440-1.441 ms
    (step,) = summary["ranges"]
    assert step["range"] == "train_step" and step["time_s"] == pytest.approx(1.75e-3)
    # any GPU busy inside 0.95-2.70 ms: GPU 1's 1.2-1.3 lies inside GPU 0's 1.0-1.4
    assert step["gpu_busy_s"] == pytest.approx(0.88e-3)
    assert step["h2d_copies"] == 0  # the copy starts at 0.90, before the range
    counters = {(r["kernel"].split("(")[0], r["counter"]): r for r in summary["counters"]}
    gemm = "Cijk_Ailk_Bljk_HHS_BH_MT128x128x64_MI32x32x8_SN"
    add = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>"
    # per dispatch, a counter's dimensions summed: (100 + 101) + (300 + 301)
    assert counters[(gemm, "SQ_INSTS_VALU")]["total"] == 802.0
    assert counters[(gemm, "SQ_INSTS_VALU")]["dispatches"] == 2
    assert counters[(gemm, "SQ_INSTS_VALU")]["mean"] == 401.0
    assert counters[(gemm, "FETCH_SIZE")]["total"] == 2.5 * 100 + 2.5 * 300
    assert counters[(add, "SQ_INSTS_VALU")]["total"] == 81.0
    families = {row["family"] for row in summary["families"]}
    assert families == {"gemm", "elementwise"}
    text = format_nsys_summary(summary)
    assert "top HIP API calls" in text and "roctx ranges" in text and "SQ_INSTS_VALU" in text


def test_the_page_lists_the_counters(tmp_path: Path) -> None:
    path = write(synthetic(), tmp_path / "r.json.gz", zipped=True)
    args = ["import", str(path), "--name", "syn", "--measurements", str(tmp_path)]
    assert main(args) == 0
    from generator.catalog import load_catalog

    (view,) = nsys_views(discover_nsys(tmp_path), load_catalog())
    page = nsys_page(view)
    assert "SQ_INSTS_VALU" in page.markdown and "## HIP API calls" in page.markdown
    assert "## roctx ranges" in page.markdown and "train_step" in page.markdown
    assert page.tables["counters"].height == 4


def _damaged(document: dict[str, Any], tmp_path: Path) -> UserError:
    path = write(document, tmp_path / "results.json")
    with pytest.raises(UserError) as caught:
        read_rocprofv3(path)
    assert caught.value.file == str(path) and caught.value.fix
    return caught.value


def test_bad_input_names_the_file_the_key_and_the_fix(tmp_path: Path) -> None:
    empty = synthetic()
    empty["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"] = []
    empty["rocprofiler-sdk-tool"][0]["buffer_records"]["memory_copy"] = []
    error = _damaged(empty, tmp_path)
    assert "no kernel dispatch" in error.what and error.key is not None
    assert "kernel_dispatch" in error.key and "--runtime-trace" in (error.fix or "")
    assert "rocprofiler-sdk-tool" in _damaged({"rocprofiler-sdk-tool": {}}, tmp_path).what
    unknown = synthetic()
    del unknown["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"][2]["end_timestamp"]
    error = _damaged(unknown, tmp_path)
    assert error.key == "rocprofiler-sdk-tool[0].buffer_records.kernel_dispatch[2]"
    assert "layout this reader knows" in error.what
    reversed_ = synthetic()
    record = reversed_["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"][0]
    record["start_timestamp"], record["end_timestamp"] = record["end_timestamp"], 1
    assert "ends" in _damaged(reversed_, tmp_path).what
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(REAL.read_bytes()[:100_000])
    with pytest.raises(UserError, match="gzip stream is broken"):
        read_rocprofv3(cut)


def test_what_the_analysis_does_not_use_may_be_anything(tmp_path: Path) -> None:
    document = real_cut(100)
    process = document["rocprofiler-sdk-tool"][0]
    process["summary"] = "not a list"
    process["code_objects"] = None
    process["strings"] = {"buffer_records": 7}
    process["buffer_records"]["hsa_api"] = [{"what": "unknown"}]
    process["metadata"] = {"version": "99.0", "new": {"nested": [1, 2]}}
    summary = summarize_nsys([write(document, tmp_path / "r.json")])
    dispatches = process["buffer_records"]["kernel_dispatch"]
    assert sum(row["count"] for row in summary["kernels"]) == len(dispatches) == 100
    assert summary["kernel_time_s"] == pytest.approx(
        sum(r["end_timestamp"] - r["start_timestamp"] for r in dispatches) * 1e-9
    )
    assert summary["device_names"] == ["AMD Instinct MI350X"]
    assert summary["api"] == []  # strings gone: the kernel names come from kernel_symbols


def test_short_rocprofv3_fuzz_run_finds_no_crash(tmp_path: Path) -> None:
    import random

    rng = random.Random(20261126)
    documents = fuzz_nsys.rocprof_seeds()
    for _ in range(150):
        (tmp_path / "case").mkdir(exist_ok=True)
        path = fuzz_nsys.rocprof_case(rng, tmp_path / "case", documents)
        try:
            fuzz_nsys.exercise([path])
        except UserError as error:
            assert error.file == str(path)  # each refusal names the file


KERNEL_CSV = REAL.parent / "jimw567__rocprof-unified-viewer__decode_kernel_trace.csv"


def test_the_real_kernel_trace_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with KERNEL_CSV.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 144 and {r["Agent_Id"] for r in rows} == {"Agent 1"}
    assert looks_like_rocprofv3_csv(KERNEL_CSV) and is_nsys(KERNEL_CSV)
    assert not looks_like_rocprofv3(KERNEL_CSV) and not looks_like_rocprofv3_csv(REAL)
    summary = summarize_nsys([KERNEL_CSV])
    assert summary["form"] == "rocprofv3 kernel trace CSV" and summary["reports"] == ["kernels"]
    count: dict[str, int] = defaultdict(int)
    time_ns: dict[str, int] = defaultdict(int)
    for row in rows:
        count[row["Kernel_Name"]] += 1
        time_ns[row["Kernel_Name"]] += int(row["End_Timestamp"]) - int(row["Start_Timestamp"])
    kernels = {row["name"]: row for row in summary["kernels"]}
    assert {n: r["count"] for n, r in kernels.items()} == dict(count)
    for name, row in kernels.items():
        assert row["time_s"] == pytest.approx(time_ns[name] * 1e-9, rel=1e-12)
    spans = [(int(r["Start_Timestamp"]), int(r["End_Timestamp"])) for r in rows]
    busy = _union(spans)
    gaps = [b[0] - a[1] for a, b in itertools.pairwise(busy) if b[0] - a[1] >= GAP_NS]
    (gpu,) = summary["gpus"]
    assert gpu["device"] == 1 and gpu["name"] == "not recorded"  # "Agent 1"; no name in it
    assert gpu["busy_s"] == pytest.approx(sum(e - s for s, e in busy) * 1e-9, rel=1e-12)
    wall = max(e for _, e in spans) - min(s for s, _ in spans)
    assert gpu["wall_s"] == pytest.approx(wall * 1e-9, rel=1e-12)
    assert gpu["idle_gaps"] == len(gaps)
    assert gpu["longest_gap_s"] == pytest.approx(max(gaps) * 1e-9, rel=1e-12)
    assert "kernel trace CSV holds kernels only" in " ".join(summary["missing"])
    args = ["import", str(KERNEL_CSV), "--name", "csv", "--measurements", str(tmp_path)]
    assert main(args) == 1
    error = capsys.readouterr().err
    assert "rocprofv3's kernel trace names no GPU" in error and "pass --device" in error
    assert not (tmp_path / "imported" / "csv").exists()


def test_a_damaged_kernel_trace_csv(tmp_path: Path) -> None:
    lines = KERNEL_CSV.read_text().splitlines(keepends=True)
    reversed_ = tmp_path / "kernel_trace.csv"
    fields = lines[3].split('","')
    fields[9], fields[10] = fields[10], fields[9]  # End before Start
    reversed_.write_text("".join([*lines[:3], '","'.join(fields), *lines[4:]]))
    with pytest.raises(UserError, match="line 4: Start_Timestamp") as caught:
        read_nsys([reversed_])
    assert caught.value.file == str(reversed_) and caught.value.fix
    header_only = tmp_path / "empty_kernel_trace.csv"
    header_only.write_text(lines[0])
    with pytest.raises(UserError, match="no KERNEL_DISPATCH row"):
        read_nsys([header_only])


@pytest.mark.site
def test_the_imported_rocprofv3_capture_has_its_page(repo_site: Path) -> None:
    """The committed import of TraceLens's MI350X capture: linked from the Traces index, its
    GPU named, its kernels by name, and what rocprofv3 did not record."""
    page = (
        repo_site / "measurements" / "traces" / "mi350x-rocprofv3-tracelens" / "index.html"
    ).read_text(encoding="utf-8")
    assert "Imported rocprofv3 capture (rocprofv3 JSON)" in page
    assert "AMD Instinct MI350X" in page and "ncclDevKernel_Generic_1" in page
    assert "rocprofv3 --runtime-trace" in page  # what to record for copies and HIP calls
    index = (repo_site / "measurements" / "traces" / "index.html").read_text(encoding="utf-8")
    assert 'href="mi350x-rocprofv3-tracelens/"' in index


def test_a_capture_is_read_once_per_content_of_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a build, a capture's analysis is kept under its files' paths and digests: the
    next build reads nothing, and a changed file is read again."""
    import generator.site.captures as captures
    from generator.store import Store, storing_in

    folder = tmp_path / "capture"
    (folder / "nsys").mkdir(parents=True)
    write(synthetic(), folder / "nsys" / "results.json")
    reads: list[object] = []

    def counted(paths: Any) -> Any:
        reads.append(paths)
        return read_nsys(paths)

    monkeypatch.setattr(captures, "read_nsys", counted)
    with storing_in(Store(tmp_path / "cache")):
        first = captures.nsys_analysis(folder)
        again = captures.nsys_analysis(folder)
        assert len(reads) == 1
        assert again.kernel_time_s == first.kernel_time_s
        assert again.capture.files == first.capture.files
        document = synthetic()
        document["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"].pop()  # GPU 1's
        write(document, folder / "nsys" / "results.json")
        changed = captures.nsys_analysis(folder)
    assert len(reads) == 2 and changed.kernel_time_s != first.kernel_time_s
    assert captures.nsys_analysis(folder).kernel_time_s == changed.kernel_time_s  # no store
    assert len(reads) == 3
