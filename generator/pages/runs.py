"""The "Measured runs" page: one compact table per experiment group (a short label linked to
each run's own page, then the results), failures, ceilings; and the per-run pages."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

import polars as pl

from generator.analysis.interval import MIN_BLOCKS
from generator.analysis.result_columns import runs_download
from generator.analysis.results import Result
from generator.analysis.verdict_needs import RESULT, ResultRow, with_result
from generator.catalog import device_label
from generator.config import ExperimentsFile
from generator.findings import Finding
from generator.formatting import number, seconds, si
from generator.ingest.runs import in_group, run_rows
from generator.pages import run_lists
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import render
from generator.pages.run_pages import RunContext, run_pages
from generator.pages.run_text import half_width, run_label, step_text
from generator.records.ceilings import MeasuredCeilings
from generator.records.pending import Pending

ORDER = ["model", "dataset", "phase", "precision", "device", "device_label", "batch"]


def _also_in(row: ResultRow) -> str:
    """The other groups whose runs of this configuration every other page pools with it."""
    result = row[RESULT]
    groups = result.groups if result is not None else sorted(row["groups"] or [row["group"]])
    return ", ".join(g for g in groups if g != row["group"])


def _cells(
    row: ResultRow, findings: tuple[Finding, ...], page: str = f"{GENERATED_DIR}/runs.md"
) -> list[str]:
    """A run's row: its configuration's one result (the same numbers on every page)."""
    result = row[RESULT]
    target = run_lists.link(page, f"{GENERATED_DIR}/runs/{row['run_id']}.md")
    attained = result.attained if result else None
    return [
        f"[{run_label(row)}]({target})",
        step_text(result.step) if result else f"**{row['status']}**",
        half_width(result.step) if result else "",
        number(result.throughput.value) if result else "n/a",
        si(attained.value, "FLOP/s") if attained else "n/a",
        number(row["modelled_ai"]),
        _also_in(row),
        ", ".join(sorted({f.id for f in findings})),
    ]


def _ceiling_cells(measured: MeasuredCeilings) -> list[str]:
    return [
        device_label(measured.device_name),
        measured.gemm_summary(),
        si(measured.copy_bytes_per_s, "B/s"),
        si(measured.triad_bytes_per_s, "B/s"),
        measured.measured_at,
    ]


def _group(
    group_id: str,
    experiments: ExperimentsFile | None,
    rows: list[ResultRow],
    findings: dict[str, tuple[Finding, ...]],
    summary: bool = False,
) -> dict[str, object]:
    """A group's section; `summary`: one row per configuration and links to the run lists
    (run_lists.py) instead of one row per run."""
    spec = next((g for g in experiments.groups if g.id == group_id), None) if experiments else None
    page = f"{GENERATED_DIR}/runs.md"
    lists = range(1, run_lists.page_count(len(rows)) + 1) if summary and rows else range(0)
    return {
        "id": group_id,
        "title": spec.title if spec else "(group no longer in experiments.toml)",
        "devices": ", ".join(spec.devices) if spec else "",
        "device_names": ", ".join(sorted({r["device_label"] for r in rows})),
        "run_count": len(rows),
        "summary": run_lists.configuration_rows(rows, findings, page) if summary else [],
        "lists": [run_lists.link(page, run_lists.list_path(group_id, n)) for n in lists],
        "rows": [] if summary else [_cells(row, findings.get(row["run_id"], ())) for row in rows],
        "failures": [
            {"run_id": row["run_id"], "error": row["error"] or "no error recorded"}
            for row in rows
            if row["status"] == "failed"
        ],
    }


def runs_page(
    runs: pl.DataFrame,
    experiments: ExperimentsFile | None,
    ceilings: list[MeasuredCeilings],
    findings: dict[str, tuple[Finding, ...]] | None = None,
    by_group: dict[str, list[ResultRow]] | None = None,
    pending: Sequence[Pending] = (),
    results: Mapping[str, Result] | None = None,
) -> Page:
    """`by_group`: `_groups(runs, experiments, results)`, when the caller has it already;
    `pending`: the configurations whose measure was stopped, listed with the command that
    completes them; `results`: workload -> its result, whose timing the rows and the
    download state."""
    findings = findings or {}
    summary = run_lists.summarize(runs.height)
    groups = [
        _group(group_id, experiments, rows, findings, summary)
        for group_id, rows in (by_group or _groups(runs, experiments, results)).items()
    ]
    markdown = render(
        "runs.md.j2",
        groups=groups,
        ceilings=[_ceiling_cells(c) for c in ceilings],
        pending=[_pending_row(p) for p in pending],
    )
    download = runs_download(runs, results or {})
    return Page(f"{GENERATED_DIR}/runs.md", "Measured runs", markdown, tables={"runs": download})


def _pending_row(pending: Pending) -> list[str]:
    """A stopped configuration: its blocks so far, not calibrated, and how to complete it."""
    times = pending.step_times()
    blocks = len(times)
    median = statistics.median(t for block in times for t in block) if any(times) else None
    needed = max(pending.min_blocks, MIN_BLOCKS)
    return [
        f"`{pending.run_id}`",
        f"not calibrated ({blocks} of {needed} blocks)",
        seconds(median) if median is not None else "n/a",
        pending.first.kept_at if len(pending.blocks) == 1 else pending.blocks[-1].kept_at,
        f"`{pending.resume_command()}`",
    ]


def _groups(
    runs: pl.DataFrame,
    experiments: ExperimentsFile | None,
    results: Mapping[str, Result] | None = None,
) -> dict[str, list[ResultRow]]:
    """Each group's runs in the table's order: the experiments file's groups first; each ok
    run's row holds its result under "result"."""
    known = [g.id for g in experiments.groups] if experiments else []
    extra = sorted(set(runs["group"].drop_nulls().to_list()) - set(known))
    found = results or {}
    return {
        group_id: [
            with_result(row, found.get(row["workload"]) if row["status"] == "ok" else None)
            for row in run_rows(runs.filter(in_group(group_id)).sort(ORDER))
        ]
        for group_id in [*known, *extra]
    }


def list_pages(
    runs: pl.DataFrame,
    experiments: ExperimentsFile | None,
    findings: dict[str, tuple[Finding, ...]],
    by_group: dict[str, list[ResultRow]] | None = None,
) -> list[Page]:
    """Every group's run lists, when the runs page summarizes (run_lists.py). `by_group`:
    as runs_page's."""
    if not run_lists.summarize(runs.height):
        return []
    titles = {g.id: g.title for g in experiments.groups} if experiments else {}
    return [
        page
        for group_id, rows in (by_group or _groups(runs, experiments)).items()
        if rows
        for page in run_lists.list_pages(
            group_id,
            titles.get(group_id, "(group no longer in experiments.toml)"),
            rows,
            lambda row, path: _cells(row, findings.get(row["run_id"], ()), path),
        )
    ]


def run_contexts(report: Report) -> dict[str, RunContext]:
    """Each run's verdict, record, files and the pages that link from its page."""
    kernels = {view.slug for view in report.views}
    traces = {view.slug for view in report.traces}
    groups = report.experiments.groups if report.experiments is not None else []
    experiments = frozenset(group.id for group in groups)
    contexts = {}
    for run_id, workload, status, group in report.runs.select(
        "run_id", "workload", "status", "group"
    ).rows():
        result = report.results.get(workload) if status == "ok" else None
        points = report.points.get(workload) if status == "ok" else None
        slug = f"run-{run_id}"
        record = report.records.get(run_id)
        # the run's own groups with a page (not every group: it is in the page's cache key)
        own = {group, *(record.groups or [])} if record is not None else {group}
        contexts[run_id] = RunContext(
            findings=report.run_findings.get(run_id, ()),
            verdict=report.step_verdicts.get(run_id),
            result=result,
            points=points,
            record=record,
            folder=report.run_folders.get(run_id),
            steps=report.steps.get(run_id),
            kernel_page=f"../{slug}.md" if slug in kernels else None,
            trace_page=f"../traces/{slug}.md" if slug in traces else None,
            experiments=frozenset(own & experiments),
        )
    return contexts


def _render(report: Report) -> list[Page]:
    # each group's rows, made once for both (0.1 s each at 1,000 runs)
    by_group = _groups(report.runs, report.experiments, report.results)
    findings = report.run_findings
    return [
        runs_page(
            report.runs,
            report.experiments,
            report.ceilings,
            findings,
            by_group,
            report.pending,
            report.results,
        ),
        *list_pages(report.runs, report.experiments, findings, by_group),
        *_run_pages(report),
    ]


def _run_pages(report: Report) -> list[Page]:
    """Each run's page in run-id order: made in the draw stage (site/run_page_cache.py),
    else here (rows and contexts built for those alone)."""
    ids = report.runs.sort("run_id")["run_id"].to_list()
    missing = [run_id for run_id in ids if run_id not in report.run_pages]
    pages = dict(report.run_pages)
    if missing:
        rows = run_rows(report.runs.filter(pl.col("run_id").is_in(missing)).sort("run_id"))
        made = run_pages(rows, run_contexts(report), report.citation)
        pages.update(zip(missing, made, strict=True))
    return [pages[run_id] for run_id in ids]


PAGE = Generated(None, _render)
