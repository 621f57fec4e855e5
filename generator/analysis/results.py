"""The results stage: one typed result per workload (a configuration on one device), computed
once after loading, which every page, chart, download, citation and verdict reads.

A workload is a run's configuration without what only says how or where it was filed
(group, warm-up, iteration counts, stopping rule, profiling): ResNet-18 b128 training on the
H100 in groups B and E is one workload. Its step time is an `Interval` of one kind
(`analysis/interval.py`), by one rule:

- every pooled run timed in blocks (independent worker processes), `MIN_BLOCKS` blocks or
  more in all: the estimate across the blocks and its 95 % re-measurement interval
  (`hierarchical.block_estimate`, widened by the device's between-session variation from the
  calibration records), CALIBRATED;
- one run timed in one process: the median of its steps and the distribution-free interval
  of that median (`stats.median_ci`), ONE_PROCESS;
- anything else (several runs each timed in one process, too few blocks): the median of all
  their steps and no interval, NONE. Each run's own value is kept (`runs`), with how far
  apart they are (`disagreement`), and the command that re-measures the workload in blocks
  (`remeasure`).

`estimate` is the one function that turns step times into a step time with its interval:
`measure` calls it for the summary it prints and for its stopping rules, `remeasure` for the
intervals it checks, the report for every result. `precise_enough` is the one judgement of
an interval's precision, and `judged` the interval a run's precision is judged on."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass, replace

import polars as pl

from generator.analysis.interval import CALIBRATED, MIN_BLOCKS, NONE, ONE_PROCESS, Interval
from generator.analysis.launch import LaunchTime, timed_launch
from generator.analysis.per_workload import in_blocks, run_blocks
from generator.analysis.thresholds import NOISY_CI
from generator.formatting import seconds
from generator.hierarchical import Levels, block_estimate
from generator.records.calibration import session_key
from generator.records.run_modes import EAGER
from generator.stats import median_ci


@dataclass(frozen=True)
class RunTime:
    """One run's own step time (its steps alone), and whether it was timed in blocks."""

    run_id: str
    group: str
    step: Interval
    in_blocks: bool
    commit: str = ""  # the commit its run.json says measured it ("" where unknown)
    finished_at: str = ""  # when its last `measure` call finished (ISO 8601)
    cv: float | None = None  # the spread of its single steps (sd / mean; 2 steps or more)
    levels: Levels | None = None  # timed in 2 blocks or more: the variation at each level


@dataclass(frozen=True)
class Result:
    """One configuration on one device: what the report states for it, everywhere."""

    workload: str
    model: str
    dataset: str
    batch: int
    phase: str
    precision: str
    device: str  # the kind in the config: cpu, cuda
    device_name: str  # as the run recorded it
    device_label: str  # the concrete device, one name per product (the report's device key)
    runs: tuple[RunTime, ...]  # every ok run it pools, by run id
    groups: tuple[str, ...]  # every group it serves, sorted
    step: Interval  # seconds
    iterations: int  # timed steps of all its runs
    modelled_flops: float | None = None  # analytic FLOPs of one step
    modelled_bytes: float | None = None  # analytic minimal bytes of one step
    session_cv: float = 0.0  # the device's between-session variation in its interval
    compile: str = "eager"  # eager, or the torch.compile mode (records.run_modes)
    # CUDA: the host's time to enqueue a step beside the GPU's, over its timed steps (None
    # on a CPU, and for runs timed before the host's time was recorded)
    launch: LaunchTime | None = None

    @property
    def run_ids(self) -> tuple[str, ...]:
        return tuple(run.run_id for run in self.runs)

    def run(self, run_id: str) -> RunTime | None:
        """One of the runs it pools, by id (None: not one of them)."""
        return next((run for run in self.runs if run.run_id == run_id), None)

    @property
    def throughput(self) -> Interval:
        """Samples per second."""
        return self.step.inverse(self.batch)

    @property
    def attained(self) -> Interval | None:
        """Modelled FLOPs over the step time (FLOP/s)."""
        return self.step.inverse(self.modelled_flops) if self.modelled_flops else None

    @property
    def disagreement(self) -> float | None:
        """How far apart the pooled runs' own medians are (highest ÷ lowest − 1), with more
        than one run."""
        medians = [run.step.value for run in self.runs]
        return max(medians) / min(medians) - 1 if len(medians) > 1 else None

    @property
    def remeasure(self) -> str:
        """The command that re-measures this workload in blocks (a calibrated interval)."""
        return f"nox -s measure -- --group {self.runs[0].group} --device {self.device} --force"

    def why_uncalibrated(self) -> str:
        """One sentence: why this result has no calibrated interval, and the command."""
        if self.step.calibrated:
            return ""
        if self.step.in_blocks and self.step.processes < MIN_BLOCKS:
            return (
                f"timed in {self.step.processes} blocks, fewer than the {MIN_BLOCKS} a calibrated "
                f"interval rests on: {self.step.short_kind()}. Complete it (its blocks are "
                f"kept, more are added): `{self.remeasure}`"
            )
        if len(self.runs) > 1:
            values = ", ".join(f"{seconds(run.step.value)} (run of group {run.group})"
                               for run in self.runs)  # fmt: skip
            gap = 100 * (self.disagreement or 0.0)
            return (
                f"{len(self.runs)} runs, each timed in one process: {values}; they disagree "
                f"by {gap:.3g} % and are not calibrated. Re-measure: `{self.remeasure}`"
            )
        return (
            f"timed in one process: its interval is within that process, not calibrated. "
            f"Re-measure: `{self.remeasure}`"
        )


def run_estimate(frame: pl.DataFrame, session_cv: float) -> Interval:
    """A run's own step time from its steps.csv (`frame`), by the one rule."""
    return estimate(run_blocks(frame), in_blocks(frame), session_cv)


def _own(run_id: str, group: str, frame: pl.DataFrame, session_cv: float,
         row: Mapping[str, object]) -> tuple[RunTime, list[list[float]]]:  # fmt: skip
    """A run's own step time, with its spread and levels, and its blocks."""
    blocks = run_blocks(frame)
    timed_in_blocks = in_blocks(frame)
    samples = [t for block in blocks for t in block]
    mean = statistics.fmean(samples)
    cv = statistics.stdev(samples) / mean if len(samples) > 1 and mean else None
    levels = block_estimate(blocks).levels if timed_in_blocks and len(blocks) > 1 else None
    own = RunTime(run_id, group, estimate(blocks, timed_in_blocks, session_cv), timed_in_blocks,
                  str(row.get("commit") or ""), str(row.get("finished_at") or ""), cv,
                  levels)  # fmt: skip
    return own, blocks


def precise_enough(step: Interval, target: float = NOISY_CI) -> bool:
    """The one judgement of precision: the interval's larger half within ±`target` of its
    value (the report's NOISY_CI; measure's stopping rules pass the group's `ci_target`). An
    interval `estimate` does not state (too few blocks, several one-process runs) is not."""
    half = step.half_width
    return half is not None and half <= target


def judged(result: Result | None, run_id: str, steps: list[float]) -> Interval:
    """The interval a run's precision is judged on: its result's (the one the report
    states); where that has none, the run's own; where neither has one (fewer than
    MIN_BLOCKS blocks), its steps' as one process, which understates the noise between
    processes, so a run imprecise even by it is imprecise."""
    own = next((run for run in result.runs if run.run_id == run_id), None) if result else None
    for step in (result.step if result else None, own.step if own else None):
        if step is not None and step.bounded:
            return step
    return estimate([steps], False, 0.0)


def estimate(blocks: list[list[float]], timed_in_blocks: bool, session_cv: float) -> Interval:
    """The one rule (module docstring) for the times of each process."""
    samples = [t for block in blocks for t in block]
    if timed_in_blocks and len(blocks) >= MIN_BLOCKS:
        found = block_estimate(blocks, session_cv=session_cv)
        low, high = found.remeasure95_s
        return Interval(found.estimate_s, low, high, CALIBRATED, len(blocks))
    if len(blocks) == 1:
        low, high = median_ci(samples)
        return Interval(statistics.median(samples), low, high, ONE_PROCESS, 1)
    return Interval(statistics.median(samples), None, None, NONE, len(blocks), timed_in_blocks)


def results(
    runs: pl.DataFrame,
    steps: Mapping[str, pl.DataFrame],
    session_cvs: Mapping[str, float] | None = None,
) -> dict[str, Result]:
    """Workload -> its result, for every workload with an ok run that has timed steps.
    `session_cvs`: device name -> the between-invocation variation its re-measurements
    showed (records.calibration.session_cvs), which widens the re-measurement interval."""
    ok = runs.filter((pl.col("status") == "ok") & pl.col("run_id").is_in(list(steps))).sort(
        "run_id"
    )
    parts: dict[str, list[dict[str, object]]] = {}
    for row in ok.to_dicts():
        parts.setdefault(str(row["workload"]), []).append(row)
    found = {}
    for workload, rows in parts.items():
        mode = str(rows[0].get("compile") or EAGER)
        session = (session_cvs or {}).get(session_key(str(rows[0]["device_name"]), mode), 0.0)
        owns, all_blocks, every_in_blocks = [], [], True
        host_rows: list[dict[str, float | None]] = []
        for row in rows:
            frame = steps[str(row["run_id"])]
            if "step_s" not in frame.columns or frame["step_s"].drop_nulls().is_empty():
                continue
            if "host_s" in frame.columns and frame["host_s"].null_count() < frame.height:
                host_rows.extend(frame.to_dicts())
            own, blocks = _own(str(row["run_id"]), str(row["group"]), frame, session, row)
            owns.append(own)
            all_blocks.extend(blocks)
            every_in_blocks = every_in_blocks and own.in_blocks
        if not owns:
            continue
        single = len(owns) == 1
        step = owns[0].step if single else estimate(all_blocks, every_in_blocks, session)
        first = rows[0]
        groups: set[str] = set()
        for row in rows:
            shared = row.get("groups")
            groups.update(shared if isinstance(shared, list) and shared else [str(row["group"])])
        found[workload] = Result(
            workload=workload, model=str(first["model"]), dataset=str(first["dataset"]),
            batch=int(first["batch"]), phase=str(first["phase"]),  # type: ignore[call-overload]
            precision=str(first["precision"]), device=str(first["device"]),
            device_name=str(first["device_name"]), device_label=str(first["device_label"]),
            runs=tuple(owns), groups=tuple(sorted(groups)), step=step,
            iterations=sum(len(b) for b in all_blocks),
            modelled_flops=_number(first.get("modelled_flops")),
            modelled_bytes=_number(first.get("modelled_bytes")), session_cv=session,
            compile=str(first.get("compile") or "eager"),
            launch=timed_launch(host_rows, str(first["precision"])) if host_rows else None,
        )  # fmt: skip
    return found


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def timed_step_of_runs(found: Mapping[str, Result]) -> dict[str, float]:
    """Run id -> its result's timed (unprofiled) median step: what a profiled step's
    host-bound verdict is checked against (launch.py), on the run's page and on its trace's."""
    return {run_id: result.step.value for result in found.values() for run_id in result.run_ids}


def with_trace_launch(
    found: Mapping[str, Result], launches: Mapping[str, LaunchTime]
) -> dict[str, Result]:
    """Each result's launch time: its timed steps' where they recorded the host's time,
    else the profiled step's of the first of its runs (by id) whose trace gives one
    (`launches`: run id -> the trace's launch time)."""
    updated = dict(found)
    timed = timed_step_of_runs(found)
    for workload, result in found.items():
        if result.launch is not None:
            continue
        run_id = next((r for r in result.run_ids if r in launches), None)
        if run_id is not None:  # checked against the unprofiled step (launch.py)
            traced = replace(launches[run_id], timed_step_s=timed[run_id])
            updated[workload] = replace(result, launch=traced)
    return updated
