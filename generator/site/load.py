"""Stage 1, load: every record the report is built from, read and validated once. The only
stage that reads measurements/ (and the parsed-export cache)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from generator.catalog import Device, load_catalog
from generator.config import ExperimentsFile, load_experiments
from generator.errors import UserError
from generator.ingest import NcuExport
from generator.ingest.cache import ParsedExport, cached_read, parsed_export
from generator.ingest.runs import read_runs, runs_frame
from generator.ingest.steps import cached_steps
from generator.pages.page import Kind
from generator.records.benchmarks import BenchmarkResults, read_benchmarks
from generator.records.calibration import CalibrationFile, read_calibrations
from generator.records.ceilings import (
    MeasuredCeilings,
    ceilings_path,
    load_ceilings,
    read_ceilings,
)
from generator.records.citation import read_citation, report_commit
from generator.records.complexity_tables import ComplexityTables, read_tables
from generator.records.contradictions import Contradiction, read_contradictions
from generator.records.import_source import (
    Imported,
    Source,
    check_imported,
    discover,
    discover_traces,
)
from generator.records.literature import LiteratureRow, read_literature
from generator.records.pending import Pending, read_all_pending
from generator.records.references import Reference, read_references
from generator.records.run import LAYERS_FILE, TRACE_FILE, RunRecord
from generator.records.seed_audit import AuditItem, read_audit
from generator.records.seed_claims import Claim, read_claims
from generator.site.context import BuildContext
from generator.site.kinds import KINDS
from generator.store import Store


@dataclass(frozen=True)
class ProfiledRun:
    """A run measured with `--ncu`: its record and its parsed ncu.csv (from the parse
    cache, its frames read when first needed: `ParsedExport`)."""

    record: RunRecord
    csv_path: Path
    export: NcuExport | ParsedExport


@dataclass(frozen=True)
class LoadedTrace:
    """A torch.profiler trace to analyse: imported (with its source.toml, and an ncu export
    of the same work when one sits beside it) or a measured run's profiled step. Found, not
    read: the analyse stage reads it only when its analysis is not cached
    (`site/trace_cache.py`)."""

    slug: str
    path: Path
    source: Source | None = None
    ncu: NcuExport | None = None
    record: RunRecord | None = None
    layers: Path | None = None  # the run's layers.csv (LAYERS_SCHEMA), when it has one
    ceilings: MeasuredCeilings | None = None


@dataclass(frozen=True)
class Loaded:
    measurements: Path
    context: BuildContext  # the build's store, cache folder and pool (site/context.py)
    catalog: tuple[Device, ...]
    imported: list[tuple[Imported, NcuExport]]
    runs: pl.DataFrame  # ingest.runs.RUN_SCHEMA, one row per run folder
    profiled: list[ProfiledRun]
    steps: dict[str, pl.DataFrame]  # ok run -> its steps.csv (every timed iteration)
    records: dict[str, RunRecord]  # ok run -> its run.json
    experiments: ExperimentsFile | None
    ceilings: list[MeasuredCeilings]
    complexity: ComplexityTables
    literature: list[LiteratureRow]
    references: dict[str, Reference]
    citation: dict[str, Any]
    benchmarks: BenchmarkResults | None
    traces: list[LoadedTrace]
    calibrations: list[CalibrationFile]  # `remeasure` calls, oldest first
    kinds: Sequence[Kind[Any, Any]] = KINDS  # the input kinds read (site/kinds.py)
    # kind name -> what it found in imported/ (found, not read: its analysis reads them)
    captures: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    # configurations whose measure was stopped: the blocks kept so far (records/pending.py)
    pending: Sequence[Pending] = ()
    contradictions: Sequence[Contradiction] = ()  # literature/contradictions.toml
    claims: Sequence[Claim] = ()  # literature/claims.toml
    audit: Sequence[AuditItem] = ()  # literature/audit/items.csv

    @property
    def step_times(self) -> dict[str, list[float]]:
        """ok run -> its timed iterations' step times."""
        return {run: [float(t) for t in f["step_s"]] for run, f in self.steps.items()}


def load_measurements(context: BuildContext, kinds: Sequence[Kind[Any, Any]] = KINDS) -> Loaded:
    """`kinds`: the input kinds to find in imported/ besides the ncu exports and traces."""
    measurements, store = context.measurements, context.store
    if not measurements.is_dir():
        raise UserError(
            "the measurements folder does not exist",
            file=measurements,
            fix="run from the repository root, or pass --measurements PATH",
        )
    config = measurements / "experiments.toml"
    check_imported(measurements, [kind.folder for kind in kinds])
    catalog = load_catalog()
    literature = read_literature(measurements, {d.id for d in catalog})
    references = read_references(measurements)
    _check_cited(literature, references)
    contradictions = read_contradictions(measurements, {row.id for row in literature})
    claims = read_claims(measurements, literature, {d.id for d in catalog})
    every = read_runs(measurements)  # each run's record, read once for the stages below
    records = {run_id: record for run_id, record in every.items() if record.status == "ok"}
    repository = measurements.parent
    return Loaded(
        measurements=measurements,
        context=context,
        catalog=catalog,
        imported=[(item, cached_read(item.csv_path, store)) for item in discover(measurements)],
        runs=runs_frame(every),
        profiled=_profiled_runs(measurements, records, store),
        steps=cached_steps(
            {run_id: measurements / "runs" / run_id for run_id in records}, context.store
        ),
        records=records,
        experiments=load_experiments(config) if config.is_file() else None,
        ceilings=load_ceilings(measurements),
        complexity=read_tables(measurements / "complexity"),
        literature=literature,
        references=references,
        contradictions=contradictions,
        claims=claims,
        audit=read_audit(measurements),
        citation={
            **read_citation(repository),
            "report-commit": report_commit(repository),
            **context.citation,  # the release's version and URL, over the file's
        },
        benchmarks=read_benchmarks(repository),
        traces=_imported_traces(measurements, store) + _run_traces(measurements, records),
        calibrations=read_calibrations(measurements),
        kinds=kinds,
        captures={kind.name: kind.find(measurements) for kind in kinds},
        pending=read_all_pending(measurements),
    )


def _imported_traces(measurements: Path, store: Store) -> list[LoadedTrace]:
    return [
        LoadedTrace(
            slug=item.name,
            path=item.trace_path,
            source=item.source,
            ncu=cached_read(item.csv_path, store) if item.csv_path else None,
        )
        for item in discover_traces(measurements)
    ]


def _run_traces(measurements: Path, records: dict[str, RunRecord]) -> list[LoadedTrace]:
    """Every ok run whose profiled step was kept (runs/<id>/trace.json.gz), with the
    ceilings of the device it ran on (each ceilings file read once)."""
    found = []
    ceilings_by_id: dict[str, MeasuredCeilings | None] = {}
    for run_id, record in records.items():
        folder = measurements / "runs" / run_id
        trace = folder / TRACE_FILE
        if not trace.is_file():
            continue
        layers = folder / LAYERS_FILE
        if record.ceilings and record.ceilings not in ceilings_by_id:
            path = ceilings_path(measurements, record.ceilings)
            ceilings_by_id[record.ceilings] = read_ceilings(path) if path.is_file() else None
        found.append(
            LoadedTrace(
                slug=f"run-{run_id}",
                path=trace,
                record=record,
                layers=layers if layers.is_file() else None,
                ceilings=ceilings_by_id.get(record.ceilings) if record.ceilings else None,
            )
        )
    return found


def _check_cited(literature: list[LiteratureRow], references: dict[str, Reference]) -> None:
    """Every transcribed number's report must be citable by a reader."""
    for row in literature:
        if row.seed not in references:
            raise UserError(
                f"seed {row.seed} has no entry in literature/references.toml",
                file=row.file,
                line=row.line,
                key="seed",
                fix="add a [[reference]] with its authors, title, kind, institution, date and "
                "the URL of its data, if public",
            )


def _profiled_runs(
    measurements: Path, records: dict[str, RunRecord], store: Store
) -> list[ProfiledRun]:
    """Every ok run profiled with `nox -s measure -- --ncu` (runs/<id>/ncu.csv)."""
    found = []
    for run_id, record in records.items():
        csv_path = measurements / "runs" / run_id / "ncu.csv"
        if csv_path.is_file():
            found.append(ProfiledRun(record, csv_path, parsed_export(csv_path, store)))
    return found
