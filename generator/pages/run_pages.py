"""One page per measured run, reached from the runs table's short labels: its verdict (the
bound with the fraction of the roof and its interval), how to cite it, what the table leaves
out (configuration, the run's own and pooled timing, step parts, analytic counts, findings,
provenance), and its data: the run's own files, its trace page and its kernel page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import polars as pl

from generator.analysis.points import HEADLINE_RULE, Points
from generator.analysis.result_columns import download_row
from generator.analysis.results import Result
from generator.analysis.step_verdict import TIME_BASES, StepVerdict
from generator.findings import Finding
from generator.formatting import number, percent, seconds, si
from generator.ingest.runs import RunRow
from generator.pages.cite import result_bibtex
from generator.pages.finding_html import admonitions
from generator.pages.page import Page
from generator.pages.render import one_line, render
from generator.pages.run_conditions import conditions_text
from generator.pages.run_profilers import profiler_facts
from generator.pages.run_resources import compile_facts, memory_facts
from generator.pages.run_text import (
    citable,
    cv_text,
    half_width,
    run_label,
    run_path,
    step_text,
)
from generator.records.run import RunRecord

PARTS: tuple[tuple[Literal["forward_s", "loss_s", "backward_s", "optimizer_step_s"], str], ...] = (
    ("forward_s", "forward"),
    ("loss_s", "loss"),
    ("backward_s", "backward"),
    ("optimizer_step_s", "optimizer step"),
)
# A run's files offered as they are; the trace and ncu exports are megabytes and have pages.
RUN_FILES = ("run.json", "steps.csv", "layers.csv", "ops.csv", "complexity.csv")


@dataclass(frozen=True)
class RunContext:
    """What a run page shows beside its row, from the rest of the report."""

    findings: tuple[Finding, ...] = ()
    verdict: StepVerdict | None = None
    result: Result | None = None  # its configuration's one result (ok runs)
    points: Points | None = None  # its configuration's modelled, counted and trace points
    record: RunRecord | None = None
    folder: Path | None = None
    steps: pl.DataFrame | None = None
    kernel_page: str | None = None  # relative link
    trace_page: str | None = None  # relative link
    experiments: frozenset[str] = frozenset()  # the run's groups with an experiment page


def _timed_in(
    record: RunRecord | None, run_id: str, result: Result | None
) -> list[tuple[str, str]]:
    """How the run was timed: blocks (independent processes, with the level variations its
    steps show, `RunTime.levels`) or one process, whose interval says nothing of the next."""
    timing = record.timing if record is not None else None
    own = next((run for run in result.runs if run.run_id == run_id), None) if result else None
    if timing is None:
        return []
    if timing.method != "blocks" or own is None or own.levels is None:
        return [("timed in", "one process: its interval covers that process's noise only, "
                 "not what changes between processes")]  # fmt: skip
    levels = own.levels
    return [
        ("timed in", f"{levels.blocks} blocks (independent worker processes), "
         f"{number(levels.iterations_per_block, 3)} timed steps each on average; "
         f"stopped by {timing.stopped_by}"),
        ("variation of steps within a block", percent(100 * levels.within_block_cv, 2)),
        ("variation between blocks", percent(100 * levels.between_block_cv, 2)),
    ]  # fmt: skip


def _result_facts(row: RunRow, result: Result | None) -> list[tuple[str, str]]:
    """The configuration's one result, and where it is not calibrated, why and the command."""
    if result is None:
        return [("median step", "n/a")]
    facts = [
        ("median step [95 % interval] (its kind)", step_text(result.step)),
        ("its half-width", half_width(result.step)),
        ("timed steps", number(result.iterations)),
    ]
    if len(result.runs) > 1:
        facts.append(
            (f"the {len(result.runs)} runs it rests on, each alone",
             "; ".join(f"[{run.group}]({run.run_id}.md): {step_text(run.step)}"
                       if run.run_id != row["run_id"] else f"{run.group} (this run): "
                       f"{step_text(run.step)}" for run in result.runs))
        )  # fmt: skip
    if not result.step.calibrated:
        facts.append(("not calibrated", result.why_uncalibrated()))
    return facts


def _history(record: RunRecord | None) -> list[dict[str, str]]:
    """Every `measure` call that added to this result, oldest first."""
    if record is None or not record.history:
        return []
    return [
        {
            "started": (h.started_at or "n/a")[:16].replace("T", " "),
            "finished": (h.finished_at or "n/a")[:16].replace("T", " "),
            "commit": f"`{h.commit[:10]}`" if h.commit else "n/a",
            "method": h.method or "n/a",
            "blocks": str(h.blocks) if h.blocks is not None else "1 process",
            "steps": number(h.samples),
        }
        for h in record.history
    ]


def _group(group: str, experiments: frozenset[str]) -> str:
    """A group, linked to its experiment page where it has one (it may have left the config)."""
    return f"[{group}](../experiments/{group}.md)" if group in experiments else group


def _facts(
    row: RunRow,
    result: Result | None,
    record: RunRecord | None = None,
    experiments: frozenset[str] = frozenset(),
) -> list[tuple[str, str]]:
    groups = [g for g in (record.groups or []) if g != row["group"]] if record else []
    throughput = result.throughput if result else None
    facts = [
        ("group", _group(row["group"], experiments)),
        ("model", row["model"]),
        ("dataset", row["dataset"]),
        ("batch", str(row["batch"])),
        ("phase", row["phase"]),
        ("precision", row["precision"]),
        ("device", row["device_label"]),
        ("status", row["status"]),
        *([("also serves", ", ".join(_group(g, experiments) for g in groups))] if groups else []),
        *_result_facts(row, result),
        *_timed_in(record, str(row["run_id"]), result),
        ("CV of single steps", cv_text(result, row["run_id"])),
        ("samples/s", throughput.text(number) if throughput else "n/a"),
        *(
            (f"{label} (median)", seconds(part))
            for key, label in PARTS
            if (part := row[key]) is not None
        ),
        ("parameters", si(row.get("params"), "")),
        ("forward FLOPs (analytic)", si(row.get("forward_flops"), "FLOP")),
        ("backward FLOPs (analytic)", si(row.get("backward_flops"), "FLOP")),
        ("modelled FLOPs of the step", si(row.get("modelled_flops"), "FLOP")),
        ("modelled bytes of the step", si(row.get("modelled_bytes"), "B")),
        *(compile_facts(record) + memory_facts(record) if record is not None else []),
        *(profiler_facts(record) if record is not None else []),
        ("finished", row.get("finished_at") or "n/a"),
        ("commit", f"`{row['commit']}`" if row.get("commit") else "n/a"),
    ]
    return facts


def quote(result: Result | None, verdict: StepVerdict | None) -> str:
    """The one sentence to quote for this step: its result's median with its interval and
    that interval's kind, and the bound with the fraction of the roof."""
    if result is None:
        return "no result"
    text = f"median step time {citable(result)}, over {number(result.iterations)} timed, unprofiled steps"
    if verdict is not None:
        text += (
            f"; headline bound ({verdict.point} point, over the {verdict.time_basis}): "
            f"{verdict.words()}, {verdict.attained.text(lambda v: si(v, 'FLOP/s'))} attained"
        )
    return text


def _citation_url(citation: Mapping[str, Any], run_id: str) -> str:
    url = citation.get("report-url")
    if url:
        return f"<{url}measurements/runs/{run_id}/>"
    return "none: an unversioned local build (publish a version to get a citable URL)"


def run_page(row: RunRow, context: RunContext, citation: Mapping[str, Any]) -> Page:
    """`row`: the run's row of the report's runs table, which with its result's timing
    columns (analysis/result_columns.py) is the page's run-summary download."""
    verdict = context.verdict
    ok = row["status"] == "ok"
    copies = (
        {name: context.folder / name for name in RUN_FILES if (context.folder / name).is_file()}
        if context.folder is not None
        else {}
    )
    # Named apart from the copied files: steps.csv is offered as measured.
    tables = {"run-summary": pl.DataFrame([download_row(row, context.result if ok else None)])}
    if context.steps is not None:
        tables["timed-steps"] = context.steps
    markdown = render(
        "run.md.j2",
        run_id=row["run_id"],
        label=run_label(row),
        verdict=verdict.facts() if verdict else None,
        headline_kind=context.points.headline_kind if context.points else None,
        points=context.points.rows() if context.points else [],
        headline_rule=HEADLINE_RULE,
        why=context.points.why() if context.points else "",
        basis=verdict.basis() if verdict else None,
        basis_note=TIME_BASES[verdict.time_basis] if verdict else None,
        quote=quote(context.result, verdict) if ok else None,
        conditions=conditions_text(row, context.record),
        url=_citation_url(citation, row["run_id"]),
        facts=_facts(row, context.result, context.record, context.experiments),
        history=_history(context.record),
        error=one_line(error) if (error := row["error"]) else None,
        findings=admonitions(context.findings) if context.findings else None,
        kernel_page=context.kernel_page,
        trace_page=context.trace_page,
        bibtex=result_bibtex(dict(citation), context.result, verdict)
        if ok and context.result is not None
        else None,
    )
    return Page(
        run_path(row["run_id"]), run_label(row), markdown, tables=tables, in_nav=False,
        copies=copies,
    )  # fmt: skip


def run_pages(
    rows: Sequence[RunRow],
    contexts: Mapping[str, RunContext],
    citation: Mapping[str, Any],
) -> list[Page]:
    return [run_page(row, contexts.get(row["run_id"], RunContext()), citation) for row in rows]
