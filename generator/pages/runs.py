"""The "Measured runs" page: one table per experiment group, failures, ceilings."""

from __future__ import annotations

from typing import Any

import polars as pl

from generator.config import ExperimentsFile
from generator.findings import Finding
from generator.formatting import number, percent, seconds, si
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import render
from generator.records.ceilings import MeasuredCeilings


def _ci(row: dict[str, Any], prefix: str = "") -> str:
    """A median with its interval; `prefix` "run_" for the run's own figures."""
    median, low, high = (row.get(f"{prefix}{k}") for k in ("median_s", "ci_low_s", "ci_high_s"))
    if median is None:
        return "n/a"
    if low is None or high is None:
        return seconds(median)
    return f"{seconds(median)} [{seconds(low)}, {seconds(high)}]"


def _median_cell(row: dict[str, Any]) -> str:
    """The run's own median; when its configuration was measured in other groups too, the
    pooled result that every page shows for it (analysis.pooling)."""
    own = _ci(row, "run_")
    if (row.get("pooled_runs") or 0) > 1:
        return f"{own}; pooled over {row['pooled_runs']} runs ({row['pooled_groups']}): {_ci(row)}"
    return own


def _cells(row: dict[str, Any], findings: tuple[Finding, ...]) -> list[str]:
    return [
        row["run_id"],
        row["model"],
        str(row["batch"]),
        row["phase"],
        row["precision"],
        row["device_label"],
        row["status"],
        _median_cell(row),
        percent(100 * row["cv"]) if row["cv"] is not None else "n/a",
        number(row["batch"] / row["run_median_s"]) if row.get("run_median_s") else "n/a",
        si(row["modelled_attained"], "FLOP/s") + " (modelled)"
        if row["modelled_attained"] is not None
        else "n/a",
        number(row["modelled_ai"]),
        ", ".join(sorted({f.id for f in findings})) or "none",
    ]


def _ceiling_cells(measured: MeasuredCeilings) -> list[str]:
    return [
        measured.device_name,
        measured.gemm_summary(),
        si(measured.copy_bytes_per_s, "B/s"),
        si(measured.triad_bytes_per_s, "B/s"),
        measured.measured_at,
    ]


def runs_page(
    runs: pl.DataFrame,
    experiments: ExperimentsFile | None,
    ceilings: list[MeasuredCeilings],
    findings: dict[str, tuple[Finding, ...]] | None = None,
) -> Page:
    findings = findings or {}
    groups = []
    known = [g.id for g in experiments.groups] if experiments else []
    extra = sorted(set(runs["group"].drop_nulls().to_list()) - set(known))
    for group_id in [*known, *extra]:
        spec = (
            next((g for g in experiments.groups if g.id == group_id), None) if experiments else None
        )
        rows = (
            runs.filter(pl.col("group") == group_id)
            .sort(["model", "dataset", "phase", "precision", "device", "device_label", "batch"])
            .to_dicts()
        )
        groups.append(
            {
                "id": group_id,
                "title": spec.title if spec else "(group no longer in experiments.toml)",
                "hypothesis": spec.hypothesis if spec else "n/a",
                "devices": ", ".join(spec.devices) if spec else "",
                "rows": [_cells(row, findings.get(row["run_id"], ())) for row in rows],
                "failures": [
                    {"run_id": row["run_id"], "error": row["error"] or "no error recorded"}
                    for row in rows
                    if row["status"] == "failed"
                ],
            }
        )
    markdown = render("runs.md.j2", groups=groups, ceilings=[_ceiling_cells(c) for c in ceilings])
    return Page(f"{GENERATED_DIR}/runs.md", "Measured runs", markdown, tables={"runs": runs})


def _render(report: Report) -> list[Page]:
    return [runs_page(report.runs, report.experiments, report.ceilings, report.run_findings)]


PAGE = Generated(None, _render)
