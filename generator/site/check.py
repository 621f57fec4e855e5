"""Stage 3, check: the findings that need more than one export's analysis. Each export's
own checks run with its analysis; here, the timing checks of every measured run, and each
run's step and profiled ops against its device's measured ceilings."""

from __future__ import annotations

from dataclasses import dataclass

from generator.analysis.results import judged
from generator.findings import (
    Finding,
    blocks_timing_findings,
    throttle_findings,
    timing_findings,
)
from generator.findings.calibration_checks import not_reproduced
from generator.findings.ceiling_checks import above_ceiling
from generator.findings.contention import contention_findings
from generator.findings.odd_checks import unexplained
from generator.records.finding import stored_findings
from generator.site.analyse import Analysed


@dataclass(frozen=True)
class Checked:
    analysed: Analysed
    # ok run -> its timing findings and those run.json holds (profiler-overhead)
    run_findings: dict[str, tuple[Finding, ...]]


def check(analysed: Analysed) -> Checked:
    loaded = analysed.loaded
    found = {}
    # each run's precision is judged on the interval the report states (its result's),
    # else on its own (results.judged)
    by_run = {run: result for result in analysed.results.values() for run in result.run_ids}
    for run, times in loaded.step_times.items():
        record = loaded.records.get(run)
        timing = record.timing if record is not None else None
        stopped_by = timing.stopped_by if timing is not None else None
        result = by_run.get(run)
        own = next((r for r in result.runs if r.run_id == run), None) if result else None
        stated = judged(result, run, list(times))
        found[run] = (
            *(
                blocks_timing_findings(stated, own.levels, stopped_by)
                if own is not None and own.levels is not None
                else timing_findings(times, stopped_by, stated)
            ),
            *throttle_findings(record.conditions if record is not None else None),
            *contention_findings(
                record.conditions if record is not None else None, loaded.steps.get(run)
            ),
            *stored_findings(record.findings if record is not None else None),
        )
    ops = {
        t.origin.removeprefix("measurements/runs/").rstrip("/"): t.analysis.by_op
        for t in analysed.traces
        if t.kind == "run"
    }
    for run, missed in not_reproduced(loaded.calibrations, loaded.records).items():
        found[run] = (*found.get(run, ()), *missed)
    for run, above in above_ceiling(analysed.runs, analysed.results, loaded.ceilings, ops).items():
        found[run] = (*found.get(run, ()), *above)
    for run, odd in unexplained(analysed.odd).items():
        found[run] = (*found.get(run, ()), *odd)
    return Checked(analysed, found)
