"""How a run is named and its median written, wherever a page mentions one run: a short
label (the run id carries a hash and wraps over five lines in a table cell) and its
result's step time with its interval and kind."""

from __future__ import annotations

from collections.abc import Mapping

from generator.analysis.interval import Interval
from generator.analysis.results import Result
from generator.formatting import percent, seconds
from generator.pages.paths import GENERATED_DIR

RUNS_DIR = f"{GENERATED_DIR}/runs"  # beside runs.md: /measurements/runs/<run id>/


def short_device(label: str) -> str:
    """'NVIDIA H100 SXM' -> 'H100 SXM', 'AMD EPYC (2 threads)' -> 'AMD EPYC': enough to tell
    two GPUs of one group apart in a label."""
    name = label.split(" (")[0]
    for vendor in ("NVIDIA ", "GeForce "):
        name = name.removeprefix(vendor)
    return name


def cv_text(result: Result | None, run_id: str) -> str:
    """The spread of a run's own single steps (sd / mean), from its workload's result."""
    own = result.run(run_id) if result is not None else None
    return percent(100 * own.cv) if own is not None and own.cv is not None else "n/a"


def run_label(row: Mapping[str, object]) -> str:
    """'resnet18 b128 train_step fp32 H100 SXM': what tells a group's runs apart, short
    enough for one line of a table cell (the run id carries a hash and wraps over five
    lines). The device is the concrete one: two GPUs are both `cuda` in the config."""
    device = short_device(str(row.get("device_label") or row["device"]))
    mode = row.get("compile")
    compiled = f" {mode}" if mode and mode != "eager" else ""
    return f"{row['model']} b{row['batch']} {row['phase']} {row['precision']}{compiled} {device}"


def run_path(run_id: str) -> str:
    return f"{RUNS_DIR}/{run_id}.md"


def step_text(step: Interval | None) -> str:
    """A step time with its interval and the interval's kind: "5.48 ms [5.34 ms, 5.66 ms]
    (within one process)"; "n/a" without one."""
    return "n/a" if step is None else step.text(seconds)


def half_width(step: Interval | None) -> str:
    """The interval's larger half as a share of the value: the precision in one number
    ("±2.4 %")."""
    share = step.half_width if step is not None else None
    if share is None:
        return "n/a"
    return "too uncertain" if step is not None and step.too_wide else "±" + percent(100 * share, 2)


def result_of(row: Mapping[str, object]) -> Result | None:
    """The row's result, where a page put it under "result" (an ok run's)."""
    found = row.get("result")
    return found if isinstance(found, Result) else None


def citable(result: Result) -> str:
    """The step time as a citation states it: the value, its interval where it has one, and
    in words what kind of interval it is (never an uncalibrated one as if calibrated)."""
    step = result.step
    core = step.text(seconds, kind=False)
    words = step.kind_words()
    if len(result.runs) > 1 and not step.calibrated:
        gap = percent(100 * (result.disagreement or 0.0))
        words += f"; {len(result.runs)} runs, each timed in one process, disagree by {gap}"
    return f"{core} ({words})"
