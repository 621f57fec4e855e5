"""How a run is named and its median written, wherever a page mentions one run: a short
label (the run id carries a hash and wraps over five lines in a table cell) and the median
with its interval."""

from __future__ import annotations

from typing import Any

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


def run_label(row: dict[str, Any]) -> str:
    """'resnet18 b128 train_step fp32 H100 SXM': what tells a group's runs apart, short
    enough for one line of a table cell (the run id carries a hash and wraps over five
    lines). The device is the concrete one: two GPUs are both `cuda` in the config."""
    device = short_device(str(row.get("device_label") or row["device"]))
    mode = row.get("compile")
    compiled = f" {mode}" if mode and mode != "eager" else ""
    return f"{row['model']} b{row['batch']} {row['phase']} {row['precision']}{compiled} {device}"


def run_path(run_id: str) -> str:
    return f"{RUNS_DIR}/{run_id}.md"


def interval(row: dict[str, Any], prefix: str = "") -> str:
    """A median with its 95 % interval; `prefix` "run_" for the run's own figures."""
    median, low, high = (row.get(f"{prefix}{k}") for k in ("median_s", "ci_low_s", "ci_high_s"))
    if median is None:
        return "n/a"
    if low is None or high is None:
        return seconds(median)
    return f"{seconds(median)} [{seconds(low)}, {seconds(high)}]"


def half_width(row: dict[str, Any], prefix: str = "") -> str:
    """The interval's larger half as a share of the median: the run's precision in one
    number ("±2.4 %")."""
    median, low, high = (row.get(f"{prefix}{k}") for k in ("median_s", "ci_low_s", "ci_high_s"))
    if not median or low is None or high is None:
        return "n/a"
    return "±" + percent(100 * max(median - low, high - median) / median, 2)
