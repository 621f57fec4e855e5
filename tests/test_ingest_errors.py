"""Malformed exports end in a UserError naming the file, the line and what is wrong."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from generator.errors import UserError
from generator.ingest import read_ncu_csv
from tests.helpers import LONG_HEADER, fp32_kernel, metric_row, quoted, write_long


def error_of(path: Path) -> UserError:
    with pytest.raises(UserError) as caught:
        read_ncu_csv(path)
    assert caught.value.file == str(path)
    return caught.value


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_bytes(b"")
    err = error_of(path)
    assert err.what == "the file is empty (0 bytes)"


def test_no_header(tmp_path: Path) -> None:
    path = tmp_path / "noheader.csv"
    path.write_text("==PROF== Connected\nsome program output\n1,2,3\n", encoding="utf-8")
    err = error_of(path)
    assert err.what.startswith(
        'no ncu CSV header found (a line starting with "ID","Process ID",...)'
    )
    assert err.fix is not None and "ncu --import" in err.fix


def test_header_only(tmp_path: Path) -> None:
    err = error_of(write_long(tmp_path / "h.csv", []))
    assert err.what == "the export has a header but no rows"
    assert err.line == 1


def test_truncated_row_names_its_line(tmp_path: Path) -> None:
    path = write_long(tmp_path / "cut.csv", fp32_kernel(0, ffma="1") + fp32_kernel(1, ffma="2"))
    lines = path.read_text(encoding="utf-8").splitlines()
    record = next(csv.reader([lines[9]]))
    lines[9] = quoted(record[:13])  # cut after the Metric Name field
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    err = error_of(path)
    assert err.line == 10
    assert err.what == "the row is truncated: 13 fields, at least 15 expected"


def test_truncated_last_line_inside_a_quote(tmp_path: Path) -> None:
    path = write_long(tmp_path / "cut2.csv", fp32_kernel(0, ffma="1"))
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.rindex('"gpu__time') + 8], encoding="utf-8")
    err = error_of(path)
    assert err.line == 7
    assert "malformed" in err.what or "truncated" in err.what


def test_unknown_unit(tmp_path: Path) -> None:
    rows = [*fp32_kernel(0, ffma="1"), metric_row(1, "dram__bytes_read.sum", "MiB", "3")]
    err = error_of(write_long(tmp_path / "unit.csv", rows))
    assert err.line == 8
    assert err.what == "the row gives metric dram__bytes_read.sum the unknown unit 'MiB'"


def test_non_numeric_value_of_a_known_metric(tmp_path: Path) -> None:
    rows = fp32_kernel(0, ffma="1") + fp32_kernel(1, ffma="twelve")
    err = error_of(write_long(tmp_path / "nan.csv", rows))
    assert err.line == 10
    assert err.what == (
        "metric smsp__sass_thread_inst_executed_op_ffma_pred_on.sum has the value 'twelve', "
        "which is not a number"
    )


def test_non_integer_kernel_id(tmp_path: Path) -> None:
    rows = [metric_row(0, "gpu__time_duration.sum", "ns", "1")]
    rows[0][0] = "zero"
    err = error_of(write_long(tmp_path / "id.csv", rows))
    assert (err.line, err.what) == (2, "kernel id 'zero' is not an integer")


def test_unit_of_the_wrong_dimension(tmp_path: Path) -> None:
    rows = [metric_row(0, "gpu__time_duration.sum", "Kbyte", "1")]
    err = error_of(write_long(tmp_path / "dim.csv", rows))
    assert err.line == 2
    assert err.what == (
        "metric gpu__time_duration.sum is in 'byte', which is not a unit of second, "
        "and kernel ID 0 has no other metric for kernel duration"
    )


def test_a_wrong_unit_on_a_metric_another_spelling_gives_is_set_aside(tmp_path: Path) -> None:
    """The analysis reads the duration from `gpu__time_duration.sum`: the older spelling,
    mislabelled, is set aside with a note, and the number is the fitting one's."""
    rows = [
        metric_row(0, "gpu__time_duration.sum", "nsecond", "1500"),
        metric_row(0, "gpu__time_duration", "Kbyte", "9"),
    ]
    export = read_ncu_csv(write_long(tmp_path / "aside.csv", rows))
    assert export.kernels["gpu_time_s"].to_list() == [pytest.approx(1.5e-6)]
    assert any("set aside" in n and "gpu__time_duration (in 'byte'" in n for n in export.notes)
    # a rate whose count the kernel has is not used either
    rate = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"
    rows = [*fp32_kernel(0, ffma="7"), metric_row(0, rate, "byte", "3")]
    export = read_ncu_csv(write_long(tmp_path / "rate.csv", rows))
    assert export.kernels["fp32_fma_inst"].to_list() == [7.0]
    assert any(rate in n for n in export.notes)
    # without the count, the rate is the one source: refused, naming it
    rows = [metric_row(0, "gpu__time_duration.sum", "nsecond", "1500"), rows[-1]]
    err = error_of(write_long(tmp_path / "only.csv", rows))
    assert err.what.startswith(f"metric {rate} is in 'byte', which is not a unit of inst/cycle")
    assert "no other metric for fp32 fma thread instructions" in err.what


def test_conflicting_values_for_one_kernel(tmp_path: Path) -> None:
    rows = [
        *fp32_kernel(0, ffma="1"),
        metric_row(0, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "2"),
    ]
    err = error_of(write_long(tmp_path / "dup.csv", rows))
    assert err.line == 8
    assert "2 different values for smsp__sass_thread_inst_executed_op_ffma_pred_on.sum" in err.what


def test_duplicated_header_column(tmp_path: Path) -> None:
    header = (*LONG_HEADER, "Metric Value")
    rows = [[*r, r[-1]] for r in fp32_kernel(0)]
    err = error_of(write_long(tmp_path / "dh.csv", rows, header))
    assert err.what == "the header names a column twice: Metric Value"


def test_missing_required_column(tmp_path: Path) -> None:
    header = tuple(c for c in LONG_HEADER if c != "Metric Unit")
    rows = [[v for i, v in enumerate(r) if LONG_HEADER[i] != "Metric Unit"] for r in fp32_kernel(0)]
    err = error_of(write_long(tmp_path / "mc.csv", rows, header))
    assert err.what == "the header lacks the column(s) Metric Unit"


def test_utf16_file(tmp_path: Path) -> None:
    path = tmp_path / "u16.csv"
    path.write_text(quoted(LONG_HEADER) + "\n", encoding="utf-16")
    err = error_of(path)
    assert err.what == "the file is UTF-16 encoded; ncu CSV exports are UTF-8"


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "report.ncu-rep"
    path.write_bytes(b"NVIDIA\x00\x01\x02" * 100)
    err = error_of(path)
    assert err.what == "this is a binary file, not a CSV export (NUL byte found)"
    assert err.line == 1


def test_missing_file(tmp_path: Path) -> None:
    err = error_of(tmp_path / "nope.csv")
    assert err.what.startswith("cannot open")


def test_raw_layout_without_units_row(tmp_path: Path) -> None:
    path = tmp_path / "raw.csv"
    path.write_text(
        quoted(["ID", "Kernel Name", "gpu__time_duration.sum"])
        + "\n"
        + quoted(["0", "k", "5"])
        + "\n",
        encoding="utf-8",
    )
    err = error_of(path)
    assert err.line == 2
    assert err.what.startswith("raw-layout export without its units row")


def test_truncated_row_after_a_preamble(tmp_path: Path) -> None:
    path = write_long(
        tmp_path / "cut3.csv", fp32_kernel(0, ffma="1"), preamble="\ufeff==PROF== x\napp output\n"
    )
    lines = path.read_text(encoding="utf-8").splitlines()
    record = next(csv.reader([lines[5]]))
    lines[5] = quoted(record[:14])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    err = error_of(path)
    assert (err.line, err.what) == (6, "the row is truncated: 14 fields, at least 15 expected")


def test_bytes_that_are_not_utf8_in_a_repeated_column_are_an_error(tmp_path: Path) -> None:
    """Found by `nox -s fuzz`: Polars reads a column parsed straight into a Categorical without
    checking its UTF-8, and a later conversion aborted the process (a Rust panic)."""
    path = tmp_path / "cut-bom.csv"
    path.write_bytes(
        b'"ID","Process ID","Kernel Name","gpu__time_duration.sum"\n'
        b'"","","","nsecond"\n'
        b'"0","7","k0"\xef\xbb\xbf,"1,200"\n'
    )
    with pytest.raises(UserError) as error:
        read_ncu_csv(path)
    assert error.value.message.splitlines()[0] == (
        f"{path}, line 3: column 'Kernel Name' holds bytes that are not UTF-8 text "
        "(unexpected end of data)"
    )


def test_a_per_cycle_rate_labelled_in_cycles_is_read_as_the_rate(tmp_path: Path) -> None:
    """ncu 2020.2.0 (issue 65) labels `...dadd_pred_on.sum.per_cycle_elapsed` in 'cycle':
    the name fixes it as instructions per cycle, so the file is read, not refused, and the
    value kept as written."""
    metric = "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed"
    rows = [
        metric_row(0, "gpu__time_duration.sum", "nsecond", "1000"),
        metric_row(0, metric, "cycle", "0.5"),
    ]
    export = read_ncu_csv(write_long(tmp_path / "ncu2020.csv", rows))
    assert export.kernels.height == 1
    assert 0.5 in export.metrics["value"].to_list()
    # a unit of another dimension is still refused
    rows[1] = metric_row(0, metric, "byte", "0.5")
    assert "not a unit of inst/cycle" in error_of(write_long(tmp_path / "bad.csv", rows)).what
