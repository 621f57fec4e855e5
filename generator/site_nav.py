"""The site's navigation in reading order, written into the build's MkDocs config."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generator.config import ExperimentsFile
from generator.pages import MeasurementView, html_title
from generator.site_stamp import GENERATED_DIR, HARDWARE_PAGE


def site_nav(
    pages: dict[str, str],
    docs_dir: Path,
    experiments: ExperimentsFile | None,
    views: list[MeasurementView],
) -> list[Any]:
    """The reading order: overview first, then hardware, models, experiments, kernels, the
    derived pages, and the reference pages. Hand-written pages not named here come last, so a
    new page is never hidden (`mkdocs serve` shows the same pages in file order)."""
    g = GENERATED_DIR
    present = set(pages) | {
        p.relative_to(docs_dir).as_posix()
        for p in docs_dir.rglob("*")
        if p.suffix in (".md", ".ipynb") and GENERATED_DIR not in p.relative_to(docs_dir).parts[:1]
    }

    def entry(title: str, page: str) -> list[dict[str, str]]:
        return [{title: page}] if page in present else []

    groups = [
        {html_title(f"{group.id}: {group.title}"): f"{g}/experiments/{group.id}.md"}
        for group in (experiments.groups if experiments else [])
        if f"{g}/experiments/{group.id}.md" in present
    ]
    kernels = entry("Imported measurements", f"{g}/index.md") + [
        {html_title(view.title): f"{g}/{view.slug}.md"} for view in views
    ]
    nav: list[Any] = [
        *entry("Roofline Atlas", "index.md"),
        *entry("Overview", f"{g}/overview.md"),
        *entry("Hardware", HARDWARE_PAGE),
        *entry("Complexity", f"{g}/complexity.md"),
        *([{"Experiments": groups}] if groups else []),
        *entry("Measured runs", f"{g}/runs.md"),
        *([{"Kernels": kernels}] if kernels else []),
        *entry("Device choice", f"{g}/device-choice.md"),
        *entry("Replication", f"{g}/replication.md"),
        *entry("Findings", f"{g}/findings.md"),
        *entry("Methodology", "methodology.md"),
        *entry("Explore", "explore.ipynb"),
        *entry("Tool performance", f"{g}/performance.md"),
        *entry("Cite", f"{g}/cite.md"),
    ]
    named = {page for item in nav for page in _nav_pages(item)}
    nav += [page for page in sorted(present - named) if not page.startswith(".")]
    return nav


def _nav_pages(item: Any) -> list[str]:
    if isinstance(item, str):
        return [item]
    if isinstance(item, dict):
        return [p for value in item.values() for p in _nav_pages(value)]
    return [p for value in item for p in _nav_pages(value)]
