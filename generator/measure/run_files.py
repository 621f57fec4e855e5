"""A measured run's files: steps.csv, ops.csv, complexity.csv, layers.csv and the
profilers' (measure/profilers.py: ncu's exports, nsys's capture), written into its staging
folder, and run.json's measured part built from them. Both methods (rounds in one process,
blocks of worker processes) end here."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import polars as pl

from generator.analysis.layer_join import LAYERS_COLUMNS
from generator.analysis.results import run_estimate
from generator.config import RunConfig
from generator.findings.run_checks import RunEvidence, layer_time_by_phase, run_findings
from generator.ingest.steps import read_steps
from generator.measure.energy import energy_summary
from generator.measure.profilers import NcuSettings as NcuSettings
from generator.measure.profilers import NsysSettings as NsysSettings
from generator.measure.profilers import profile_ncu, profile_nsys
from generator.measure.resources import BlockResources, compile_summary, memory_summary
from generator.measure.step import StepResult
from generator.measure.store import write_csv
from generator.records.finding import findings_json
from generator.records.run import (
    LAYERS_FILE,
    PHASES,
    TRACE_FILE,
    Measured,
    ModelledPoint,
    Timing,
)
from generator.records.run_parts import ComplexityTotals, RunConditions

if TYPE_CHECKING:  # it imports torch: only where the counts are made
    from generator.complexity.analyze import Complexity

STEP_COLUMNS = [
    "invocation",  # blocks: which measure call (0 = the first), as run.json's history
    "block",  # blocks: the worker process, numbered across invocations
    "repeat",  # rounds: the round; blocks: the block again
    "iteration",
    "forward_s",
    "loss_s",
    "backward_s",
    "optimizer_step_s",
    "step_s",
    # CUDA: the host's time to enqueue each phase and the step (measure.step._Clock); empty
    # on a CPU, where the host's time is the step's
    "host_forward_s",
    "host_loss_s",
    "host_backward_s",
    "host_optimizer_step_s",
    "host_s",
]
OPS_COLUMNS = [
    "phase",
    "op",
    "calls",
    "self_time_s",
    "total_time_s",
    "self_device_time_s",
    "input_shapes",
]


def layer_times(trace_path: Path) -> pl.DataFrame:
    """Each traced layer's time by phase (layer, phase, time_s) in the profiled step. The
    trace's work is stored beside it on the way (trace-analysis.parquet: the report reads
    that, not the trace; derived, so run.json does not list it)."""
    from generator.analysis.trace_analysis import analyze_trace
    from generator.analysis.trace_work import write_work

    analysis = analyze_trace(trace_path)
    write_work(analysis.work, trace_path, trace_path.parent)
    return (
        analysis.points.filter(pl.col("layer").is_not_null())
        .group_by("layer", "phase")
        .agg(pl.col("time_s").sum())
    )


def analytic_counts(config: RunConfig) -> Complexity:
    """The configuration's analytic counts (needs torch: the model is built on the meta
    device), by today's counting conventions."""
    from generator.complexity import analyze

    return analyze(
        config.model,
        config.input_shape,
        config.batch,
        config.classes,
        optimizer=config.optimizer,
        precision=config.precision,
        training=config.phase == "train_step",
        vocab=config.vocab,
        lm_phase=config.lm_phase,
    )


def write_layer_files(
    folder: Path, complexity: Complexity, times: pl.DataFrame | None
) -> list[dict[str, object]] | None:
    """complexity.csv (each layer's counts) and, given the layers' measured times (layer,
    phase, time_s: `layer_times`), layers.csv: those counts beside them. Returns layers.csv's
    rows."""
    from generator.analysis.layer_join import layer_rows
    from generator.complexity.report import LAYER_COLUMNS, complexity_dict

    layers = complexity_dict(complexity, None)["layers"]
    write_csv(folder / "complexity.csv", layers, list(LAYER_COLUMNS))
    if times is None:
        return None
    rows = layer_rows(times, layers).to_dicts()
    write_csv(folder / LAYERS_FILE, rows, list(LAYERS_COLUMNS))
    return rows


class Design(TypedDict, total=False):
    """How a method timed a run (run.json `timing` less its step count, `Timing`)."""

    method: str
    blocks: int
    rounds: int
    stopped_by: str | None
    ci_target: float


def modelled_point(totals: ComplexityTotals, median_s: float) -> ModelledPoint:
    """CPU (and any run without counters): analytic FLOPs and bytes over measured time."""
    return ModelledPoint(
        flops=totals["step_flops"],
        bytes=totals["min_traffic_bytes"],
        time_s=median_s,
        attained_flops_per_s=totals["step_flops"] / median_s,
        arithmetic_intensity=totals["arithmetic_intensity"],
    )


def measure_one(
    config: RunConfig,
    folder: Path,
    ncu: NcuSettings | None,
    result: StepResult,
    design: Design,
    conditions: RunConditions,
    nsys: NsysSettings | None = None,
    blocks: Sequence[BlockResources] | None = None,
    session_cv: float = 0.0,
) -> Measured:
    """Write the run's files into `folder` (a staging folder) from its timed steps and its
    profiled step (`result.ops`, the trace already in `folder`), and return run.json's
    measured part. `design`: how the method timed it (run.json `timing`: method, blocks or
    rounds, stopping rule). The step time of the modelled point is the one the report
    states for the run alone: `results.estimate` over steps.csv as written (`session_cv`:
    its device's between-session variation, which widens only the interval)."""
    from generator.complexity.footprint import footprint

    if len(result.rows) < 2:
        raise ValueError("need at least two timed iterations for a spread")
    timing = {"n": len(result.rows), **design}
    phases: dict[str, float | None] = {}
    for phase in PHASES:
        values = [v for row in result.rows if (v := row.get(f"{phase}_s")) is not None]
        if len(values) >= 2:
            phases[phase] = statistics.median(values)
    write_csv(folder / "steps.csv", result.rows, STEP_COLUMNS)
    median = run_estimate(read_steps(folder), session_cv).value
    if config.profile:
        write_csv(folder / "ops.csv", result.ops, OPS_COLUMNS)
    complexity = analytic_counts(config)
    times = layer_times(folder / TRACE_FILE) if config.profile else None
    by_layer = write_layer_files(folder, complexity, times)
    totals = complexity.totals()
    analytic = footprint(complexity, token_inputs=config.vocab is not None)
    memory = memory_summary([b.get("memory") for b in blocks or []], analytic)
    compiled = compile_summary([b.get("compile") for b in blocks or []], config.compile)
    energy = energy_summary([b.get("energy") for b in blocks or []], config.batch)
    files = ["run.json", "steps.csv", "complexity.csv"]
    if config.profile:
        files += ["ops.csv", TRACE_FILE, LAYERS_FILE]
    # A profiler's failure is recorded with the run, never in place of its timing.
    cuda = config.device == "cuda"
    by_ncu = profile_ncu(config, folder, ncu) if ncu is not None and cuda else None
    by_nsys = profile_nsys(config, folder, nsys) if nsys is not None and cuda else None
    # the same evidence rederive reads back from these files (findings/run_checks.py)
    found = run_findings(RunEvidence(
        layer_s=layer_time_by_phase(by_layer) if by_layer is not None else {},
        phase_median_s=phases, compiled=compiled, memory=memory,
        ncu=by_ncu.record if by_ncu else None, nsys=by_nsys.record if by_nsys else None,
        group=config.group,
    ))  # fmt: skip
    files += [*(by_nsys.files if by_nsys else []), *(by_ncu.files if by_ncu else [])]
    measured = Measured(
        settings=result.settings,
        timing=Timing.model_validate(timing),
        phase_median_s=phases,
        complexity=totals,
        modelled_point=modelled_point(totals, median),
        files=files,
        conditions=conditions,
        findings=findings_json(found),
        memory=memory,
    )
    # set only where there is one: run.json leaves out what a run did not record
    if compiled is not None:
        measured.compile = compiled
    if energy is not None:
        measured.energy = energy
    if by_ncu is not None:
        measured.ncu = by_ncu.record
    if by_nsys is not None:
        measured.nsys = by_nsys.record
    return measured
