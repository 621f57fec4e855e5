"""`trace-work`: store each trace's analysed work beside it (analysis/trace_work.py), for
the traces of measurements/ whose stored file is missing or out of date."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from generator.analysis.trace_work import analyse_work, stored_state, write_work
from generator.errors import UserError
from generator.records.import_source import trace_file
from generator.records.run import TRACE_FILE


@dataclass(frozen=True)
class Stored:
    trace: Path
    was: str  # stored_state before: "current", "missing", or why it was out of date
    error: str | None = None  # the trace could not be read: nothing written for it


def measurement_traces(measurements: Path) -> Iterator[Path]:
    """Every run's profiled step and every imported trace, in name order."""
    yield from sorted((measurements / "runs").glob(f"*/{TRACE_FILE}"))
    imported = measurements / "imported"
    folders = sorted(p for p in imported.iterdir() if p.is_dir()) if imported.is_dir() else []
    yield from (trace for folder in folders if (trace := trace_file(folder)) is not None)


def store_work(measurements: Path, check: bool = False) -> list[Stored]:
    """Analyse and store every trace whose stored work is not current (with `check`, only
    say which); one that cannot be read is reported, and the others go on."""
    done = []
    for trace in measurement_traces(measurements):
        state = stored_state(trace.parent, trace)
        if state == "current" or check:
            done.append(Stored(trace, state))
            continue
        try:
            write_work(analyse_work(trace), trace, trace.parent)
        except UserError as err:
            print(err, file=sys.stderr)
            done.append(Stored(trace, state, str(err)))
            continue
        done.append(Stored(trace, state))
        print(f"{trace.parent}: stored ({state})", file=sys.stderr, flush=True)
    return done
