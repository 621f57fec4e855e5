"""Findings a run folder's own files support, derived again without measuring again: a run
measured before a check existed gets it from the files it already has (layers.csv and the
timed phase medians; run.json's measured memory and compile record), and run.json is
rewritten atomically only where they changed (ncu-failed and nsys-failed from run.json's
`ncu` / `nsys` block). Every finding measure writes is derived here:
one left out would be dropped from run.json by a rederive (memory-mismatch was, from 18
committed runs, until 2026-11-27)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from generator.findings import layer_time_by_phase, profiler_overhead
from generator.findings.profiler_checks import profiler_findings
from generator.findings.resource_checks import resource_findings
from generator.records.finding import Finding, findings_json
from generator.records.run import LAYERS_FILE, RunRecord, read_runs, write_run


@dataclass(frozen=True)
class Rederived:
    run_id: str
    findings: tuple[str, ...]  # finding ids now in run.json
    changed: bool


def run_findings(folder: Path, record: RunRecord) -> list[Finding]:
    """What the run's files say, in the order measure writes them: its per-layer times
    against its timed phases, then its compile record and measured memory, then a profiler
    that failed on it (run.json's ncu / nsys block)."""
    if record.status != "ok":
        return []
    found = []
    layers = folder / LAYERS_FILE
    if layers.is_file():
        with layers.open(newline="", encoding="utf-8") as handle:
            by_phase = layer_time_by_phase(csv.DictReader(handle))
        found += profiler_overhead(by_phase, record.phase_median_s or {})
    found += resource_findings(record.compile, record.memory or {})
    return found + profiler_findings(record.ncu, record.nsys, record.config.group)


def rederive(measurements: Path) -> list[Rederived]:
    """Every run folder under measurements/runs/, in name order."""
    done = []
    for folder, record in read_runs(measurements):
        found = findings_json(run_findings(folder, record))
        changed = record.status == "ok" and record.findings != found
        if changed:
            write_run(folder, record.model_copy(update={"findings": found}))
        done.append(Rederived(record.run_id, tuple(f["id"] for f in found), changed))
    return done
