"""Every page of the report, in reading order. The navigation follows this tuple; a page
module that is not listed here is not built. Hand-written pages in docs/ that are not listed
come after these, so a new one is never hidden."""

from __future__ import annotations

from generator.pages import (
    about,
    cite,
    complexity,
    device_choice,
    experiment,
    findings,
    hardware,
    landing,
    latency_correlation,
    measurement,
    overview,
    performance,
    replication,
    runs,
    saturation,
    speedups,
    step_parts,
    trace_profile,
)
from generator.pages.page import Generated, HandWritten

REGISTRY: tuple[Generated | HandWritten, ...] = (
    landing.PAGE,
    overview.PAGE,
    hardware.PAGE,
    complexity.PAGE,
    experiment.PAGE,
    saturation.PAGE,
    step_parts.PAGE,
    latency_correlation.PAGE,
    speedups.PAGE,
    runs.PAGE,
    measurement.INDEX,
    measurement.PAGE,
    trace_profile.INDEX,
    trace_profile.PAGE,
    device_choice.PAGE,
    replication.PAGE,
    findings.PAGE,
    HandWritten("Methodology", "methodology.md"),
    HandWritten("Explore", "explore.ipynb"),
    cite.PAGE,
    performance.PAGE,
    about.PAGE,
)
