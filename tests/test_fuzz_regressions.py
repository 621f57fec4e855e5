"""Inputs the fuzzer (tests/fuzz_ingest.py, `nox -s fuzz`) once crashed the ingest on, and a
short deterministic fuzz run."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.errors import UserError
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


def test_every_regression_has_an_expectation() -> None:
    assert {p.name for p in REGRESSIONS.iterdir()} == set(EXPECTED)


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
