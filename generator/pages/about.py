"""About this report: what it was built from and with, so a reader can tell whether two
copies of it show the same data."""

from __future__ import annotations

from importlib.metadata import version

import polars as pl

from generator.pages.counts import imported_text
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import front_matter_title, render


def about_page(report: Report) -> Page:
    status = report.runs.group_by("status").len().sort("status").iter_rows()
    meta = report.complexity.meta
    inputs = [
        ("measurements/runs/", "runs measured with nox -s measure",
         ", ".join(f"{n} {s}" for s, n in status) or "none"),
        ("measurements/imported/", "imported files, verbatim",
         imported_text(report.views, report.traces)),
        ("measurements/ceilings/", "devices with measured GEMM and stream ceilings",
         str(len(report.ceilings))),
        ("measurements/complexity/", "analytic counts (written with torch)",
         f"torch {meta.torch}, {meta.generated_at}" if meta else "not generated"),
        ("measurements/literature/", "numbers published in the seed reports",
         str(len(report.replications))),
        ("generator/catalog/hardware.toml", "devices with datasheet peaks",
         str(len(report.catalog))),
    ]  # fmt: skip
    markdown = render(
        "about.md.j2",
        title=front_matter_title("About this report"),
        version=version("roofline-atlas"),
        polars=pl.__version__,
        inputs=inputs,
    )
    return Page(f"{GENERATED_DIR}/about.md", "About this report", markdown)


PAGE = Generated("Project", lambda report: [about_page(report)])
