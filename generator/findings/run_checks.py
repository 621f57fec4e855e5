"""The findings a measured run's own files support (the RUN stage of `specs.SPECS`): measure
raises them from what it has just written, rederive from the same files read back, both by
`run_findings`, which runs every RUN check in SPECS order. A finding measure wrote that
rederive could not derive again would be dropped from run.json by a rederive
(memory-mismatch was, from 18 committed runs, until 2026-11-27): one function for both
rules that out."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.findings.finding_spec import Stage
from generator.findings.specs import specs_of
from generator.records.finding import Finding
from generator.records.run import LAYERS_FILE, RunRecord


@dataclass(frozen=True)
class RunEvidence:
    """What a run's files say that its findings are drawn from."""

    layer_s: Mapping[str, float] = field(default_factory=dict)  # layers.csv's time per phase
    phase_median_s: Mapping[str, float | None] = field(default_factory=dict)  # timed phases
    compiled: Mapping[str, Any] | None = None  # run.json's `compile`
    memory: Mapping[str, Any] = field(default_factory=dict)  # run.json's `memory`
    ncu: Mapping[str, Any] | None = None  # run.json's `ncu` block
    nsys: Mapping[str, Any] | None = None  # run.json's `nsys` block
    group: str = ""  # its experiment group, for the command a fix gives


def layer_time_by_phase(rows: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """The summed `time_s` of layers.csv rows, per phase (forward, backward)."""
    found: dict[str, float] = {}
    for row in rows:
        time_s = row.get("time_s")
        if time_s not in (None, ""):
            found[str(row["phase"])] = found.get(str(row["phase"]), 0.0) + float(time_s)
    return found


def stored_evidence(folder: Path, record: RunRecord) -> RunEvidence:
    """A measured run's evidence as its folder holds it (layers.csv and run.json)."""
    layer_s: dict[str, float] = {}
    layers = folder / LAYERS_FILE
    if layers.is_file():
        with layers.open(newline="", encoding="utf-8") as handle:
            layer_s = layer_time_by_phase(csv.DictReader(handle))
    return RunEvidence(
        layer_s=layer_s,
        phase_median_s=record.phase_median_s or {},
        compiled=record.compile,
        memory=record.memory or {},
        ncu=record.ncu,
        nsys=record.nsys,
        group=record.config.group,
    )


def run_findings(evidence: RunEvidence) -> list[Finding]:
    """Every RUN check of SPECS on the run's evidence, in SPECS order (run.json's order)."""
    checks = dict.fromkeys(
        check for spec in specs_of(Stage.RUN) for check in spec.checks if check.stage is Stage.RUN
    )
    return [finding for check in checks for finding in check.resolve()(evidence)]
