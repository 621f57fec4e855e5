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


def admonition(kind: str, role: str, value: str, title: str, paragraphs: list[Markup]) -> Markup:
    """A Material admonition as raw HTML, tagged `data-<role>="<value>"` for tests and CSS."""
    body = "".join(f"<p>{p}</p>\n" for p in paragraphs)
    return Markup(
        f'<div class="admonition {kind} ra-{role}" data-{role}="{escape(value)}" markdown="0">\n'
        f'<p class="admonition-title">{escape(title)}</p>\n{body}</div>'
    )


def finding_admonition(finding: Finding) -> Markup:
    return admonition(
        _KIND.get(finding.severity, "note"),
        "finding",
        finding.id,
        f"{finding.id}: {finding.title}",
        [
            Markup("<strong>Evidence:</strong> ") + with_code(finding.evidence),
            Markup("<strong>Fix:</strong> ") + with_code(finding.fix),
        ],
    )


def admonitions(findings: Iterable[Finding]) -> Markup:
    return Markup("\n\n").join(finding_admonition(f) for f in findings)
