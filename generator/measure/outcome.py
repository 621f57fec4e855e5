"""What `measure` reports of each planned run, and the summary table it prints: each ok
run's step time, interval, throughput and precision computed from its steps.csv by the
report's own functions (`results.run_estimate`, `results.precise_enough`), so that the
table says what the report will say of the run alone."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from generator.analysis.interval import Interval
from generator.analysis.results import precise_enough, run_estimate
from generator.analysis.thresholds import NOISY_CI
from generator.formatting import percent, seconds
from generator.ingest.steps import read_steps
from generator.records.calibration import read_calibrations, session_cvs, session_key
from generator.records.run import read_run
from generator.records.run_modes import mode_of


@dataclass
class Outcome:
    run_id: str
    status: str  # ok, failed, skipped (already measured), unavailable (no such device here)
    detail: str = ""
    step: Interval | None = None  # the run's own step time (seconds), as the report states it
    batch: int | None = None

    @classmethod
    def of(cls, run_id: str, status: str, detail: str, folder: Path) -> Outcome:
        """An outcome with the step time of the ok run in `folder` (a run folder under
        measurements/runs/), widened by its device's between-session variation as the
        report widens it; a run without one (failed, or no folder) has none."""
        record = read_run(folder) if (folder / "run.json").exists() else None
        if record is None or record.status != "ok" or not (folder / "steps.csv").exists():
            return cls(run_id, status, detail)
        measurements = folder.parent.parent
        known = session_cvs(read_calibrations(measurements)) if measurements.is_dir() else {}
        key = session_key(record.device_name, mode_of(record.config.model_dump()))
        step = run_estimate(read_steps(folder), known.get(key, 0.0))
        return cls(run_id, status, detail, step, record.config.batch)


def print_summary(outcomes: list[Outcome], console: Console) -> None:
    table = Table(title="measure: summary")
    for column in ("run", "status", "median step [95 % interval] (kind)", "samples/s", "note"):
        table.add_column(column)
    for o in outcomes:
        step, note = o.step, o.detail[:80]
        if step is not None and not precise_enough(step):
            note = "; ".join(n for n in (f"wider than ±{percent(100 * NOISY_CI)}", note) if n)
        table.add_row(
            o.run_id,
            o.status,
            step.text(seconds) if step is not None else "",
            step.inverse(o.batch).text(lambda v: f"{v:,.0f}", kind=False)
            if step is not None and o.batch
            else "",
            note,
        )
    console.print(table)
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    console.print(", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
