"""A measured run's files: steps.csv, ops.csv, complexity.csv, layers.csv and the ncu
export, written into its staging folder, and run.json's measured part built from them. Both
methods (rounds in one process, blocks of worker processes) end here."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from generator.analysis.layer_join import LAYERS_COLUMNS
from generator.config import RunConfig
from generator.findings import layer_time_by_phase, profiler_overhead
from generator.findings.resource_checks import resource_findings
from generator.measure import ncu as ncu_mode
from generator.measure.energy import energy_summary
from generator.measure.resources import compile_summary, memory_summary
from generator.measure.step import StepResult
from generator.measure.store import write_csv
from generator.records.finding import Finding, findings_json
from generator.records.run import (
    LAYERS_FILE,
    NCU_LOG,
    TRACE_FILE,
    Measured,
    ModelledPoint,
    Timing,
)
from generator.stats import summarize_times

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


@dataclass(frozen=True)
class NcuSettings:
    executable: str
    metrics: list[str]  # cut to what this GPU has (ncu_mode.metrics_for_this_gpu)
    timeout_s: float
    replay: ncu_mode.ReplayPlan = field(default_factory=ncu_mode.ReplayPlan)


NCU_RANGE_FILE = "ncu-range.csv"  # range replay: counters per phase range of the whole step


def ncu_passes(ncu: NcuSettings, folder: Path, config_path: Path) -> list[dict[str, Any]]:
    """The ncu passes of one run, in order: each one's profile and export commands and the
    file its export goes to (range replay first, then the kernel sample; kernel mode: one
    pass over every kernel)."""
    plan = ncu.replay
    passes = []
    if plan.mode != "kernel":
        passes.append(("range", ncu_mode.replay_arguments(plan.mode), NCU_RANGE_FILE))
    if plan.mode == "kernel" or plan.kernel_count:
        count = plan.kernel_count if plan.mode != "kernel" else 0
        sample = ncu_mode.replay_arguments("kernel", plan.kernel_skip, count)
        passes.append(("kernel", sample, "ncu.csv"))
    out = []
    for name, replay, csv in passes:
        report = folder / f"profile-{name}.ncu-rep"
        profile = ncu_mode.profile_command(ncu.executable, report, config_path,
                                           metrics=ncu.metrics, replay=replay)  # fmt: skip
        export = ncu_mode.export_command(ncu.executable, report)
        out.append({"pass": name, "profile_command": profile, "export_command": export,
                    "report": str(report), "csv": csv})  # fmt: skip
    return out


def _run_ncu(config: RunConfig, folder: Path, ncu: NcuSettings) -> dict[str, Any]:
    config_path = folder / "ncu-config.json"
    config_path.write_text(json.dumps(config.as_dict()))
    passes = ncu_passes(ncu, folder, config_path)
    for one in passes:
        ncu_mode.run_ncu(one["profile_command"], ncu.timeout_s, log=folder / NCU_LOG)
        (folder / one["csv"]).write_text(ncu_mode.run_ncu(one["export_command"], ncu.timeout_s))
        Path(one.pop("report")).unlink(missing_ok=True)
    config_path.unlink(missing_ok=True)
    return {
        **ncu.replay.record(),
        "passes": passes,
        "clock_control": ncu_mode.CLOCK_CONTROL,
        "cache_control": ncu_mode.CACHE_CONTROL,
    }


def _ncu_files(ncu: NcuSettings) -> list[str]:
    return [one["csv"] for one in ncu_passes(ncu, Path("."), Path("."))]


@dataclass(frozen=True)
class NsysSettings:
    executable: str
    timeout_s: float


NSYS_FILE = "nsys.sqlite"
NSYS_LOG = "nsys.log"


def _run_nsys(config: RunConfig, folder: Path, nsys: NsysSettings) -> dict[str, Any]:
    """One step under Nsight Systems; its SQLite export kept as nsys.sqlite."""
    from generator.measure import nsys as nsys_mode

    config_path = folder / "nsys-config.json"
    config_path.write_text(json.dumps(config.as_dict()))
    report = folder / "profile"
    profile = nsys_mode.profile_command(nsys.executable, report, config_path)
    nsys_mode.run_nsys(profile, nsys.timeout_s, log=folder / NSYS_LOG)
    export = nsys_mode.export_command(nsys.executable, report, folder / NSYS_FILE)
    nsys_mode.run_nsys(export, nsys.timeout_s, log=folder / NSYS_LOG)
    Path(f"{report}.nsys-rep").unlink(missing_ok=True)
    config_path.unlink(missing_ok=True)
    return {"profile_command": profile, "export_command": export}


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
) -> list[dict[str, Any]] | None:
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


def modelled_point(totals: dict[str, Any], median_s: float) -> ModelledPoint:
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
    timing_method: dict[str, Any],
    conditions: dict[str, Any],
    nsys: NsysSettings | None = None,
    blocks: list[dict[str, Any]] | None = None,
) -> Measured:
    """Write the run's files into `folder` (a staging folder) from its timed steps and its
    profiled step (`result.ops`, the trace already in `folder`), and return run.json's
    measured part. `timing_method`: what the method adds to or overrides in the timing
    statistics (rounds and stopping rule, or the block estimate)."""
    from generator.complexity.footprint import footprint

    timing = summarize_times([row["step_s"] for row in result.rows], config.batch) | timing_method
    phases = {}
    for name in STEP_COLUMNS:
        values = [row[name] for row in result.rows if row.get(name) is not None]
        if name.endswith("_s") and name != "step_s" and len(values) >= 2:
            phases[name.removesuffix("_s")] = summarize_times(values, config.batch)["median_s"]
    write_csv(folder / "steps.csv", result.rows, STEP_COLUMNS)
    if config.profile:
        write_csv(folder / "ops.csv", result.ops, OPS_COLUMNS)
    complexity = analytic_counts(config)
    times = layer_times(folder / TRACE_FILE) if config.profile else None
    by_layer = write_layer_files(folder, complexity, times)
    found: list[Finding] = []
    if by_layer is not None:
        found = profiler_overhead(layer_time_by_phase(by_layer), phases)
    totals = complexity.totals()
    analytic = footprint(complexity, token_inputs=config.vocab is not None)
    memory = memory_summary([b.get("memory") for b in blocks or []], analytic)
    compiled = compile_summary([b.get("compile") for b in blocks or []], config.compile)
    energy = energy_summary([b.get("energy") for b in blocks or []], config.batch)
    found += resource_findings(compiled, memory)
    median = timing["median_s"]
    files = ["run.json", "steps.csv", "complexity.csv"]
    if config.profile:
        files += ["ops.csv", TRACE_FILE, LAYERS_FILE]
    profiled = ncu is not None and config.device == "cuda"
    recorded = nsys is not None and config.device == "cuda"
    if recorded:
        files += [NSYS_FILE, NSYS_LOG]
    return Measured(
        settings=result.settings,
        timing=Timing.model_validate(timing),
        phase_median_s=phases,
        complexity=totals,
        modelled_point=modelled_point(totals, median),
        files=[*files, *_ncu_files(ncu), NCU_LOG] if profiled and ncu is not None else files,
        conditions=conditions,
        findings=findings_json(found),
        memory=memory,
        **({"compile": compiled} if compiled is not None else {}),
        **({"energy": energy} if energy is not None else {}),
        **({"ncu": _run_ncu(config, folder, ncu)} if profiled and ncu is not None else {}),
        **({"nsys": _run_nsys(config, folder, nsys)} if recorded and nsys is not None else {}),
    )
