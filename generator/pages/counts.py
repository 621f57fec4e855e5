"""Counts that several pages state, from one place, each saying what it counts: an
imported Nsight Compute export is not a measured run's own profile."""

from __future__ import annotations

from collections.abc import Sequence

from generator.analysis.views import MeasurementView, TraceView


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def ncu_text(views: Sequence[MeasurementView]) -> str:
    """E.g. "3 imported Nsight Compute exports and 10 Nsight Compute profiles of measured
    runs" (a run's kernel page has the slug run-<run id>)."""
    runs = sum(1 for view in views if view.slug.startswith("run-"))
    imported = len(views) - runs
    text = _plural(imported, "imported Nsight Compute export", "imported Nsight Compute exports")
    if runs:
        text += " and " + _plural(
            runs,
            "Nsight Compute profile of a measured run",
            "Nsight Compute profiles of measured runs",
        )
    return text


def imported_text(views: Sequence[MeasurementView], traces: Sequence[TraceView]) -> str:
    """What measurements/imported/ holds, by kind."""
    exports = sum(1 for view in views if not view.slug.startswith("run-"))
    imported = sum(1 for trace in traces if trace.kind == "imported")
    return (
        _plural(exports, "Nsight Compute export", "Nsight Compute exports")
        + ", "
        + _plural(imported, "torch.profiler trace", "torch.profiler traces")
    )
