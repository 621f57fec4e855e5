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
from generator.pages.run_resources import compile_facts, memory_facts
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


def _timed_in(row: dict[str, Any], record: RunRecord | None) -> list[tuple[str, str]]:
    """How the run was timed: blocks (independent processes, with the level variations) or
    one process, whose interval says nothing of the next one."""
    timing = record.timing if record is not None else None
    if timing is None:
        return []
    if timing.method != "blocks" or not timing.levels:
        return [("timed in", "one process: the interval covers that process's noise only, "
                 "not what changes between processes")]  # fmt: skip
    levels = timing.levels
    low, high = timing.median_ci95_s or (None, None)
    return [
        ("timed in", f"{timing.blocks} blocks (independent worker processes), "
         f"{number(levels.get('iterations_per_block'), 3)} timed steps each on average; "
         f"stopped by {timing.stopped_by}"),
        ("variation of steps within a block", percent(100 * levels["within_block_cv"], 2)),
        ("variation between blocks", percent(100 * levels["between_block_cv"], 2)),
        ("95 % confidence interval of the long-run level",
         f"[{seconds(low)}, {seconds(high)}]" if low is not None else "n/a"),
    ]  # fmt: skip


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


def _facts(row: dict[str, Any], record: RunRecord | None = None) -> list[tuple[str, str]]:
    pooled = (row.get("pooled_runs") or 0) > 1
    blocks = record is not None and record.timing is not None and record.timing.method == "blocks"
    kind = "95 % re-measurement interval" if blocks else "95 % CI"
    groups = [g for g in (record.groups or []) if g != row["group"]] if record else []
    facts = [
        ("group", f"[{row['group']}](../experiments/{row['group']}.md)"),
        ("model", row["model"]),
        ("dataset", row["dataset"]),
        ("batch", str(row["batch"])),
        ("phase", row["phase"]),
        ("precision", row["precision"]),
        ("device", row["device_label"]),
        ("status", row["status"]),
        *(
            [("also serves", ", ".join(f"[{g}](../experiments/{g}.md)" for g in groups))]
            if groups
            else []
        ),
        (f"median step [{kind}], this run", interval(row, "run_")),
        ("its half-width, this run", half_width(row, "run_")),
        ("timed steps, this run", number(row.get("run_iterations"))),
        *_timed_in(row, record),
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
        *(compile_facts(record) + memory_facts(record) if record is not None else []),
        ("finished", row.get("finished_at") or "n/a"),
        ("commit", f"`{row['commit']}`" if row.get("commit") else "n/a"),
    ]
    return facts


def quote(row: dict[str, Any], verdict: StepVerdict | None) -> str:
    """The one sentence to quote for this step: the timed median with its interval, and the
    bound with the fraction of the roof and its interval."""
    runs = row.get("pooled_runs") or 1
    pooled = f", pooled over {runs} runs" if runs > 1 else ""
    kind = (
        f"95 % re-measurement interval across {row['blocks']} independent processes"
        if row.get("interval") == "blocks"
        else "95 % interval within one process"
    )
    text = (
        f"median step time {interval(row)} ({kind}; {number(row.get('iterations'))} "
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
        facts=_facts(row, context.record),
        history=_history(context.record),
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
