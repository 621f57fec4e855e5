"""Every file in tests/data/bad/ is a test: the exact error (or finding), and neither a
partial site nor a changed measurements/ folder."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from generator.config import load_experiments
from generator.errors import UserError
from generator.ingest import read_ncu_csv
from generator.summaries.export import summarize_file
from generator.summaries.trace import summarize_trace
from tests.conftest import build_report
from tests.helpers import REPO

BAD = Path(__file__).parent / "data" / "bad"

# file -> the message after "<path>" (", line N: ..." or ": ..."), up to the fix
CSV_ERRORS = {
    "binary.csv": ", line 1: this is a binary file, not a CSV export (NUL byte found)",
    "duplicate-header.csv": ", line 1: the header names a column twice: Process ID",
    "duplicate-kernel-conflict.csv": ", line 8: kernel ID 1 (process 100) has 2 different "
    "values for smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "empty.csv": ": the file is empty (0 bytes)",
    "huge-number-line.csv": ", line 4: metric smsp__sass_thread_inst_executed_op_ffma_pred_on.sum "
    "has the value '1000000000000000000000000000000000000...', which is not a finite number",
    "inf-value.csv": ", line 4: metric smsp__sass_thread_inst_executed_op_ffma_pred_on.sum has "
    "the value 'inf', which is not a finite number",
    "mixed-devices.csv": ", line 8: the export mixes compute capabilities (8.9, 8.0): kernels "
    "of different GPUs cannot share one roofline",
    "nan-value.csv": ", line 4: metric smsp__sass_thread_inst_executed_op_ffma_pred_on.sum has "
    "the value 'nan', which is not a finite number",
    "negative-bytes.csv": ", line 5: metric dram__bytes_read.sum has the negative value '-5': "
    "counts, bytes, times, clocks and percentages cannot be negative",
    "no-header.csv": ': no ncu CSV header found (a line starting with "ID","Process ID",...) in '
    "the first 6 lines",
    "truncated-row.csv": ", line 7: the row is truncated: 12 fields, at least 15 expected",
    "unknown-unit-raw.csv": ", line 2: the units row gives metric gpu__time_duration.sum the "
    "unknown unit 'furlong'",
    "utf16.csv": ": the file is UTF-16 encoded; ncu CSV exports are UTF-8",
}
TOML_ERRORS = {
    "experiments-wrong-type.toml": ", key 'groups[0].batch_sizes': Input should be a valid "
    "list (got '32, 64')",
    "experiments-unknown-key.toml": ", key 'defaults.iteration': Extra inputs are not permitted "
    "(got 10)",
    "experiments-impossible.toml": ", key 'groups[0].precisions': precision 'tf32' is not "
    "measured on the CPU",
    "experiments-future.toml": ", key 'schema_version': schema_version 2 is newer than this "
    "tool reads (1)",
}
RUN_ERRORS = {
    "run-future-schema": ("run.json", ", key 'schema_version': schema_version 99 is newer "
                          "than this tool reads (4)"),
    "run-missing-steps": ("", ": run folder without steps.csv (its run.json says ok)"),
    "run-without-run-json": ("", ": run folder without run.json"),
}  # fmt: skip
TRACE_ERRORS = {
    "trace-truncated.json.gz": ": the gzip stream is broken (Compressed file ended before the "
    "end-of-stream marker was reached): the file was cut short or is not gzip",
    "trace-truncated.json": ", line 436: invalid JSON: Unterminated string starting at",
    "trace-not-a-trace.json": ", key 'traceEvents': not a Chrome trace: no traceEvents list",
    "trace-kernel-without-dur.json": ", key 'traceEvents[1].dur': traceEvents[1] (kernel) has "
    "no 'dur'",
    "trace-no-ops.json": ", key 'traceEvents': no op or kernel events: not a torch.profiler "
    "trace (categories seen: python_function (1))",
}
NOT_ERRORS = {"html-markdown-kernel-name.csv"}


def test_every_corpus_file_has_an_expectation() -> None:
    names = {p.name for p in BAD.iterdir()}
    expected = set(CSV_ERRORS) | set(TOML_ERRORS) | set(RUN_ERRORS) | set(TRACE_ERRORS)
    assert names == expected | NOT_ERRORS


@pytest.mark.parametrize("name", sorted(TRACE_ERRORS))
def test_bad_trace(name: str) -> None:
    path = BAD / name
    with pytest.raises(UserError) as caught:
        summarize_trace(path, None)
    assert first_line(caught.value) == f"{path}{TRACE_ERRORS[name]}"
    assert caught.value.fix


def first_line(error: UserError) -> str:
    return error.message.splitlines()[0]


@pytest.mark.parametrize("budget", [None, 0], ids=["in-memory", "streaming"])
@pytest.mark.parametrize("name", sorted(CSV_ERRORS))
def test_bad_csv(name: str, budget: int | None) -> None:
    path = BAD / name
    with pytest.raises(UserError) as caught:
        read_ncu_csv(path, memory_budget=budget)
    assert first_line(caught.value) == f"{path}{CSV_ERRORS[name]}"
    assert caught.value.fix


@pytest.mark.parametrize("name", sorted(TOML_ERRORS))
def test_bad_experiments(name: str) -> None:
    path = BAD / name
    with pytest.raises(UserError) as caught:
        load_experiments(path)
    assert first_line(caught.value) == f"{path}{TOML_ERRORS[name]}"


def tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture
def measurements(tmp_path: Path) -> Path:
    target = tmp_path / "measurements"
    shutil.copytree(REPO / "measurements", target)
    return target


@pytest.mark.site
@pytest.mark.parametrize("name", sorted(RUN_ERRORS))
def test_bad_run_folder_stops_the_build(
    name: str, measurements: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = measurements / "runs" / name
    shutil.copytree(BAD / name, folder)
    before = tree_digest(measurements)
    with pytest.raises(UserError) as caught:
        build_report(tmp_path, measurements, monkeypatch)
    inner, expected = RUN_ERRORS[name]
    assert first_line(caught.value) == f"{folder / inner if inner else folder}{expected}"
    assert not (tmp_path / "site").exists()  # nothing half-written
    assert tree_digest(measurements) == before


@pytest.mark.site
@pytest.mark.parametrize("name", ["binary.csv", "mixed-devices.csv", "nan-value.csv"])
def test_bad_csv_in_the_report_stops_the_build(
    name: str, measurements: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = measurements / "imported" / "bad"
    shutil.copytree(measurements / "imported" / "rtx5070-gemm-tiled", folder)
    shutil.copy(BAD / name, folder / "ncu.csv")
    before = tree_digest(measurements)
    with pytest.raises(UserError) as caught:
        build_report(tmp_path, measurements, monkeypatch)
    assert first_line(caught.value) == f"{folder / 'ncu.csv'}{CSV_ERRORS[name]}"
    assert not (tmp_path / "site").exists()
    assert tree_digest(measurements) == before


def test_html_and_markdown_in_a_kernel_name_is_kept_verbatim() -> None:
    summary = summarize_file(BAD / "html-markdown-kernel-name.csv", "l4")
    export = read_ncu_csv(BAD / "html-markdown-kernel-name.csv")
    assert export.kernels["kernel_name"].to_list() == [
        "<script>alert('x')</script> *bold* | `code` [link](javascript:x) # h"
    ]
    assert json.dumps(summary)  # the summary stays valid JSON
    assert summary["findings"] == []  # consistent numbers: nothing to report
