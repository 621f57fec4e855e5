"""The Findings page: every finding of every imported export and measured run. Above
run_lists.SUMMARY_FROM runs, the runs' findings are counted by id and severity, each with
the first runs that have it, rather than listed one row each (at 1,000 runs the list was
0.3 MB, rendered again for every run added); each run's page lists its own, and the
`findings` table holds them all."""

from __future__ import annotations

from markupsafe import Markup

from generator.analysis.views import MeasurementView
from generator.findings import Finding
from generator.findings.specs import SPECS
from generator.pages import run_lists
from generator.pages.data import findings_frame
from generator.pages.finding_html import admonitions, with_code
from generator.pages.page import Generated, Page
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import render

EXAMPLES = 3  # runs linked per finding in the summary


def findings_page(
    views: list[MeasurementView],
    run_findings: dict[str, tuple[Finding, ...]],
    total_runs: int | None = None,
) -> Page:
    """`total_runs`: the report's runs (None: those with a findings entry), which decide
    whether the runs' findings are listed or counted."""
    imported = [
        {"title": view.title, "href": f"{view.slug}.md", "html": admonitions(view.findings)}
        for view in views
    ]
    summary = run_lists.summarize(len(run_findings) if total_runs is None else total_runs)
    run_rows = [
        (run_id, finding.id, finding.severity, with_code(finding.evidence))
        for run_id, findings in sorted(run_findings.items())
        for finding in findings
    ]
    markdown = render(
        "findings.md.j2",
        specs=spec_rows(),
        imported=imported,
        run_rows=[] if summary else run_rows,
        counted=_counted(run_findings) if summary else [],
        found=f"{len(run_rows):,}",
        run_count=len(run_findings),
    )
    frame = findings_frame(views, run_findings)
    return Page(f"{GENERATED_DIR}/findings.md", "Findings", markdown, tables={"findings": frame})


def spec_rows() -> list[tuple[str, Markup]]:
    """(id, its severity and what it catches) of every finding, in SPECS order: our own
    Markdown, not data, so not escaped."""
    return [(spec.id, Markup(spec.row())) for spec in SPECS]


def _counted(run_findings: dict[str, tuple[Finding, ...]]) -> list[tuple[str, str, str, str]]:
    """(id, severity, runs that have it, links to the first EXAMPLES of them), most runs
    first."""
    runs: dict[tuple[str, str], list[str]] = {}
    for run_id, findings in sorted(run_findings.items()):
        for key in dict.fromkeys((f.id, f.severity) for f in findings):
            runs.setdefault(key, []).append(run_id)
    return [
        (
            finding,
            severity,
            f"{len(ids):,}",
            ", ".join(f"[{r}](runs/{r}.md)" for r in ids[:EXAMPLES]),
        )
        for (finding, severity), ids in sorted(
            runs.items(), key=lambda item: (-len(item[1]), item[0])
        )
    ]


PAGE = Generated(
    None,
    lambda report: [findings_page(report.views, report.run_findings, report.runs.height)],
)
