"""The report build: a tuple of stages, each taking the previous stage's result.

    load_measurements -> compute_metrics -> draw_charts -> write_pages -> build_html

Generated pages go to docs/hardware.md and docs/measurements/ (git-ignored); the HTML is built
into a temporary folder and moved over site/ only when `mkdocs build --strict` succeeded, so a
failed build never leaves a partial site.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import polars as pl

from generator.atomic import write_text
from generator.catalog import Device, find_device, load_catalog
from generator.cite_page import cite_page
from generator.complexity.tables import read_tables as read_complexity_tables
from generator.complexity_page import complexity_page
from generator.config import ExperimentsFile, load_experiments
from generator.device_choice import workloads
from generator.device_choice_page import device_choice_page
from generator.downloads import VEGA_LITE_VERSION, attach_downloads
from generator.errors import UserError
from generator.experiment_pages import experiment_page
from generator.export_analysis import ExportAnalysis, analyze_export
from generator.findings import Finding, timing_findings
from generator.findings_page import findings_page
from generator.imported import Imported, discover
from generator.ingest.cache import cached_read
from generator.ingest.runs import RUN_SCHEMA, MeasuredCeilings, load_ceilings, load_runs
from generator.literature import LiteratureRow, read_literature
from generator.measure.store import read_run
from generator.overview_page import overview_page
from generator.page_data import (
    benchmark_frame,
    catalog_frame,
    ceilings_frame,
    findings_frame,
    measurement_frames,
    replication_frame,
    steps_frame,
)
from generator.pages import (
    MeasurementView,
    hardware_page,
    measurement_page,
    measurements_index,
)
from generator.performance_page import performance_page
from generator.references import Reference, read_references
from generator.replication import Replication, replicate
from generator.replication_page import replication_page
from generator.run_pages import runs_page
from generator.site_nav import site_nav
from generator.site_stamp import (
    GENERATED_DIR,
    HARDWARE_PAGE,
    MATHJAX_DIR,
    STAMP,
    VEGA_DIR,
    input_fingerprint,
    report_up_to_date,
    up_to_date,
)


@dataclass
class Build:
    """What travels between stages."""

    measurements: Path
    docs_dir: Path
    site_dir: Path
    run_mkdocs: bool
    cache_dir: Path = Path(".cache") / "roofline-atlas"
    catalog: tuple[Device, ...] = ()
    imported: list[Imported] = field(default_factory=list)
    views: list[MeasurementView] = field(default_factory=list)
    runs: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=RUN_SCHEMA))
    experiments: ExperimentsFile | None = None
    ceilings: list[MeasuredCeilings] = field(default_factory=list)
    run_findings: dict[str, tuple[Finding, ...]] = field(default_factory=dict)
    complexity: dict[str, pl.DataFrame] = field(default_factory=dict)  # measurements/complexity
    literature: list[LiteratureRow] = field(default_factory=list)
    references: dict[str, Reference] = field(default_factory=dict)  # seed id -> report
    replications: list[Replication] = field(default_factory=list)
    pages: dict[str, str] = field(default_factory=dict)  # path in docs/ -> Markdown


def load_measurements(build: Build) -> Build:
    if not build.measurements.is_dir():
        raise UserError(
            "the measurements folder does not exist",
            file=build.measurements,
            fix="run from the repository root, or pass --measurements PATH",
        )
    config = build.measurements / "experiments.toml"
    catalog = load_catalog()
    literature = read_literature(build.measurements, {d.id for d in catalog})
    references = read_references(build.measurements)
    _check_cited(literature, references)
    return replace(
        build,
        catalog=catalog,
        literature=literature,
        references=references,
        complexity=read_complexity_tables(build.measurements / "complexity"),
        imported=discover(build.measurements),
        runs=load_runs(build.measurements),
        experiments=load_experiments(config) if config.is_file() else None,
        ceilings=load_ceilings(build.measurements),
    )


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


def _imported_analytic(tables: dict[str, pl.DataFrame]) -> dict[str, dict[str, Any]]:
    frame = tables.get("imported.csv")
    return {row["name"]: row for row in frame.to_dicts()} if frame is not None else {}


def compute_metrics(build: Build) -> Build:
    views = []
    analytic = _imported_analytic(build.complexity)
    for item in build.imported:
        counts = analytic.get(item.name)
        analysis = analyze_export(
            cached_read(item.csv_path, build.cache_dir),
            item.source.device,
            item.source.phase,
            analytic_training_flops=counts["step_flops"]
            if counts and item.source.phase == "train_step"
            else None,
            analytic_forward_flops=counts["forward_flops"] if counts else None,
        )
        views.append(
            MeasurementView(
                slug=item.name,
                title=item.source.title,
                origin=item.source.origin,
                citation=item.source.citation,
                model=item.source.model,
                workload=item.source.workload,
                batch=item.source.batch,
                phase=item.source.phase,
                precision=item.source.precision,
                notes=item.source.notes,
                license=item.source.license,
                **_analysed(analysis, item.csv_path, counts),
            )
        )
    views += _run_views(build)
    replications = replicate(
        build.literature,
        {d.id: d for d in build.catalog},
        _literature_analytic(build.complexity),
        {view.slug: view.step for view in views},
        _measured_steps(build.runs),
    )
    return replace(build, views=views, run_findings=_run_findings(build), replications=replications)


def _analysed(
    analysis: ExportAnalysis, csv_path: Path, analytic: dict[str, Any] | None
) -> dict[str, Any]:
    """The MeasurementView fields an export's analysis fills (chart: drawn later)."""
    return {
        "csv_path": csv_path.as_posix(),
        "kernels": analysis.metrics,
        "step": analysis.step,
        "ranges": analysis.ranges,
        "match": analysis.match,
        "bound": analysis.bound,
        "chart": {},
        "findings": analysis.findings,
        "analytic": analytic,
        "tensor": analysis.tensor,
        "ingest_notes": analysis.ingest_notes,
    }


def _run_views(build: Build) -> list[MeasurementView]:
    """A kernel page for every measured run profiled with `nox -s measure -- --ncu`
    (runs/<id>/ncu.csv), checked against the run's own analytic counts."""
    views = []
    for run_id in build.runs.filter(pl.col("status") == "ok")["run_id"].to_list():
        folder = build.measurements / "runs" / run_id
        csv_path = folder / "ncu.csv"
        if not csv_path.is_file():
            continue
        run = read_run(folder) or {}
        config, counts = run.get("config", {}), run.get("complexity") or {}
        device_name = str(run.get("device_name", ""))
        try:
            device: str | None = find_device(device_name, build.catalog).id
        except UserError:
            device = None  # matched from the export's compute capability, or left unmatched
        phase = config.get("phase")
        analysis = analyze_export(
            cached_read(csv_path, build.cache_dir),
            device,
            phase,
            analytic_training_flops=counts.get("step_flops") if phase == "train_step" else None,
            analytic_forward_flops=counts.get("forward_flops"),
        )
        commit = (run.get("environment", {}).get("git") or {}).get("commit") or "unknown"
        views.append(
            MeasurementView(
                slug=f"run-{run_id}",
                title=f"{config.get('model')} {phase}, batch {config.get('batch')}, "
                f"{config.get('precision')} on {device_name} (run {run_id})",
                origin=f"measured here: `{csv_path.as_posix()}` (`nox -s measure -- --ncu`)",
                citation=f"Roofline Atlas, run {run_id} (commit {commit[:12]})",
                model=str(config.get("model")),
                workload=f"one {phase} on synthetic {config.get('dataset')}-shaped input",
                batch=config.get("batch"),
                phase=str(phase),
                precision=str(config.get("precision")),
                notes="Kernel replay under ncu: clocks locked to base and caches flushed "
                "between replays, so kernel times are longer than unprofiled ones.",
                license="",
                **_analysed(
                    analysis,
                    csv_path,
                    {
                        "model": config.get("model"),
                        "dataset": config.get("dataset"),
                        "batch": config.get("batch"),
                        **counts,
                    }
                    if counts
                    else None,
                ),
            )
        )
    return views


def _measured_steps(runs: pl.DataFrame) -> dict[tuple[str, str, int, str], list[tuple[str, float]]]:
    """Median step time of every ok run, by the configuration a published number names."""
    found: dict[tuple[str, str, int, str], list[tuple[str, float]]] = {}
    for row in runs.filter(pl.col("status") == "ok").to_dicts():
        key = (row["model"], row["dataset"], row["batch"], row["phase"])
        found.setdefault(key, []).append((row["run_id"], row["median_s"]))
    return found


def _literature_analytic(
    tables: dict[str, pl.DataFrame],
) -> dict[tuple[str, str, int], dict[str, Any]]:
    frame = tables.get("literature.csv")
    if frame is None:
        return {}
    return {(r["model"], r["dataset"], r["batch"]): r for r in frame.to_dicts()}


def _run_findings(build: Build) -> dict[str, tuple[Finding, ...]]:
    """Timing checks of every ok run, from its per-iteration step times."""
    found = {}
    for run_id in build.runs.filter(pl.col("status") == "ok")["run_id"].to_list():
        steps = build.measurements / "runs" / run_id / "steps.csv"
        if not steps.is_file():
            raise UserError(
                "run folder without steps.csv (its run.json says ok)",
                file=steps.parent,
                fix="measure it again (`nox -s measure -- --force`) or delete the folder",
            )
        times = pl.read_csv(steps, columns=["step_s"])["step_s"].drop_nulls().to_list()
        found[run_id] = tuple(timing_findings(times))
    return found


def draw_charts(build: Build) -> Build:
    from generator.charts import roofline_chart  # altair takes a third of a second to import

    views = [
        replace(view, chart=roofline_chart(view.kernels, view.step, view.match.device, view.title))
        for view in build.views
    ]
    return replace(build, views=views)


def write_pages(build: Build) -> Build:
    pages = {HARDWARE_PAGE: hardware_page(build.catalog, build.ceilings)}
    pages[f"{GENERATED_DIR}/index.md"] = measurements_index(build.views)
    pages[f"{GENERATED_DIR}/runs.md"] = runs_page(
        build.runs, build.experiments, build.ceilings, build.run_findings
    )
    pages[f"{GENERATED_DIR}/findings.md"] = findings_page(build.views, build.run_findings)
    commits = dict(zip(build.runs["run_id"].to_list(), build.runs["commit"].to_list(), strict=True))
    pages[f"{GENERATED_DIR}/cite.md"] = cite_page(
        build.measurements.parent / "CITATION.cff", build.runs, commits
    )
    if build.experiments is not None:
        for group in build.experiments.groups:
            pages[f"{GENERATED_DIR}/experiments/{group.id}.md"] = experiment_page(
                group, build.experiments, build.runs, build.ceilings
            )
    pages[f"{GENERATED_DIR}/performance.md"] = performance_page(
        build.measurements.parent / "benchmarks" / "results.json"
    )
    pages[f"{GENERATED_DIR}/overview.md"], step_points = overview_page(
        build.views,
        build.runs,
        build.experiments,
        build.ceilings,
        build.run_findings,
        build.replications,
    )
    choice, choice_table = device_choice_page(
        workloads(
            build.views,
            build.runs,
            build.ceilings,
            {item.name: item.source.dataset or "" for item in build.imported}
            | {f"run-{r['run_id']}": r["dataset"] for r in build.runs.to_dicts()},
        ),
        build.catalog,
    )
    pages[f"{GENERATED_DIR}/device-choice.md"] = choice
    if build.replications:
        pages[f"{GENERATED_DIR}/replication.md"] = replication_page(
            build.replications, build.references
        )
    complexity_folder = build.measurements / "complexity"
    complexity = complexity_page(build.complexity, complexity_folder)
    if complexity is not None:
        pages[f"{GENERATED_DIR}/complexity.md"] = complexity
    for view in build.views:
        pages[f"{GENERATED_DIR}/{view.slug}.md"] = measurement_page(view)
    data = _page_data(build, choice_table, step_points)
    files = attach_downloads(
        pages,
        {page: frames for page, frames in data.items() if page in pages},
        build.cache_dir / "charts",
    )
    _replace_generated(build.docs_dir, pages, files)
    _write_vega_bundle(build.docs_dir / VEGA_DIR)
    _copy_mathjax(build.docs_dir / MATHJAX_DIR)
    return replace(build, pages=pages)


def _page_data(
    build: Build, choice_table: pl.DataFrame, step_points: list[dict[str, Any]]
) -> dict[str, dict[str, pl.DataFrame]]:
    """The tables each page shows, for its CSV and Parquet downloads."""
    g = GENERATED_DIR
    data: dict[str, dict[str, pl.DataFrame]] = {
        HARDWARE_PAGE: {
            "catalog": catalog_frame(build.catalog),
            "measured-ceilings": ceilings_frame(build.ceilings),
        },
        f"{g}/runs.md": {"runs": build.runs},
        f"{g}/findings.md": {"findings": findings_frame(build.views, build.run_findings)},
        f"{g}/cite.md": {"run-ids": build.runs.select("run_id", "commit", "finished_at")},
        f"{g}/overview.md": {"step-points": pl.DataFrame(step_points, infer_schema_length=None)},
        f"{g}/device-choice.md": {"bound-per-device": choice_table},
        f"{g}/replication.md": {"replication": replication_frame(build.replications)},
        f"{g}/complexity.md": {
            name.removesuffix(".csv"): frame for name, frame in build.complexity.items()
        },
    }
    if build.experiments is not None:
        for group in build.experiments.groups:
            data[f"{g}/experiments/{group.id}.md"] = {
                "runs": build.runs.filter(pl.col("group") == group.id)
            }
    benchmarks = benchmark_frame(build.measurements.parent / "benchmarks" / "results.json")
    if benchmarks is not None:
        data[f"{g}/performance.md"] = {"benchmarks": benchmarks}
    for view in build.views:
        data[f"{g}/{view.slug}.md"] = measurement_frames(view)
    data[f"{g}/index.md"] = {"steps": steps_frame(build.views)}
    return data


def build_html(build: Build) -> Build:
    if not build.run_mkdocs:
        return build
    config = Path("mkdocs.yml")
    if not config.is_file():
        raise UserError("mkdocs.yml not found", fix="run from the repository root")
    parent = build.site_dir.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".site-", dir=parent))
    # A child config inherits mkdocs.yml and points at this build's docs folder.
    child = staging / "mkdocs.yml"
    child.write_text(
        f"INHERIT: {json.dumps(str(config.resolve()))}\n"
        f"docs_dir: {json.dumps(str(build.docs_dir.resolve()))}\n"
        f"nav: {json.dumps(site_nav(build.pages, build.docs_dir, build.experiments, build.views), ensure_ascii=False)}\n",
        encoding="utf-8",
    )
    output = staging / "site"
    command = [
        sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
        "--config-file", str(child), "--site-dir", str(output),
    ]  # fmt: skip
    # The Explore notebook, executed during the build, reads this build's measurements.
    env = {**os.environ, "RA_MEASUREMENTS": str(build.measurements.resolve())}
    result = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if result.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise UserError(
            "mkdocs build --strict failed; site/ was left as it was:\n"
            + (result.stderr or result.stdout).strip(),
            fix="fix the warnings above (a broken link or a page missing from the nav)",
        )
    try:
        _swap_dir(output, build.site_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return build


STAGES: tuple[Callable[[Build], Build], ...] = (
    load_measurements,
    compute_metrics,
    draw_charts,
    write_pages,
    build_html,
)


def build_site(
    measurements: Path,
    docs_dir: Path,
    site_dir: Path,
    run_mkdocs: bool = True,
    force: bool = False,
    cache_dir: Path | None = None,
    fingerprint: str | None = None,
) -> Build:
    """Run the stages; with mkdocs, skip them when site/ was built from the same inputs
    (`fingerprint`, computed here unless the caller already has it)."""
    build = Build(measurements, docs_dir, site_dir, run_mkdocs)
    if cache_dir is not None:
        build = replace(build, cache_dir=cache_dir)
    if run_mkdocs and fingerprint is None:
        fingerprint = input_fingerprint(measurements, docs_dir)
    if fingerprint and not force and up_to_date(docs_dir, site_dir, fingerprint):
        report_up_to_date(site_dir)
        return build
    for stage in STAGES:
        build = stage(build)
    if fingerprint:
        write_text(site_dir / STAMP, fingerprint)
    print(
        f"report: {len(build.views)} imported measurements, {len(build.pages)} generated pages"
        + (f" -> {build.site_dir}/" if run_mkdocs else f" in {build.docs_dir}/")
    )
    return build


# --- atomic file work ------------------------------------------------------------------------


def _swap_dir(new: Path, target: Path) -> None:
    """Move `new` to `target`, replacing it; the old tree is removed only after the move."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        target.rename(old)
    new.rename(target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _replace_generated(
    docs_dir: Path, pages: dict[str, str], files: dict[str, bytes] | None = None
) -> None:
    docs_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".generated-", dir=docs_dir))
    contents: dict[str, bytes] = {k: v.encode("utf-8") for k, v in pages.items()}
    contents.update(files or {})
    try:
        for relative, content in contents.items():
            if relative.startswith(f"{GENERATED_DIR}/"):
                path = staging / relative.removeprefix(f"{GENERATED_DIR}/")
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content)
        _swap_dir(staging, docs_dir / GENERATED_DIR)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    for relative, text in pages.items():
        if not relative.startswith(f"{GENERATED_DIR}/"):
            write_text(docs_dir / relative, text)


MATHJAX_FONT_CONFIG = """MathJax.Hub.Config({
  "HTML-CSS": {
    availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null,
    // MathJax 2's blank font is url('about:blank'), which Chromium refuses (CORS) with a
    // console error; a local() source is never fetched.
    styles: {"@font-face": {"font-family": "MathJax_Blank", src: "local('MathJax_Blank')"}}
  }
});
MathJax.Ajax.loadComplete("[MathJax]/config/local/stix.js");
"""


def _copy_mathjax(folder: Path) -> None:
    """MathJax 2 from the jupyter-server-mathjax wheel, for the notebook page's formulas
    (mkdocs-jupyter would load it from a CDN). Copied once per package version."""
    from importlib.metadata import version

    import jupyter_server_mathjax

    stamp = f"jupyter-server-mathjax {version('jupyter-server-mathjax')} stix-config-3\n"
    if (folder / "VERSION").is_file() and (folder / "VERSION").read_text() == stamp:
        return
    source = Path(jupyter_server_mathjax.__file__).parent / "static"
    # English only, HTML-CSS output only: the SVG output and 2 MB of translations go unused.
    skip = shutil.ignore_patterns("localization", "SVG")
    staging = folder.with_name(f".{folder.name}-new")
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(source, staging, ignore=skip)
    # The package ships only the STIX-Web fonts; MathJax's default TeX fonts would 404.
    (staging / "config" / "local").mkdir(parents=True, exist_ok=True)
    (staging / "config" / "local" / "stix.js").write_text(MATHJAX_FONT_CONFIG)
    (staging / "VERSION").write_text(stamp)
    shutil.rmtree(folder, ignore_errors=True)
    staging.rename(folder)


def _write_vega_bundle(folder: Path) -> None:
    """Vega, Vega-Lite and vega-embed as one local script (no CDN), rebuilt on version change."""
    import vl_convert as vlc

    stamp = f"vega {vlc.get_vega_version()} vega-lite {VEGA_LITE_VERSION} embed {vlc.get_vega_embed_version()}\n"
    bundle, stamp_file = folder / "vega-bundle.js", folder / "VERSION"
    if bundle.is_file() and stamp_file.is_file() and stamp_file.read_text() == stamp:
        return
    source: Any = vlc.javascript_bundle(vl_version=VEGA_LITE_VERSION)  # type: ignore[call-arg]
    # The bundle declares top-level consts; a function scope keeps them from clashing with
    # other scripts. It still assigns window.vegaEmbed, window.vega and window.vegaLite.
    write_text(bundle, f"(function () {{\n{source}\n}})();\n")
    write_text(stamp_file, stamp)
