"""What `measure` reports of each planned run, and the summary table it prints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table


@dataclass
class Outcome:
    run_id: str
    status: str  # ok, failed, skipped (already measured), unavailable (no such device here)
    detail: str = ""
    median_s: float | None = None
    cv: float | None = None
    throughput: float | None = None

    @classmethod
    def of(cls, run_id: str, status: str, detail: str, timing: Any | None) -> Outcome:
        """An outcome with a run's timing (records.run.Timing) when it has one."""
        if timing is None:
            return cls(run_id, status, detail)
        return cls(run_id, status, detail, timing.median_s, timing.cv,
                   timing.throughput_samples_per_s)  # fmt: skip


def print_summary(outcomes: list[Outcome], console: Console) -> None:
    table = Table(title="measure: summary")
    for column in ("run", "status", "median step", "CV", "samples/s", "note"):
        table.add_column(column)
    for o in outcomes:
        table.add_row(
            o.run_id,
            o.status,
            f"{o.median_s * 1e3:.2f} ms" if o.median_s is not None else "",
            f"{100 * o.cv:.1f} %" if o.cv is not None else "",
            f"{o.throughput:,.0f}" if o.throughput is not None else "",
            o.detail[:80],
        )
    console.print(table)
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    console.print(", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
