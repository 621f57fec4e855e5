"""The Findings page: every finding of every imported export and measured run."""

from __future__ import annotations

from generator.analysis.views import MeasurementView
from generator.findings import Finding
from generator.pages.data import findings_frame
from generator.pages.finding_html import admonitions, with_code
from generator.pages.page import Generated, Page
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import render


def findings_page(
    views: list[MeasurementView], run_findings: dict[str, tuple[Finding, ...]]
) -> Page:
    imported = [
        {"title": view.title, "href": f"{view.slug}.md", "html": admonitions(view.findings)}
        for view in views
    ]
    run_rows = [
        (run_id, finding.id, finding.severity, with_code(finding.evidence))
        for run_id, findings in sorted(run_findings.items())
        for finding in findings
    ]
    markdown = render(
        "findings.md.j2", imported=imported, run_rows=run_rows, run_count=len(run_findings)
    )
    frame = findings_frame(views, run_findings)
    return Page(f"{GENERATED_DIR}/findings.md", "Findings", markdown, tables={"findings": frame})


PAGE = Generated(None, lambda report: [findings_page(report.views, report.run_findings)])
