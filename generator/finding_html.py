"""Findings as Material admonitions in raw HTML: evidence quotes kernel names, which may hold
Markdown and HTML control characters, so nothing of it may reach the Markdown parser."""

from __future__ import annotations

import re
from collections.abc import Iterable

from markupsafe import Markup, escape

from generator.findings import Finding

_CODE = re.compile(r"`([^`]+)`")
_KIND = {"error": "failure", "warning": "warning"}


def with_code(text: str) -> Markup:
    """Escape, then turn `backtick spans` into <code>."""
    return Markup(_CODE.sub(r"<code>\1</code>", str(escape(text))))


def finding_admonition(finding: Finding) -> Markup:
    kind = _KIND.get(finding.severity, "note")
    return Markup(
        f'<div class="admonition {kind} ra-finding" data-finding="{escape(finding.id)}" '
        f'markdown="0">\n'
        f'<p class="admonition-title">{escape(finding.id)}: {escape(finding.title)}</p>\n'
        f"<p><strong>Evidence:</strong> {with_code(finding.evidence)}</p>\n"
        f"<p><strong>Fix:</strong> {with_code(finding.fix)}</p>\n"
        "</div>"
    )


def admonitions(findings: Iterable[Finding]) -> Markup:
    return Markup("\n\n").join(finding_admonition(f) for f in findings)
