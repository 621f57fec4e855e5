"""One page per measured run, reached from the runs table's short labels: what the table
leaves out (configuration, the run's own and pooled timing, step parts, analytic counts,
findings, provenance) without widening the table past the page."""

from __future__ import annotations

from typing import Any

from generator.findings import Finding
from generator.formatting import number, percent, seconds, si
from generator.pages.cite import run_bibtex
from generator.pages.finding_html import admonitions
from generator.pages.page import Page
from generator.pages.render import one_line, render
from generator.pages.run_text import half_width, interval, run_label, run_path

PARTS = (
    ("forward_s", "forward"),
    ("loss_s", "loss"),
    ("backward_s", "backward"),
    ("optimizer_step_s", "optimizer step"),
)


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
        ("modelled attained", si(row.get("modelled_attained"), "FLOP/s")),
        ("modelled AI", number(row.get("modelled_ai")) + " FLOP/byte"),
        ("finished", row.get("finished_at") or "n/a"),
        ("commit", f"`{row['commit']}`" if row.get("commit") else "n/a"),
    ]
    return facts


def run_page(
    row: dict[str, Any],
    findings: tuple[Finding, ...],
    kernel_page: str | None,
    citation: dict[str, Any],
) -> Page:
    markdown = render(
        "run.md.j2",
        run_id=row["run_id"],
        label=run_label(row),
        facts=_facts(row),
        error=one_line(row["error"]) if row.get("error") else None,
        findings=admonitions(findings) if findings else None,
        kernel_page=kernel_page,
        bibtex=run_bibtex(citation, row) if row["status"] == "ok" else None,
    )
    return Page(run_path(row["run_id"]), run_label(row), markdown, in_nav=False)


def run_pages(
    rows: list[dict[str, Any]],
    findings: dict[str, tuple[Finding, ...]],
    kernel_slugs: set[str],
    citation: dict[str, Any],
) -> list[Page]:
    """`kernel_slugs`: the imported-measurement pages; a run profiled under ncu has one
    (`run-<run id>`), linked from its run page."""
    return [
        run_page(
            row,
            findings.get(row["run_id"], ()),
            f"../run-{row['run_id']}.md" if f"run-{row['run_id']}" in kernel_slugs else None,
            citation,
        )
        for row in rows
    ]
