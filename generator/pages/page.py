"""What a page module receives (`Report`) and returns (`Page`), and how it declares itself.

A page module exposes `PAGE = Generated(section, render)`, where `render(report)` returns
the pages it makes (none, one, or one per experiment group or export). The registry
(`pages/registry.py`) lists the modules in reading order; the site's navigation and every
page's downloads come from what `render` returned, so adding a page is one module, its
template and one line in the registry. A kind of imported input declares itself as a
`Kind` (its finder, analysis, page and Traces index section), registered in `site/kinds.py`;
`Report.of(kind)` gives a page its views.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

import polars as pl

from generator.analysis.device_choice import Workload
from generator.analysis.gpu_utilisation import BesideSeed
from generator.analysis.odd_ratios import Odd
from generator.analysis.overview import OverviewPoints
from generator.analysis.points import Points
from generator.analysis.replication import Replication
from generator.analysis.results import Result
from generator.analysis.seed_claims import JudgedClaim
from generator.analysis.seed_prediction import Prediction
from generator.analysis.step_verdict import StepVerdict
from generator.analysis.verdict_needs import Verdict
from generator.analysis.views import MeasurementView, TraceView
from generator.catalog import Device
from generator.charts.vega import VegaSpec
from generator.config import ExperimentsFile
from generator.findings import Finding
from generator.records.benchmarks import BenchmarkResults
from generator.records.calibration import CalibrationFile
from generator.records.ceilings import MeasuredCeilings
from generator.records.complexity_tables import ComplexityTables
from generator.records.contradictions import Contradiction
from generator.records.import_source import Imported
from generator.records.pending import Pending
from generator.records.references import Reference
from generator.records.run import RunRecord
from generator.records.seed_audit import AuditItem

F = TypeVar("F")  # what a kind finds in measurements/imported/
V = TypeVar("V")  # what its analysis makes of one of them: what its page shows


@dataclass(frozen=True)
class KindContext:
    """What a kind's analysis may read besides its own files."""

    catalog: tuple[Device, ...]
    ceilings: Sequence[MeasuredCeilings]


@dataclass(frozen=True)
class Kind(Generic[F, V]):
    """A kind of imported input, declared once and registered in `site/kinds.py`: the
    stages carry what it finds and makes under its name (`Loaded.captures`,
    `Analysed.captures`, `Report.captures`), and its pages go under Traces.

    name: its key in those mappings. folder: the folder of
    `measurements/imported/<name>/` that holds its files (what makes an imported folder
    one of this kind). find: measurements/ -> what it found, sorted (its reader reads
    them in `analyse`, or here). analyse: those -> one view each, typed. page: a view's
    page. index: its section of the Traces index (Markdown), None for none; sections come
    newest kind first."""

    name: str
    folder: str
    find: Callable[[Path], Sequence[F]]
    analyse: Callable[[Sequence[F], KindContext], Sequence[V]]
    page: Callable[[V], Page]
    index: Callable[[Sequence[V]], str] | None = None


@dataclass(frozen=True)
class Report:
    """Everything the pages show: the loaded records, their analysis and their findings,
    with each export's roofline drawn. Pages read it; none of them reads a file."""

    catalog: tuple[Device, ...]
    imported: list[Imported]
    runs: pl.DataFrame  # ingest.runs.RUN_SCHEMA: no statistic; each ok run's is in `results`
    experiments: ExperimentsFile | None
    ceilings: list[MeasuredCeilings]
    complexity: ComplexityTables
    references: dict[str, Reference]
    citation: dict[str, Any]
    benchmarks: BenchmarkResults | None
    views: list[MeasurementView]
    replications: list[Replication]
    verdicts: dict[str, Verdict]
    workloads: list[Workload]
    overview: OverviewPoints
    run_findings: dict[str, tuple[Finding, ...]] = field(default_factory=dict)
    traces: list[TraceView] = field(default_factory=list)  # imported and run profiler traces
    steps: Mapping[str, pl.DataFrame] = field(default_factory=dict)  # ok run -> its steps.csv
    trace_pages: Mapping[str, Page] = field(default_factory=dict)  # slug -> page, from cache
    measurement_pages: Mapping[str, Page] = field(default_factory=dict)  # the same, for views
    run_pages: Mapping[str, Page] = field(default_factory=dict)  # run id -> page, from cache
    step_verdicts: Mapping[str, StepVerdict] = field(default_factory=dict)  # ok run -> headline
    results: Mapping[str, Result] = field(default_factory=dict)  # workload -> its one result
    points: Mapping[str, Points] = field(default_factory=dict)  # workload -> its three points
    # every comparison against its expected direction, with its cause (analysis/odd_ratios.py)
    odd: Sequence[Odd] = ()
    run_folders: Mapping[str, Path] = field(default_factory=dict)  # run id -> its folder
    records: Mapping[str, RunRecord] = field(default_factory=dict)  # ok run -> its run.json
    calibrations: Sequence[CalibrationFile] = ()  # `remeasure` calls, oldest first
    # The registered input kinds (`site/kinds.py`) and what each made: kind name -> views
    kinds: Sequence[Kind[Any, Any]] = ()
    captures: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    pending: Sequence[Pending] = ()  # stopped configurations' kept blocks (records/pending.py)
    # seed claims against our numbers, each printed on the page that shows ours
    contradictions: Sequence[Contradiction] = ()
    # every published time of the seeds beside the roofline's prediction of it
    seed_predictions: Sequence[Prediction] = ()
    # the seeds' claims (literature/claims.toml), each judged by arithmetic
    seed_claims: Sequence[JudgedClaim] = ()
    # seed 004's GPU utilisation and bandwidth beside ours (analysis/gpu_utilisation.py)
    utilisation_beside: Sequence[BesideSeed] = ()
    # every analysis item of the seeds and what this report shows of it
    audit: Sequence[AuditItem] = ()

    def of(self, kind: Kind[Any, V]) -> Sequence[V]:
        """The kind's views, typed as its analysis made them."""
        return cast("Sequence[V]", self.captures.get(kind.name, ()))


@dataclass(frozen=True)
class Page:
    """One generated page: its Markdown, its charts as objects and its tables, both offered
    as downloads under it."""

    path: str  # relative to docs/
    title: str  # navigation title (HTML-escaped when the nav is written)
    markdown: str
    charts: Mapping[str, VegaSpec] = field(default_factory=dict)  # chart id -> spec
    tables: Mapping[str, pl.DataFrame] = field(default_factory=dict)  # download name -> frame
    in_nav: bool = True  # False: reached by links only (one page per run would flood the nav)
    # Downloads already made and linked (a page from the trace cache): docs-relative -> bytes
    files: Mapping[str, bytes] | None = None
    # Markdown that hand-written pages include by a marker `<!-- generated: NAME -->`
    # (site/mkdocs_hooks.py): NAME -> text, written to INCLUDES_DIR/NAME.md.txt
    includes: Mapping[str, str] = field(default_factory=dict)
    # Files offered as they are (a run's run.json, steps.csv, ...): download name -> source
    copies: Mapping[str, Path] = field(default_factory=dict)
    # Text files the page makes (the Cite page's results.bib): download name -> text
    texts: Mapping[str, str] = field(default_factory=dict)
    chart_files: bool = True  # False: no SVG/PDF rendered (`ChartBook(files=False)`)


@dataclass(frozen=True)
class Generated:
    """A page module's declaration: the navigation section its pages go under (None: at the
    top level) and the function that makes them. The registry places each entry in the
    reader's sections (`registry.under`), which replaces the section given here.

    nav_all_up_to: while the entry makes at most this many pages, the nav lists them all,
    link-only ones (`Page.in_nav` False) included; above it, only the in-nav ones (the nav
    stays the same size however many there are). nav_order: a sort key over the pages'
    paths (None: the order `render` returned)."""

    section: str | None
    render: Callable[[Report], list[Page]]
    nav_all_up_to: int = 0
    nav_order: Callable[[str], Any] | None = None


@dataclass(frozen=True)
class HandWritten:
    """A page written by hand in docs/, placed in the reading order by the registry."""

    title: str
    path: str
    section: str | None = None
