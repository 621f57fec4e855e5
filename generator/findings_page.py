"""The Findings page: every finding of every imported export and measured run."""

from __future__ import annotations

from generator.finding_html import admonitions, with_code
from generator.findings import Finding
from generator.pages import _ENV, MeasurementView


def findings_page(
    views: list[MeasurementView], run_findings: dict[str, tuple[Finding, ...]]
) -> str:
    imported = [
        {"title": view.title, "href": f"{view.slug}.md", "html": admonitions(view.findings)}
        for view in views
    ]
    run_rows = [
        (run_id, finding.id, finding.severity, with_code(finding.evidence))
        for run_id, findings in sorted(run_findings.items())
        for finding in findings
    ]
    return _ENV.get_template("findings.md.j2").render(
        imported=imported, run_rows=run_rows, run_count=len(run_findings)
    )
