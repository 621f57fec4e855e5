"""The typed runs row (`ingest.runs.RunRow`) is the runs table's row: the same columns, in
the same order, so `run_rows` may hand the table's rows out typed."""

from __future__ import annotations

from typing import get_type_hints

from generator.analysis.verdict_needs import RESULT, ResultRow, with_result
from generator.ingest.runs import RUN_COLUMNS, RUN_SCHEMA, RunRow, run_rows, runs_frame
from generator.records.run import read_run
from tests.helpers import REPO


def test_run_row_has_the_tables_columns() -> None:
    assert list(get_type_hints(RunRow)) == list(RUN_COLUMNS)
    assert list(get_type_hints(ResultRow)) == [*RUN_COLUMNS, RESULT]


def test_run_rows_of_committed_runs_are_typed_as_declared() -> None:
    folders = sorted(p for p in (REPO / "measurements" / "runs").iterdir() if p.is_dir())[:5]
    records = {}
    for folder in folders:
        record = read_run(folder)
        assert record is not None
        records[folder.name] = record
    frame = runs_frame(records)
    assert frame.schema == RUN_SCHEMA
    rows = run_rows(frame)
    assert [row["run_id"] for row in rows] == sorted(records)
    for row in rows:
        assert isinstance(row["batch"], int) and isinstance(row["groups"], list)
        assert isinstance(row["device_label"], str) and row["device_label"]
        assert with_result(row, None)[RESULT] is None
