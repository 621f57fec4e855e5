"""An experiment page's Setup line: what the group sweeps, how each of its runs was timed (from
the run's own result: blocks of independent worker processes, or rounds in one process) and
what the experiment file asks of the next `measure` call, which may differ."""

from __future__ import annotations

from collections.abc import Sequence

from generator.analysis.results import RunTime
from generator.analysis.verdict_needs import DEVICE, RESULT, ResultRow
from generator.config import ExperimentsFile, Group, Settings

IN_BLOCKS = "in blocks"
IN_ROUNDS = "in rounds in one process"


def asked(group: Group, d: Settings) -> str:
    """How the experiment file asks the group's configurations to be timed now."""
    warmup = group.warmup if group.warmup is not None else d.warmup
    steps = group.iterations if group.iterations is not None else d.iterations
    if (group.method or d.method) == "blocks":
        low = group.min_blocks or d.min_blocks
        high = group.max_blocks or d.max_blocks
        return (
            f"timed in blocks: {low} to {high} fresh worker processes per configuration, each "
            f"{warmup} warm-up steps (and at least 0.5 s) then {steps} timed steps at first"
        )
    repeats = group.repeats if group.repeats is not None else d.repeats
    return f"{warmup} warm-up and {steps} timed steps, {repeats} round(s) at least, one process"


def own_timing(row: ResultRow) -> RunTime | None:
    """The row's run as its result holds it: its own step time, how it was timed."""
    result = row[RESULT]
    if result is None:
        return None
    return next((run for run in result.runs if run.run_id == row["run_id"]), None)


def _processes(counts: list[int]) -> str:
    low, high = min(counts), max(counts)
    span = f"{low}" if low == high else f"{low} to {high}"
    return f"{span} independent worker process{'es' if high > 1 else ''} each"


def timed_as(rows: Sequence[ResultRow]) -> str:
    """How the group's runs were timed, per device, from each run's own result: "on NVIDIA
    H100 SXM, 4 runs in rounds in one process; on NVIDIA H200 SXM, 4 runs in blocks (6
    independent worker processes each)"."""
    parts: dict[str, dict[str, list[int]]] = {}
    for row in rows:
        own = own_timing(row)
        if own is None:
            continue
        method = IN_BLOCKS if own.in_blocks else IN_ROUNDS
        parts.setdefault(row[DEVICE], {}).setdefault(method, []).append(own.step.processes)
    said = []
    for device, methods in parts.items():
        for method, counts in methods.items():
            runs = f"{len(counts)} run{'s' if len(counts) > 1 else ''}"
            how = f"{IN_BLOCKS} ({_processes(counts)})" if method == IN_BLOCKS else method
            said.append(f"on {device}, {runs} {how}")
    return "; ".join(said)


def setup(group: Group, experiments: ExperimentsFile, rows: Sequence[ResultRow]) -> str:
    d = experiments.defaults
    measured = {row["device"] for row in rows}
    missing = [dv for dv in group.devices if dv not in measured]
    how = timed_as(rows)
    parts = [
        f"models {', '.join(group.models)}; datasets {', '.join(group.datasets)} (synthetic inputs "
        f"of their shape); batch sizes {', '.join(map(str, group.batch_sizes))}; phases "
        f"{', '.join(group.phases)}; precisions {', '.join(group.precisions)}; devices "
        f"{', '.join(group.devices)}; optimizer {d.optimizer}",
        f"{len(rows)} run(s) measured"
        + (f" on {', '.join(dict.fromkeys(str(row[DEVICE]) for row in rows))}" if rows else ""),
        *([f"timed as each run records it: {how}"] if how else []),
        f"the experiment file asks the next `measure` call for: {asked(group, d)}",
    ]
    if missing:
        parts.append(
            f"not measured yet: the {', '.join(missing)} runs (no such device where this was measured)"
        )
    return "; ".join(parts) + "."
