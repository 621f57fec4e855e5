"""run.json of a measured run (measurements/runs/<run-id>/run.json) as a typed record.

This module alone knows the file's keys: the runner builds a `RunRecord` and writes it, the
report reads it back through `read_run` and takes the runs table from `RunRecord.row()`.
Keys this version does not know are kept (written back unchanged, never an error).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from generator.atomic import write_json
from generator.records.run_modes import mode_of
from generator.records.run_parts import (
    CompileSummary,
    ComplexityTotals,
    EnergySummary,
    Environment,
    MemorySummary,
    NcuRecord,
    NsysRecord,
    PrecisionSettings,
    RunConditions,
)
from generator.records.versioned import RawRecord, load_json, upgrade, validated

# 2: timing by blocks (level variances), groups, history; 3: memory; 4: timing holds the
# design alone (the statistics come from steps.csv, analysis.results.estimate)
RUN_SCHEMA_VERSION = 4
RUN_FILE = "run.json"
TRACE_FILE = "trace.json.gz"  # the profiled step, as torch.profiler wrote it (gzipped)
LAYERS_FILE = "layers.csv"  # per layer and phase: counted FLOPs and bytes, measured time
NCU_LOG = "ncu.log"  # ncu's own messages while it profiled the step (warnings, kernels seen)


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow")


class RunSettings(_Part):
    """The configuration a run was measured with (`config.RunConfig.as_dict()`)."""

    group: str
    model: str
    dataset: str
    batch: int
    phase: str
    precision: str
    device: str


# Keys of a run's config that say how or where it was filed and timed, not what was measured:
# runs differing only in these are one workload (analysis.results pools their samples).
NOT_WORKLOAD = frozenset(
    {"group", "warmup", "iterations", "repeats", "profile", "ci_target", "max_iterations",
     "max_seconds", "interleave", "method", "min_blocks", "max_blocks"}
)  # fmt: skip


def workload_key(config: dict[str, Any], device_name: str) -> str:
    """A configuration's identity without where it was filed or how it was timed."""
    kept = {k: v for k, v in config.items() if k not in NOT_WORKLOAD}
    payload = json.dumps({**kept, "device_name": device_name}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


# The parts of a step that steps.csv times apart (`<phase>_s` columns), in step order.
PHASES = ("forward", "loss", "backward", "optimizer_step")


class Timing(_Part):
    """How a run was timed: its design and why it stopped. The step time, its intervals,
    throughput and precision are not stored: `analysis.results.estimate` computes them from
    steps.csv, for `measure`'s summary as for the report (version 4 dropped the copies that
    earlier versions stored, `STORED_STATISTICS`)."""

    n: int  # timed steps, every block's
    method: str | None = None  # "blocks" or "rounds in one process"
    blocks: int | None = None  # blocks: independent worker processes
    rounds: int | None = None  # interleaved rounds (measure.rounds); absent before them
    stopped_by: str | None = None  # ci, iterations, time, rounds, blocks, budget, max_blocks
    ci_target: float | None = None  # the stopping rule's precision target


class Invocation(_Part):
    """One `measure` call that added samples to a run (run.json `history`, oldest first)."""

    started_at: str | None = None
    finished_at: str | None = None
    commit: str | None = None
    method: str | None = None
    blocks: int | None = None
    samples: int | None = None


class ModelledPoint(_Part):
    """Analytic FLOPs and minimal bytes over the measured median step time."""

    flops: float
    bytes: float
    time_s: float
    attained_flops_per_s: float
    arithmetic_intensity: float | None = None


class RunFailure(_Part):
    type: str
    message: str
    traceback: list[str] = []


class Measured(_Part):
    """What measuring adds to a run that succeeded."""

    settings: PrecisionSettings
    timing: Timing
    phase_median_s: dict[str, float | None]
    complexity: ComplexityTotals  # complexity.analyze(...).totals()
    modelled_point: ModelledPoint
    files: list[str]
    ncu: NcuRecord | None = None  # ncu mode: the commands and the clock/cache control
    nsys: NsysRecord | None = None  # nsys mode: its commands (nsys.sqlite is the capture)
    conditions: RunConditions | None = None  # measure.conditions, a sample per round
    # Findings derived from the run's own files when it was written (profiler-overhead);
    # `python -m generator rederive` recomputes them without measuring again.
    findings: list[dict[str, str]] | None = None
    # measure.resources: the measured peak beside the analytic footprint, the compile time
    # (compiled runs), joules per step (where the device reports energy)
    memory: MemorySummary | None = None
    compile: CompileSummary | None = None
    energy: EnergySummary | None = None


class RunStart(_Part):
    """What is known of a run before it is measured."""

    schema_version: int = RUN_SCHEMA_VERSION
    run_id: str
    config: RunSettings
    config_hash: str
    device_name: str
    ceilings: str | None = None
    started_at: str
    environment: Environment
    command: str
    # Every group of experiments.toml that this one result serves (one result per
    # configuration: the first group names the folder, the others read it).
    groups: list[str] | None = None
    history: list[Invocation] | None = None

    def succeeded(self, measured: Measured, finished_at: str) -> RunRecord:
        return RunRecord.model_validate(
            self.model_dump(exclude_unset=True)
            | {"status": "ok", "finished_at": finished_at}
            | measured.model_dump(exclude_unset=True)
        )

    def failed(self, failure: RunFailure, finished_at: str) -> RunRecord:
        return RunRecord.model_validate(
            self.model_dump(exclude_unset=True)
            | {"status": "failed", "finished_at": finished_at, "error": failure.model_dump()}
        )


class RunRecord(RunStart):
    status: Literal["ok", "failed"]
    finished_at: str | None = None
    # ok runs
    settings: PrecisionSettings | None = None
    timing: Timing | None = None
    phase_median_s: dict[str, float | None] | None = None
    complexity: ComplexityTotals | None = None
    modelled_point: ModelledPoint | None = None
    files: list[str] | None = None
    ncu: NcuRecord | None = None
    nsys: NsysRecord | None = None
    conditions: RunConditions | None = None
    findings: list[dict[str, str]] | None = None
    memory: MemorySummary | None = None
    compile: CompileSummary | None = None
    energy: EnergySummary | None = None
    # failed runs
    error: RunFailure | None = None

    @property
    def workload(self) -> str:
        """What was measured, on which device: the same for the same configuration filed in
        two groups."""
        return workload_key(self.config.model_dump(), self.device_name)

    @property
    def commit(self) -> str | None:
        git = self.environment.get("git") or {}
        return git.get("commit") if isinstance(git, dict) else None

    def row(self) -> dict[str, Any]:
        """The run's row of the runs table (`ingest.runs.RUN_SCHEMA`)."""
        timing, point, error = self.timing, self.modelled_point, self.error
        return {
            "run_id": self.run_id,
            "workload": self.workload,
            "group": self.config.group,
            "groups": list(self.groups or [self.config.group]),
            "model": self.config.model,
            "dataset": self.config.dataset,
            "batch": self.config.batch,
            "phase": self.config.phase,
            "precision": self.config.precision,
            "device": self.config.device,
            "compile": mode_of(self.config.model_dump()),
            "device_name": self.device_name,
            "status": self.status,
            # not in the runs table (ingest.runs.RUN_SCHEMA): an ok run's are its result's
            "median_s": None,
            "ci_low_s": None,
            "ci_high_s": None,
            "cv": None,
            "iterations": timing.n if timing else None,
            "throughput": None,
            "params": _number(self.complexity, "params"),
            "forward_flops": _number(self.complexity, "forward_flops"),
            "backward_flops": _number(self.complexity, "backward_flops"),
            **{f"{p}_s": _number(self.phase_median_s, p) for p in PHASES},
            "modelled_flops": point.flops if point else None,
            "modelled_bytes": point.bytes if point else None,
            "modelled_attained": point.attained_flops_per_s if point else None,
            "modelled_ai": point.arithmetic_intensity if point else None,
            **self._resources(),
            "finished_at": self.finished_at,
            "commit": self.commit,
            "error": f"{error.type}: {error.message}" if error else None,
        }

    def _resources(self) -> dict[str, float | None]:
        memory = self.memory or {}
        measured = memory.get("measured") or {}
        analytic = memory.get("analytic") or {}
        return {
            "memory_bytes": _number(measured, "step_bytes"),
            "memory_analytic_bytes": _number(analytic, "total_bytes"),
            "compile_s": _number(self.compile, "cold_compile_s"),
        }


def _number(values: Mapping[str, object] | None, key: str) -> float | None:
    value = (values or {}).get(key)
    return float(value) if isinstance(value, int | float) else None


def _v1_to_v2(data: RawRecord) -> RawRecord:
    """Version 1 timed a run in one process (rounds): its history is that one invocation,
    and it serves the one group it was filed in."""
    timing = data.get("timing") or None
    config = data.get("config") or {}
    git = (data.get("environment") or {}).get("git") or {}
    if timing is not None:
        data["timing"] = {**timing, "method": timing.get("method") or "rounds in one process"}
        data.setdefault("history", [{
            "started_at": data.get("started_at"),
            "finished_at": data.get("finished_at"),
            "commit": git.get("commit") if isinstance(git, dict) else None,
            "method": "rounds in one process",
            "blocks": None,
            "samples": timing.get("n"),
        }])  # fmt: skip
    if isinstance(config, dict) and "group" in config:
        data.setdefault("groups", [config["group"]])
    return data


NOT_MEASURED = "not measured: the run predates measured memory (run.json version 3)"


def _v2_to_v3(data: RawRecord) -> RawRecord:
    """Version 3 records a measured peak beside the analytic footprint; a run measured
    before says it was not measured (never 0). Runs before compile modes ran eager."""
    if data.get("status") == "ok":
        data.setdefault("memory", {"measured": None, "why": NOT_MEASURED})
    return data


# The step-time statistics versions 1 to 3 stored beside the design, each computed by
# `measure`'s own copy of the statistics (stats.summarize_times, the block estimate with the
# between-session variation known when it ran): the report never read most of them and
# recomputed the rest, and `measure` now computes them as the report does.
STORED_STATISTICS = (
    "median_s", "q1_s", "q3_s", "iqr_s", "mean_s", "std_s", "min_s", "max_s", "cv",
    "median_ci95_s", "remeasure_ci95_s", "ci_method", "trend_s_per_iteration",
    "throughput_samples_per_s", "throughput_ci95", "levels",
)  # fmt: skip


def _v3_to_v4(data: RawRecord) -> RawRecord:
    """Version 4 stores how a run was timed, not its statistics (steps.csv holds every
    step they are computed from): the stored copies are dropped on reading."""
    timing = data.get("timing")
    if isinstance(timing, dict):
        data["timing"] = {k: v for k, v in timing.items() if k not in STORED_STATISTICS}
    return data


MIGRATIONS = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4}


def read_run(folder: Path) -> RunRecord | None:
    """The run.json of a run folder, or None when there is none."""
    path = folder / RUN_FILE
    if not path.exists():
        return None
    fix = "delete the run folder and measure it again (`--force`)"
    data = upgrade(load_json(path, fix), path, RUN_SCHEMA_VERSION, MIGRATIONS)
    return validated(RunRecord, data, path, fix)


def read_runs(measurements: Path) -> Iterator[tuple[Path, RunRecord]]:
    """Each run folder under measurements/runs/ with its record, in name order (a folder
    without run.json is passed over, and so is a hidden one: a staging folder a killed
    `measure` left holds a run.json that is no result)."""
    runs = measurements / "runs"
    folders = runs.iterdir() if runs.is_dir() else iter(())
    for folder in sorted(p for p in folders if p.is_dir() and not p.name.startswith(".")):
        if (record := read_run(folder)) is not None:
            yield folder, record


def write_counts(
    folder: Path,
    complexity: ComplexityTotals,
    point: ModelledPoint,
    memory: Callable[[MemorySummary], MemorySummary],
) -> None:
    """run.json as it is on disk (its version and keys kept: not migrated), with other
    analytic counts: `complexity`, `modelled_point` and, where a memory is recorded, the one
    `memory` makes of it (atomically)."""
    path = folder / RUN_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    data["complexity"] = complexity
    data["modelled_point"] = point.model_dump(mode="json")
    if data.get("memory"):
        data["memory"] = memory(data["memory"])
    write_json(path, data)


def write_run(folder: Path, record: RunRecord) -> None:
    """Atomically; keys the record was not given are left out (a failed run has no timing)."""
    data = record.model_dump(mode="json", exclude_unset=True)
    write_json(folder / RUN_FILE, {"schema_version": record.schema_version, **data})
