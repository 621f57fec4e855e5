"""Every page of the report, in reading order and in the reader's sections. The navigation
follows this tuple; a page module that is not listed here is not built. Hand-written pages
in docs/ that are not listed come after these, so a new one is never hidden.

Sections, in order: the landing page, Results, Experiments (A, B, C, C-gpu, C-mnist, D, ...),
Runs, Kernels, Traces, Hardware, Method, Cite, and Project for the tool's own pages."""

from __future__ import annotations

import posixpath
from dataclasses import replace
from typing import Any

from generator.pages import (
    about,
    calibration,
    cite,
    compiled,
    complexity,
    device_choice,
    device_prediction,
    experiment,
    findings,
    glossary,
    hardware,
    landing,
    latency_correlation,
    measurement,
    overview,
    performance,
    replication,
    runs,
    saturation,
    seed_audit,
    seed_prediction,
    seed_rooflines,
    speedups,
    step_parts,
    trace_profile,
)
from generator.pages.page import Generated, HandWritten


def under(section: str | None, entry: Generated, **nav: Any) -> Generated:
    """The entry placed in a reader's section, with its nav options (see `Generated`)."""
    return replace(entry, section=section, **nav)


def group_order(path: str) -> tuple[str, str]:
    """Experiment pages by group, each group's variants after it: 'C-gpu' -> ('C', 'gpu'),
    so A, B, C, C-gpu, C-mnist, D, D-gpu, ... rather than C-gpu after I."""
    base, _, variant = posixpath.basename(path).removesuffix(".md").partition("-")
    return base, variant


def imported_first(path: str) -> tuple[bool, str]:
    """Published exports before the ones profiled by a run of this report."""
    return posixpath.basename(path).startswith("run-"), path


REGISTRY: tuple[Generated | HandWritten, ...] = (
    under(None, landing.PAGE),
    under("Results", overview.PAGE),
    under("Results", saturation.PAGE),
    under("Results", step_parts.PAGE),
    under("Results", speedups.PAGE),
    under("Results", device_prediction.PAGE),
    under("Results", compiled.PAGE),
    under("Results", latency_correlation.PAGE),
    under("Results", replication.PAGE),
    under("Results", seed_prediction.PAGE),
    under("Results", seed_rooflines.PAGE),
    under("Results", seed_audit.PAGE),
    under("Experiments", experiment.PAGE, nav_order=group_order),
    under("Runs", runs.PAGE),
    under("Kernels", measurement.INDEX),
    under(
        "Kernels",
        measurement.PAGE,
        nav_order=imported_first,
    ),
    under("Traces", trace_profile.INDEX),
    under("Traces", trace_profile.PAGE),
    under("Traces", trace_profile.KIND_PAGES),  # the input kinds' (site/kinds.py)
    under("Hardware", hardware.PAGE),
    under("Hardware", device_choice.PAGE),
    HandWritten("Methodology", "methodology.md", "Method"),
    under("Method", glossary.PAGE),
    under("Method", calibration.PAGE),
    under("Method", complexity.PAGE),
    under("Method", findings.PAGE),
    HandWritten("Explore the data", "explore.ipynb", "Method"),
    under(None, cite.PAGE),
    HandWritten("Using the tool", "usage.md", "Project"),
    HandWritten("Architecture", "architecture.md", "Project"),
    under("Project", performance.PAGE),
    under("Project", about.PAGE),
)
