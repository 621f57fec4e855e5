"""Inputs the fuzzers (tests/fuzz_ingest.py, tests/fuzz_trace.py and tests/fuzz_nsys.py,
`nox -s fuzz`) once crashed the ingest on, and a short deterministic run of each.

A trace input whose crash is not fixed yet is an expected failure (strict: once the ingest
gives a summary or a UserError for it, the test says so, and the mark comes off)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.errors import UserError
from tests import fuzz_nsys, fuzz_trace
from tests.fuzz_ingest import exercise, fuzz

REGRESSIONS = Path(__file__).parent / "data" / "fuzz-corpus" / "regressions"
EXPECTED = {
    "field-beyond-csv-limit.csv": ", line 5: the row is malformed: field larger than field "
    "limit (131072)",
    "quoted-line-break-in-header-row.csv": ", line 9: the row is malformed (a quoted field "
    "holds a line break, or fields are missing)",
    "units-row-without-kernels.csv": ": the export holds no kernel rows",
    "line-break-inside-process-id.csv": None,  # parses: the id is read as 100
}


# Trace inputs (found by tests/fuzz_trace.py, or by reading the code it points at; minimized):
# the only acceptable outcomes are a summary that --json can write, or a UserError.
# "summary" / "user error": what the ingest does with it now; an exception type: an open
# crash, expected to fail with it until the ingest is fixed.
TRACE_EXPECTED: dict[str, str | type[Exception]] = {
    # dur NaN / Infinity was read as a duration, and `summarize --json` failed on the NaN
    # time in json.dumps(allow_nan=False).
    "trace-kernel-dur-nan.json": "user error",
    "trace-op-dur-infinity.json": "user error",
    # A valid CPU-only trace whose one op has zero self time: no work points, and
    # totals_row took .row(0) of an empty frame (polars OutOfBoundsError).
    "trace-cpu-op-zero-duration.json": "summary",
    # Extents past any float (10**200): OverflowError in formulas._tensor_bytes and in
    # conv_backward's 2.0 * macs.
    "trace-dims-beyond-float.json": "summary",
    "trace-conv-backward-beyond-float.json": "summary",
    # A stride of 1e999 in Concrete Inputs: int(inf) in formulas._listed (OverflowError).
    "trace-conv-stride-infinite.json": "summary",
    # A stride of 0 ("[0, 0]") in Concrete Inputs: formulas._conv_out divided by it
    # (ZeroDivisionError).
    "trace-conv-stride-zero.json": "summary",
    # A 401-digit integer ts: read_trace's math.isfinite(ts) raised OverflowError ("int too
    # large to convert to float").
    "trace-ts-beyond-float.json": "user error",
    # Bytes that are not UTF-8 inside a name and inside an op's shapes: the typed decode's
    # skip of the whole text checks no UTF-8, and its per-event decode raised
    # UnicodeDecodeError (the second file is gzip, as the reader finds by content).
    "trace-name-not-utf8.json": "user error",
    "trace-gzip-shapes-not-utf8.json": "user error",
}


# Nsight Systems / rocprofv3 inputs (found by tests/fuzz_nsys.py): a summary or a UserError.
NSYS_EXPECTED: dict[str, str] = {
    # A kernel trace CSV timestamp ending in \x1e: str.strip() dropped it before
    # isdecimal() but int() of the unstripped text raised ValueError.
    "rocprof-kernel-trace-control-char-in-timestamp.csv": "summary",
}


def test_every_regression_has_an_expectation() -> None:
    assert {p.name for p in REGRESSIONS.iterdir()} == (
        set(EXPECTED) | set(TRACE_EXPECTED) | set(NSYS_EXPECTED)
    )


@pytest.mark.parametrize("name", sorted(NSYS_EXPECTED))
def test_nsys_fuzz_regression(name: str) -> None:
    try:
        fuzz_nsys.exercise([REGRESSIONS / name])
    except UserError as error:
        assert error.file == str(REGRESSIONS / name) and error.fix
        outcome = "user error"
    else:
        outcome = "summary"
    assert outcome == NSYS_EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fuzz_regression(name: str) -> None:
    path = REGRESSIONS / name
    expected = EXPECTED[name]
    if expected is None:
        exercise(path)
        return
    with pytest.raises(UserError) as caught:
        exercise(path)
    assert caught.value.message.splitlines()[0] == f"{path}{expected}"


def test_short_fuzz_run_finds_no_crash() -> None:
    cases, crashes = fuzz(seconds=60, seed=12345, max_cases=300)
    assert cases == 300
    assert crashes == []


def _trace_case(name: str) -> object:
    expected = TRACE_EXPECTED[name]
    if isinstance(expected, str):
        return name
    return pytest.param(
        name, marks=pytest.mark.xfail(raises=expected, strict=True, reason="open ingest crash")
    )


@pytest.mark.parametrize("name", [_trace_case(n) for n in sorted(TRACE_EXPECTED)])
def test_trace_fuzz_regression(name: str) -> None:
    try:
        fuzz_trace.exercise(REGRESSIONS / name)
    except UserError:
        outcome = "user error"
    else:
        outcome = "summary"
    assert outcome == TRACE_EXPECTED[name]


def test_short_trace_fuzz_run_finds_no_new_crash() -> None:
    cases, crashes = fuzz_trace.fuzz(seconds=120, seed=12345, max_cases=150, save=False)
    assert cases == 150
    known = {crash.__name__ for crash in TRACE_EXPECTED.values() if not isinstance(crash, str)}
    assert {key.split(" at ")[0] for key in crashes} <= known


def test_short_fuzz_run_of_the_binary_reports_finds_no_crash() -> None:
    pytest.importorskip("ncu_report", reason="the ncu-rep extra (ncu-report)")
    from tests import fuzz_reports

    cases, crashes = fuzz_reports.fuzz(seconds=120, seed=12345, max_cases=40)
    assert cases == 40
    assert crashes == []
