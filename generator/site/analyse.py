"""Stage 2, analyse: each export's roofline and findings, the replication of the seeds'
numbers, the device-choice workloads, the verdicts and the overview's points. Pure but for
the profiler traces: each is read only when its analysis is not in the content-keyed cache
(`site/trace_cache.py`), so a rebuild reads the new ones alone."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import polars as pl

from generator.analysis.device_choice import Workload, trace_workloads, workloads
from generator.analysis.gpu_utilisation import BesideSeed, beside_seed, utilisations
from generator.analysis.launch import LaunchTime
from generator.analysis.layer_join import LAYERS_SCHEMA
from generator.analysis.odd_ratios import Odd, odd_pairs, odd_phases
from generator.analysis.overview import OverviewPoints, overview_points
from generator.analysis.phases import training_parts
from generator.analysis.points import Points, all_points, headline_verdicts
from generator.analysis.replication import Replication, configuration_flops, replicate
from generator.analysis.results import Result, results, timed_step_of_runs, with_trace_launch
from generator.analysis.roofs import ceiling_of
from generator.analysis.seed_claims import JudgedClaim, judge_claims, with_literature_steps
from generator.analysis.seed_inputs import counts_by_workload, profiled_kernels
from generator.analysis.seed_prediction import Counts, Prediction, WorkloadKey, predict
from generator.analysis.step_verdict import StepVerdict
from generator.analysis.trace_analysis import analysis_of_work
from generator.analysis.trace_work import stored_state
from generator.analysis.trace_work import work as trace_work
from generator.analysis.verdict_needs import Verdict
from generator.analysis.verdicts import group_verdicts
from generator.analysis.views import MeasurementView, TraceView
from generator.catalog import Device, device_label, lookup_device
from generator.findings import trace_findings
from generator.findings.specs import PROFILER_OVERHEAD
from generator.pages.page import KindContext, Page
from generator.pages.run_text import run_label
from generator.records.calibration import session_cvs
from generator.records.ceilings import MeasuredCeilings
from generator.records.finding import stored_findings
from generator.records.import_source import Source
from generator.records.run import RunRecord
from generator.site.kernel_views import imported_view, run_roof, run_view
from generator.site.load import Loaded, LoadedTrace
from generator.site.trace_cache import cached_traces, is_stored, trace_key


@dataclass(frozen=True)
class Analysed:
    loaded: Loaded
    runs: pl.DataFrame  # loaded.runs: no statistic; each ok run's is in `results`
    views: list[MeasurementView]  # one per ncu export, imported ones first; no chart yet
    replications: list[Replication]
    workloads: list[Workload]
    verdicts: dict[str, Verdict]  # experiment group id -> verdict
    overview: OverviewPoints
    traces: list[TraceView]  # imported traces first, then each run's profiled step
    trace_pages: dict[str, Page]  # each trace's page by slug, drawn with its analysis
    step_verdicts: dict[str, StepVerdict]  # ok run -> its configuration's headline bound
    results: dict[str, Result] = field(default_factory=dict)  # workload -> its one result
    points: dict[str, Points] = field(default_factory=dict)  # workload -> its three points
    # every comparison against its expected direction, with its cause (analysis/odd_ratios.py)
    odd: tuple[Odd, ...] = ()
    # kind name -> its views, one per capture it found (site/kinds.py)
    captures: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    # every published time of the seeds beside the roofline's prediction of it
    seed_predictions: list[Prediction] = field(default_factory=list)
    # the seeds' claims (literature/claims.toml), each judged by arithmetic
    seed_claims: list[JudgedClaim] = field(default_factory=list)
    # seed 004's GPU utilisation and bandwidth beside ours (analysis/gpu_utilisation.py)
    utilisation_beside: list[BesideSeed] = field(default_factory=list)


def analyse(loaded: Loaded) -> Analysed:
    found = results(loaded.runs, loaded.steps, session_cvs(loaded.calibrations))
    runs = loaded.runs
    analytic = _rows_by(loaded.complexity.frames.get("imported.csv"), ("name",))
    cache = loaded.context.store  # kernel checks are kept (export_cache.py)
    views = [
        imported_view(item, export, analytic.get((item.name,)), cache, loaded)
        for item, export in loaded.imported
    ]
    views += [run_view(run, loaded, cache) for run in loaded.profiled]
    replications = replicate(
        loaded.literature,
        {d.id: d for d in loaded.catalog},
        _rows_by(loaded.complexity.frames.get("literature.csv"), ("model", "dataset", "batch")),
        {view.slug: view.step for view in views},
        _measured_steps(runs, found),
        configuration_flops(runs),
    )
    datasets = {item.name: item.source.dataset or "" for item, _ in loaded.imported} | {
        f"run-{r['run_id']}": r["dataset"] for r in runs.to_dicts()
    }
    counted = {view.slug: view.step.flops for view in views}
    analysed_traces = _trace_views(loaded, counted, timed_step_of_runs(found))
    traces = [view for view, _ in analysed_traces]
    imported_traces = [t for t in traces if t.kind == "imported"]
    launches = _trace_launches(traces)
    found = with_trace_launch(found, launches)
    figures = utilisations(found, launches, {run.record.run_id for run in loaded.profiled})
    points = all_points(found, views, traces, loaded.ceilings, loaded.catalog)
    counts = counts_by_workload(loaded.complexity.frames.get("seed_workloads.csv"), runs)
    return Analysed(
        loaded=loaded,
        runs=runs,
        views=views,
        replications=replications,
        workloads=workloads(views, runs, found, loaded.ceilings, datasets)
        + trace_workloads(imported_traces),
        verdicts=group_verdicts(loaded.experiments, runs, found, ceiling_of(loaded.ceilings)),
        overview=overview_points(runs, found, views, loaded.ceilings, imported_traces),
        traces=traces,
        trace_pages={view.slug: page for view, page in analysed_traces},
        step_verdicts=headline_verdicts(found, points),
        results=found,
        points=points,
        odd=(
            *odd_pairs(found.values(), points),
            *odd_phases(training_parts(runs, loaded.steps, found), found, points),
        ),
        captures=analyse_kinds(loaded),
        seed_predictions=_seed_predictions(loaded, runs, traces, replications, counted, counts),
        seed_claims=judge_claims(
            loaded.claims,
            loaded.literature,
            loaded.catalog,
            loaded.ceilings,
            with_literature_steps(counts, loaded.complexity.frames.get("literature.csv")),
        ),
        utilisation_beside=beside_seed(loaded.literature, found, figures),
    )


def _seed_predictions(
    loaded: Loaded,
    runs: pl.DataFrame,
    traces: Sequence[TraceView],
    replications: Sequence[Replication],
    counted: Mapping[str, float | None],
    counts: Mapping[WorkloadKey, Counts],
) -> list[Prediction]:
    """The seeds' published times predicted on the devices they ran on."""
    imported: dict[str, tuple[str, str, int, str]] = {}
    devices: dict[str, Device | None] = {}
    for item, _ in loaded.imported:
        source = item.source
        if source.registry_model and source.dataset and source.batch:
            imported[item.name] = (source.registry_model, source.dataset, source.batch,
                                   source.phase)  # fmt: skip
        devices[item.name] = lookup_device(source.device, loaded.catalog) if source.device else None
    return predict(
        loaded.literature,
        loaded.catalog,
        counts,
        loaded.ceilings,
        profiled_kernels(traces, runs),
        imported,
        devices,
        {r.row.id: r.status for r in replications},
        counted,
    )


def _trace_launches(traces: Sequence[TraceView]) -> dict[str, LaunchTime]:
    """Run id -> the launch time of its profiled step, where its trace gives one."""
    found = {}
    for view in traces:
        launch = view.analysis.launch
        if view.kind == "run" and launch is not None:
            found[view.slug.removeprefix("run-")] = launch
    return found


def analyse_kinds(loaded: Loaded) -> dict[str, Sequence[Any]]:
    """Each input kind's views of what it found."""
    context = KindContext(loaded.catalog, loaded.ceilings)
    return {kind.name: kind.analyse(loaded.captures[kind.name], context) for kind in loaded.kinds}


def _trace_views(
    loaded: Loaded, counted: dict[str, float | None], timed_steps: Mapping[str, float]
) -> list[tuple[TraceView, Page]]:
    """Every trace's view and page, through the content-keyed cache (read, analysed and
    drawn on a miss). `timed_steps`: run id -> its timed median step, which a run's
    profiled step is judged host-bound against, as on the run's page."""
    store = loaded.context.store
    jobs: list[tuple[str, Callable[[], TraceView]]] = []
    for item in loaded.traces:
        if item.source is not None:
            flops = counted.get(item.slug) if item.ncu is not None else None
            inputs = f"{item.slug}\0{item.source.model_dump_json()}\0{flops}"
            job = partial(_imported_view_of_trace, item.slug, item.path, item.source, flops)
            files = [item.path]
        else:
            assert item.record is not None
            ceilings = repr(item.ceilings)  # a frozen dataclass of numbers and text
            timed = timed_steps.get(item.record.run_id)
            inputs = f"{item.slug}\0{item.record.model_dump_json()}\0{ceilings}\0{timed}"
            job = partial(_run_view_of_trace, item.slug, item.path, item.record, item.layers,
                          item.ceilings, loaded.catalog, timed)  # fmt: skip
            files = [item.path, *([item.layers] if item.layers else [])]
        jobs.append((trace_key(files, inputs, store), job))
    to_read = [
        item
        for item, (key, _) in zip(loaded.traces, jobs, strict=True)
        if not is_stored(key, store)
    ]
    _say_unstored(to_read, len(loaded.traces))
    return cached_traces(jobs, loaded.context)


def _say_unstored(to_read: list[LoadedTrace], total: int) -> None:
    """One line when traces to be read (their view is not in the cache) have no current
    stored analysis (trace_work.py): they are analysed from the trace, which is right but
    slow, so the reader learns how to store it. (Asked of those alone: reading every
    stored file's metadata cost 0.1 s of a rebuild at 1,000 runs.)"""
    states = [stored_state(item.path.parent, item.path) for item in to_read]
    unstored = Counter(state for state in states if state != "current")
    if unstored:
        why = ", ".join(f"{n} {state}" for state, n in sorted(unstored.items()))
        print(
            f"report: {sum(unstored.values())} of {total} traces have no current stored "
            f"analysis ({why}); read from the trace this time. "
            "`python -m generator trace-work` stores them.",
            file=sys.stderr,
        )


def _imported_view_of_trace(
    slug: str, path: Path, source: Source, counted_flops: float | None
) -> TraceView:
    """An imported trace against its source's device."""
    analysis = analysis_of_work(trace_work(path, path.parent), path, source.device, None)
    return TraceView(
        slug=slug,
        title=source.title,
        kind="imported",
        origin=source.origin,
        citation=source.citation,
        phase=source.phase,
        analysis=analysis,
        counted_flops=counted_flops,
        findings=trace_findings(analysis, source.phase),
    )


def _run_view_of_trace(
    slug: str,
    path: Path,
    record: RunRecord,
    layers: Path | None,
    ceilings: MeasuredCeilings | None,
    catalog: tuple[Device, ...] | None = None,
    timed_step_s: float | None = None,
) -> TraceView:
    """A run's profiled step against its own ceilings, with its per-layer join; judged
    host-bound against the run's timed median step (`timed_step_s`) as its run page is."""
    work = trace_work(path, path.parent)
    phase = record.config.phase
    analysis = analysis_of_work(work, path, None, ceilings)
    return TraceView(
        slug=slug,
        title=run_label(
            {**record.config.model_dump(), "device_label": device_label(record.device_name)}
        ),
        kind="run",
        origin=f"measurements/runs/{record.run_id}/",
        citation="",
        phase=phase,
        analysis=analysis,
        layers=pl.read_csv(layers, schema=LAYERS_SCHEMA) if layers else None,
        forward_range_s=work.forward_range_s,
        # The run's own profiler-overhead finding is about this page's layer times.
        findings=(
            *trace_findings(analysis, phase, timed_step_s),
            *stored_findings(record.findings, PROFILER_OVERHEAD.id),
        ),
        roof=run_roof(record, [ceilings] if ceilings else [], catalog),
    )


def _rows_by(
    frame: pl.DataFrame | None, key: tuple[str, ...]
) -> dict[tuple[Any, ...], dict[str, Any]]:
    if frame is None:
        return {}
    return {tuple(row[k] for k in key): row for row in frame.to_dicts()}


def _measured_steps(
    runs: pl.DataFrame, results: Mapping[str, Result]
) -> dict[tuple[str, str, int, str, str], list[tuple[str, float]]]:
    """Each ok eager run's result's step time, by the configuration a published number
    names (device kind included): published numbers are of models as PyTorch runs them."""
    found: dict[tuple[str, str, int, str, str], list[tuple[str, float]]] = {}
    eager = pl.col("compile").is_null() | (pl.col("compile") == "eager")
    for row in runs.filter((pl.col("status") == "ok") & eager).to_dicts():
        key = (row["model"], row["dataset"], row["batch"], row["phase"], row["device"])
        if (result := results.get(row["workload"])) and result.run(row["run_id"]):  # timed
            found.setdefault(key, []).append((row["run_id"], result.step.value))
    return found
