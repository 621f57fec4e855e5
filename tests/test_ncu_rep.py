"""Binary Nsight Compute reports (.ncu-rep), read with NVIDIA's ncu-report: pinned against
independent reads of the same real files (ncu-report queried metric by metric here, by the
rule ncu itself uses for its roofline) and against work known from the source (2·N³)."""

from __future__ import annotations

import builtins
import math
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from generator.cli import main
from generator.errors import UserError
from generator.ingest.ncu_csv import read_ncu_csv
from generator.ingest.ncu_rep import looks_like_ncu_rep, read_header, read_ncu_rep, write_csv
from generator.records.import_source import NCU_REPORT_FILE, discover
from generator.summaries.export import summarize_file

ncu_report = pytest.importorskip("ncu_report", reason="the ncu-rep extra (ncu-report)")

DATA = Path(__file__).parent / "data" / "ncu-rep"
SCAN = DATA / "thedavidchu__speedy_scan__profile.ncu-rep"  # 2020.3.1, full set
BASIC = DATA / "yzwang2000__cudaCode__profile.ncu-rep"  # 2022.3.0, basic set
SGEMM = DATA / "AveryClapp__ESMM-Research__profile_output.ncu-rep"  # 2023.1.1, roofline set
H800 = DATA / "flyinglandlord__sglang__profile.ncu-rep"  # 2023.3.0, full set, NaN metrics
CUTLASS = DATA / "panjd123__cutlass__report80.ncu-rep"  # 2024.1.1, full set
REPORTS = (SCAN, BASIC, SGEMM, H800, CUTLASS)
FP_OPS = ("fadd", "fmul", "ffma", "dadd", "dmul", "dfma", "hadd", "hmul", "hfma")


def _actions(path: Path) -> list[Any]:
    context = ncu_report.load_report(str(path))
    return [
        context.range_by_idx(r).action_by_idx(a)
        for r in range(context.num_ranges())
        for a in range(context.range_by_idx(r).num_actions())
    ]


def _value(action: Any, name: str) -> float | None:
    metric = action.metric_by_name(name)
    if metric is None:
        return None
    value = float(metric.value())
    return None if math.isnan(value) else value


def _count(action: Any, op: str) -> float | None:
    """ncu's roofline rule, written out here: the `.sum.per_cycle_elapsed` rate times the
    SMSP cycles elapsed (stored from ncu 2024.1 on; older: clock × duration)."""
    rate = _value(action, f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed")
    cycles = _value(action, "smsp__cycles_elapsed.avg")
    if cycles is None:
        clock = _value(action, "smsp__cycles_elapsed.avg.per_second")
        duration = _value(action, "gpu__time_duration.sum")
        cycles = None if clock is None or duration is None else clock * duration * 1e-9
    return None if rate is None or cycles is None else rate * cycles


def test_reports_are_told_apart_by_content(tmp_path: Path) -> None:
    renamed = tmp_path / "profile.bin"
    shutil.copyfile(SCAN, renamed)
    assert looks_like_ncu_rep(renamed)
    csv = Path(__file__).parent / "data" / "ncu" / "taytwkim__nn-perf__a1-rep.csv"
    assert not looks_like_ncu_rep(csv)


@pytest.mark.parametrize(
    ("path", "version", "sets"),
    [
        (SCAN, "2020.3.1", ""),
        (BASIC, "2022.3.0", ""),
        (SGEMM, "2023.1.1", "--set roofline"),
        (H800, "2023.3.0", "--set full"),
        (CUTLASS, "2024.1.1", "--set full"),
    ],
)
def test_the_header_names_the_ncu_that_wrote_it(path: Path, version: str, sets: str) -> None:
    header = read_header(path)
    assert header.version == version
    if sets:
        assert header.sets == sets


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.name.split("__")[0])
def test_every_kernel_matches_an_independent_read(path: Path) -> None:
    export, _, _ = read_ncu_rep(path)
    actions = _actions(path)
    kernels = export.kernels.sort("kernel_id")
    assert kernels.height == len(actions)
    for row, action in zip(kernels.iter_rows(named=True), actions, strict=True):
        assert row["kernel_name"] == action.name(action.NameBase_DEMANGLED)
        assert row["device_name"] == action.metric_by_name("device__attribute_display_name").value()
        duration = _value(action, "gpu__time_duration.sum")
        assert row["gpu_time_s"] == (None if duration is None else pytest.approx(duration * 1e-9))
        for column, name in (
            ("dram_read_bytes", "dram__bytes_read.sum"),
            ("dram_write_bytes", "dram__bytes_write.sum"),
        ):
            assert row[column] == _value(action, name)
        for op in FP_OPS:
            precision = {"f": "fp32", "d": "fp64", "h": "fp16"}[op[0]]
            expected = _count(action, op)
            column = f"{precision}_{op[1:]}_inst"
            assert row[column] == (None if expected is None else pytest.approx(expected))


def test_the_sgemms_count_two_n_cubed_flops_rebuilt_from_rates() -> None:
    """M = N = K = 1024 in the program's driver: 1024³ FFMA per kernel, nothing else."""
    export, _, _ = read_ncu_rep(SGEMM)
    kernels = export.kernels
    assert kernels["kernel_name"].str.extract(r"(\w+blocktiling|warptiling)").to_list() == [
        "one_blocktiling",
        "two_blocktiling",
        "vectorized_blocktiling",
        "warptiling",
    ]
    assert kernels["fp32_fma_inst"].to_list() == [pytest.approx(1024**3, rel=1e-12)] * 4
    assert kernels["fp32_add_inst"].to_list() == [0.0] * 4
    assert all("fp32_fma_inst" in cols for cols in kernels["counts_rebuilt"].to_list())
    summary = summarize_file(SGEMM, device=None)
    assert summary["flops"] == pytest.approx(4 * 2 * 1024**3, rel=1e-12)
    assert any("rebuilt from the rates" in note for note in summary["ingest_notes"])
    # the roofline set stores DRAM bytes only as a rate: rate × duration
    action = _actions(SGEMM)[0]
    rate = _value(action, "dram__bytes.sum.per_second")
    duration = _value(action, "gpu__time_duration.sum")
    assert rate is not None and duration is not None
    assert kernels["dram_bytes"][0] == pytest.approx(rate * duration * 1e-9)


def test_counted_dram_bytes_are_never_replaced_by_a_rebuilt_rate() -> None:
    export, _, _ = read_ncu_rep(CUTLASS)
    assert export.kernels["dram_read_bytes"].null_count() == 0
    assert all("dram_bytes" not in cols for cols in export.kernels["counts_rebuilt"].to_list())


def test_nan_is_missing_never_zero() -> None:
    export, _, _ = read_ncu_rep(H800)
    flash = export.kernels.filter(pl.col("kernel_name").str.contains("flash_fwd_kernel"))
    assert flash.height == 1
    assert flash["gpu_time_s"][0] is None
    assert flash["fp32_fma_inst"][0] is None
    summary = summarize_file(H800, device=None)
    assert summary["time_s"] is None  # one kernel's time is unknown: no partial sum
    assert summary["incomplete_metrics"]["time_s"] == 1


def test_nvtx_ranges_come_from_the_report() -> None:
    export, _, _ = read_ncu_rep(CUTLASS)
    assert export.kernels["nvtx_range"].to_list() == [
        "Non-fused-GEMM",
        "Non-fused-GEMM",
        "Fused-GEMM",
    ]


def test_a_basic_set_report_gives_time_only_and_says_which_set_collects_more() -> None:
    summary = summarize_file(BASIC, device=None)
    assert summary["kernels"] == 2
    assert summary["time_s"] == pytest.approx(1.169070848, rel=1e-9)
    assert summary["flops"] is None and summary["dram_bytes"] is None
    fixes = [f["fix"] for f in summary["findings"] if f["id"] == "missing-metric"]
    assert fixes and all("--set full" in fix for fix in fixes)
    assert any("the default basic set" in note for note in summary["ingest_notes"])


@pytest.mark.parametrize("path", (SGEMM, CUTLASS), ids=("sgemm", "cutlass"))
def test_the_stored_csv_gives_the_same_kernel_table(path: Path, tmp_path: Path) -> None:
    export, long, _ = read_ncu_rep(path)
    csv = tmp_path / "ncu.csv"
    write_csv(long, csv)
    again = read_ncu_csv(csv)
    assert again.layout == "long"
    assert again.kernels.drop("line").equals(export.kernels.drop("line"))


def test_without_the_reader_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_reader(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "ncu_report":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_reader)
    with pytest.raises(UserError) as error:
        read_ncu_rep(SCAN)
    assert "pip install 'roofline-atlas[ncu-rep]'" in str(error.value)
    assert "ncu --import" in str(error.value)


@pytest.mark.parametrize("size", [200, 100_000], ids=("header", "cut"))
def test_a_cut_report_is_a_user_error(size: int, tmp_path: Path) -> None:
    cut = tmp_path / "cut.ncu-rep"
    cut.write_bytes(SCAN.read_bytes()[:size])
    with pytest.raises(UserError) as error:
        read_ncu_rep(cut)
    assert "cut short or damaged" in str(error.value)
    assert str(cut) in str(error.value)


def test_a_report_from_a_newer_ncu_than_the_reader_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cut = tmp_path / "new.ncu-rep"
    whole = SCAN.read_bytes()
    cut.write_bytes(whole[: whole.index(b"(build ") + 100])  # the header, no results
    monkeypatch.setattr("generator.ingest.ncu_rep.reader_version", lambda: "2019.1.0")
    with pytest.raises(UserError) as error:
        read_ncu_rep(cut)
    assert "newer than the reader knows" in str(error.value)
    assert "pip install -U ncu-report" in str(error.value)


def test_summarize_and_import_take_the_binary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["summarize", str(SGEMM)]) == 0
    out = capsys.readouterr().out
    assert "report layout, 4 kernels" in out
    assert "8.59 GFLOP" in out
    measurements = tmp_path / "measurements"
    argv = ["import", str(SGEMM), "--name", "a10g-sgemm", "--device", "a100-80gb-pcie"]
    assert main([*argv, "--measurements", str(measurements)]) == 0
    folder = measurements / "imported" / "a10g-sgemm"
    assert (folder / NCU_REPORT_FILE).read_bytes() == SGEMM.read_bytes()  # verbatim
    stored = read_ncu_csv(folder / "ncu.csv")
    assert stored.kernels["fp32_fma_inst"].sum() == pytest.approx(4 * 1024**3, rel=1e-12)
    assert [i.name for i in discover(measurements)] == ["a10g-sgemm"]


def test_the_imported_binary_report_has_its_page(repo_site: Path) -> None:
    """The committed import of a binary report: its page tells where the numbers came from
    (the binary kept verbatim, the counts rebuilt from rates) and lists it with the others."""
    page = (repo_site / "measurements" / "a100-cutlass-b2b-int4" / "index.html").read_text(
        encoding="utf-8"
    )
    assert "kept as report.ncu-rep" in page
    assert "rebuilt from the rates ncu stored in place of counts" in page
    assert "NVIDIA A100 80GB PCIe" in page
    assert "Non-fused-GEMM" in page and "Fused-GEMM" in page
    assert 'data-finding="tensor-work-uncounted"' in page  # IMMA work: no FP counter sees it
    index = (repo_site / "measurements" / "index.html").read_text(encoding="utf-8")
    assert "a100-cutlass-b2b-int4" in index


class _Range:
    def __init__(self, name: str) -> None:
        self._name = name

    def name(self) -> str:
        return self._name


class _Domain:
    def name(self) -> str:
        return ""  # the default domain has no name in ncu-report

    def push_pop_ranges(self) -> list[str]:
        return ["train_step", 'say "hi": forward']

    def start_end_ranges(self) -> list[_Range]:
        return [_Range("epoch 1")]


class _State:
    def domains(self) -> list[int]:
        return [0]

    def domain_by_id(self, domain: int) -> _Domain:
        return _Domain()


class _Action:
    def nvtx_state(self) -> _State:
        return _State()


def test_nvtx_cells_parse_back_to_the_ranges_open() -> None:
    """Both kinds of range, written as ncu writes the cells, read back by the CSV parser."""
    from generator.ingest.ncu_rep import _nvtx
    from generator.ingest.nvtx import push_pop_ranges, start_stop_ranges

    push_pop, start_end = _nvtx(_Action())
    assert push_pop_ranges(push_pop) == ["train_step", 'say "hi": forward']
    assert start_stop_ranges(start_end) == ["epoch 1"]


def test_a_report_the_reader_refuses_is_a_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path: str) -> None:
        raise RuntimeError("Failed to load report: unsupported format\nmore")

    monkeypatch.setattr(ncu_report, "load_report", refuse)
    with pytest.raises(UserError) as error:
        read_ncu_rep(SCAN)
    text = str(error.value)
    assert "ncu-report cannot open this report (written by ncu 2020.3.1)" in text
    assert "unsupported format" in text and "pip install -U ncu-report" in text


def test_the_h800_report_is_matched_to_its_catalog_entry() -> None:
    """The catalog has had the H800 SXM since 2026-11-28 (a public trace named it)."""
    summary = summarize_file(H800, device=None)
    assert summary["device"] == {"recorded": "NVIDIA H800", "catalog": "h800-sxm"}


def test_a_gpu_the_catalog_lacks_is_named_as_such(monkeypatch: pytest.MonkeyPatch) -> None:
    from generator.catalog import matching

    real = matching.find_device

    def without_h800(name: str) -> Any:
        if "H800" in name:
            raise UserError(f"no catalog device is named {name!r}", fix="add it")
        return real(name)

    monkeypatch.setattr(matching, "find_device", without_h800)
    summary = summarize_file(H800, device=None)
    assert summary["device"] == {"recorded": "NVIDIA H800", "catalog": None}
    assert summary["device_note"].startswith(
        "the export names 'NVIDIA H800', which the catalog lacks, and records compute "
        "capability 9.0"
    )


class _Relabelled:
    """A real report as ncu-report gives it, with some metrics' unit labels replaced: how a
    report of an ncu that labels differently reads (the 2020.2.0 report of issue 65 was not
    found in public data; its label is the one its error message names)."""

    def __init__(self, real: Any, units: dict[str, str]) -> None:
        self._real, self._units = real, units

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def range_by_idx(self, index: int) -> Any:
        return _Relabelled(self._real.range_by_idx(index), self._units)

    def action_by_idx(self, index: int) -> Any:
        return _Relabelled(self._real.action_by_idx(index), self._units)

    def metric_by_name(self, name: str) -> Any:
        metric = self._real.metric_by_name(name)
        return (
            metric
            if metric is None or name not in self._units
            else _Unit(metric, self._units[name])
        )


class _Unit:
    def __init__(self, real: Any, unit: str) -> None:
        self._real, self._unit = real, unit

    def value(self) -> Any:
        return self._real.value()

    def unit(self) -> str:
        return self._unit


def _relabel(monkeypatch: pytest.MonkeyPatch, units: dict[str, str]) -> None:
    load = ncu_report.load_report
    monkeypatch.setattr(ncu_report, "load_report", lambda path: _Relabelled(load(path), units))


FFMA_RATE = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"


def test_rates_labelled_in_cycles_as_ncu_2020_2_writes_them_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every FP rate labelled 'cycle' (issue 65's error: `...dadd_pred_on.sum.per_cycle_elapsed
    is in 'cycle'`): kernels, time, DRAM bytes and FLOPs are those NVIDIA's reader gives, and a
    note says the label was read as the rate its name states."""
    rates = {
        f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed": "cycle"
        for op in FP_OPS
    }
    plain, _, _ = read_ncu_rep(SGEMM)
    _relabel(monkeypatch, rates)
    export, _, _ = read_ncu_rep(SGEMM)
    assert export.kernels.drop("counts_rebuilt").equals(plain.kernels.drop("counts_rebuilt"))
    actions = _actions(SGEMM)
    assert export.kernels["kernel_name"].to_list() == [
        a.name(a.NameBase_DEMANGLED) for a in actions
    ]
    for row, action in zip(export.kernels.iter_rows(named=True), actions, strict=True):
        duration = _value(action, "gpu__time_duration.sum")
        rate = _value(action, "dram__bytes.sum.per_second")
        assert duration is not None and rate is not None
        assert row["gpu_time_s"] == pytest.approx(duration * 1e-9)
        assert row["dram_bytes"] == pytest.approx(rate * duration * 1e-9)
        assert row["fp32_fma_inst"] == pytest.approx(_count(action, "ffma"))
    assert export.kernels["fp32_fma_inst"].to_list() == [pytest.approx(1024**3, rel=1e-12)] * 4
    assert any("labelled 'cycle'" in n and FFMA_RATE in n for n in export.notes)


def test_a_label_of_another_dimension_on_a_metric_in_use_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _relabel(monkeypatch, {FFMA_RATE: "byte"})
    with pytest.raises(UserError) as error:
        read_ncu_rep(SGEMM)
    assert error.value.what == (
        f"metric {FFMA_RATE} is in 'byte', which is not a unit of inst/cycle, and kernel ID 0 "
        "has no other metric for fp32 fma thread instructions (predicated on)"
    )


def test_a_label_of_another_dimension_on_a_metric_not_in_use_is_set_aside(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The scan report counts its DRAM bytes (read, written): the DRAM rate, which would only
    rebuild them, is set aside with a note and changes nothing."""
    plain, _, _ = read_ncu_rep(SCAN)
    _relabel(monkeypatch, {"dram__bytes.sum.per_second": "cycle"})
    export, _, _ = read_ncu_rep(SCAN)
    assert export.kernels.equals(plain.kernels)
    assert any(
        "set aside" in n and "dram__bytes.sum.per_second (in 'cycle', not byte/second)" in n
        for n in export.notes
    )
