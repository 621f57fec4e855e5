"""One page per measured run, reached from the runs table's short labels: its verdict (the
bound with the fraction of the roof and its interval), how to cite it, what the table leaves
out (configuration, the run's own and pooled timing, step parts, analytic counts, findings,
provenance), and its data: the run's own files, its trace page and its kernel page."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from generator.analysis.step_verdict import TIME_BASES, StepVerdict
from generator.findings import Finding
from generator.formatting import number, percent, seconds, si
from generator.pages.cite import run_bibtex
from generator.pages.finding_html import admonitions
from generator.pages.page import Page
from generator.pages.render import one_line, render
from generator.pages.run_conditions import conditions_text
from generator.pages.run_text import half_width, interval, run_label, run_path
from generator.records.run import RunRecord

PARTS = (
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
    record: RunRecord | None = None
    folder: Path | None = None
    steps: pl.DataFrame | None = None
    kernel_page: str | None = None  # relative link
    trace_page: str | None = None  # relative link


def _facts(row: dict[str, Any]) -> list[tuple[str, str]]:
    pooled = (row.get("pooled_runs") or 0) > 1
    facts = [
        ("group", f"[{row['group']}](../experiments/{row['group']}.md)"),
        ("model", row["model"]),
        ("dataset", row["dataset"]),
        ("batch", str(row["batch"])),
        ("phase", row["phase"]),
        ("precision", row["precision"]),
        ("device", row["device_label"]),
        ("status", row["status"]),
        ("median step [95 % CI], this run", interval(row, "run_")),
        ("precision of the median, this run", half_width(row, "run_")),
        ("timed steps, this run", number(row.get("run_iterations"))),
        ("CV of single steps", percent(100 * row["cv"]) if row.get("cv") is not None else "n/a"),
    ]
    if pooled:
        facts.append(
            (
                f"pooled over {row['pooled_runs']} runs ({row['pooled_groups']})",
                f"{interval(row)} ({half_width(row)}, {number(row.get('iterations'))} steps)",
            )
        )
        # The pooled interval covers sampling noise only; the runs' own medians show what
        # changed between groups measured at other times.
        facts.append(
            (
                "the pooled runs' own medians",
                f"{seconds(row.get('spread_low_s'))} to {seconds(row.get('spread_high_s'))}",
            )
        )
    facts += [
        ("samples/s" + (", pooled" if pooled else ""), number(row.get("throughput"))),
        *(
            (f"{label} (median)", seconds(row[key]))
            for key, label in PARTS
            if row.get(key) is not None
        ),
        ("parameters", si(row.get("params"), "")),
        ("forward FLOPs (analytic)", si(row.get("forward_flops"), "FLOP")),
        ("backward FLOPs (analytic)", si(row.get("backward_flops"), "FLOP")),
        ("modelled FLOPs of the step", si(row.get("modelled_flops"), "FLOP")),
        ("modelled bytes of the step", si(row.get("modelled_bytes"), "B")),
        ("finished", row.get("finished_at") or "n/a"),
        ("commit", f"`{row['commit']}`" if row.get("commit") else "n/a"),
    ]
    return facts


def quote(row: dict[str, Any], verdict: StepVerdict | None) -> str:
    """The one sentence to quote for this step: the timed median with its interval, and the
    bound with the fraction of the roof and its interval."""
    runs = row.get("pooled_runs") or 1
    pooled = f", pooled over {runs} runs" if runs > 1 else ""
    text = (
        f"median step time {interval(row)} (95 % interval; {number(row.get('iterations'))} "
        f"timed, unprofiled steps{pooled})"
    )
    if verdict is not None:
        text += f"; {verdict.words()}, {verdict.attained.text(lambda v: si(v, 'FLOP/s'))} attained"
    return text


def _citation_url(citation: Mapping[str, Any], run_id: str) -> str:
    url = citation.get("report-url")
    if url:
        return f"<{url}measurements/runs/{run_id}/>"
    return "none: an unversioned local build (publish a version to get a citable URL)"


def run_page(row: dict[str, Any], context: RunContext, citation: Mapping[str, Any]) -> Page:
    verdict = context.verdict
    ok = row["status"] == "ok"
    copies = (
        {name: context.folder / name for name in RUN_FILES if (context.folder / name).is_file()}
        if context.folder is not None
        else {}
    )
    # Named apart from the copied files: steps.csv is offered as measured.
    tables = {"run-summary": pl.DataFrame([row])}
    if context.steps is not None:
        tables["timed-steps"] = context.steps
    markdown = render(
        "run.md.j2",
        run_id=row["run_id"],
        label=run_label(row),
        verdict=verdict.facts() if verdict else None,
        basis=verdict.basis() if verdict else None,
        basis_note=TIME_BASES[verdict.time_basis] if verdict else None,
        quote=quote(row, verdict) if ok else None,
        conditions=conditions_text(row, context.record),
        url=_citation_url(citation, row["run_id"]),
        facts=_facts(row),
        error=one_line(row["error"]) if row.get("error") else None,
        findings=admonitions(context.findings) if context.findings else None,
        kernel_page=context.kernel_page,
        trace_page=context.trace_page,
        bibtex=run_bibtex(dict(citation), row) if ok else None,
    )
    return Page(
        run_path(row["run_id"]), run_label(row), markdown, tables=tables, in_nav=False,
        copies=copies,
    )  # fmt: skip


def run_pages(
    rows: list[dict[str, Any]],
    contexts: Mapping[str, RunContext],
    citation: Mapping[str, Any],
) -> list[Page]:
    return [run_page(row, contexts.get(row["run_id"], RunContext()), citation) for row in rows]
