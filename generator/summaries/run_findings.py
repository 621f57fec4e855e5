"""Findings a run folder's own files support, derived again without measuring again: a run
measured before a check existed gets it from the files it already has, and run.json is
rewritten atomically only where they changed. The findings are those of the RUN stage
(`findings/specs.py`), derived by the one function measure uses (`findings/run_checks.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from generator.findings.run_checks import run_findings, stored_evidence
from generator.records.finding import findings_json
from generator.records.run import read_runs, write_run


@dataclass(frozen=True)
class Rederived:
    run_id: str
    findings: tuple[str, ...]  # finding ids now in run.json
    changed: bool


def rederive(measurements: Path) -> list[Rederived]:
    """Every run folder under measurements/runs/, in name order (a run that did not finish
    keeps what it has)."""
    done = []
    for folder, record in read_runs(measurements):
        ok = record.status == "ok"
        found = findings_json(run_findings(stored_evidence(folder, record))) if ok else []
        changed = ok and record.findings != found
        if changed:
            write_run(folder, record.model_copy(update={"findings": found}))
        done.append(Rederived(record.run_id, tuple(f["id"] for f in found), changed))
    return done
