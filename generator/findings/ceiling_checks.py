"""A measured ceiling that real work beats is no ceiling: a run's modelled step, or an op of
its profiled step, attained more FLOP/s than the GEMM ceiling measured on its device. The
step's number is right (analytic FLOPs over measured time); the ceiling under it is too low
(one GEMM shape, one thread count), and every efficiency against it is overstated."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from generator.analysis.results import Result
from generator.analysis.roofs import gemm_ceiling
from generator.catalog import device_label
from generator.findings.specs import ABOVE_CEILING
from generator.formatting import si
from generator.records.ceilings import MeasuredCeilings
from generator.records.finding import Finding

REMEASURE = (
    "measure the ceilings again: delete measurements/ceilings/{device_id}.json and run "
    "`nox -s measure` (or `nox -s measure -- --force`, which re-measures the runs too); its "
    "CPU sweep tries the kernels, shapes and thread counts the models use"
)
# On a GPU the fp32 ceiling is one fp32 GEMM without TF32. An fp32 convolution can beat it
# honestly in analytic FLOP/s: cuDNN's Winograd and FFT algorithms do fewer multiplications
# than the direct count, and with torch.backends.cudnn.allow_tf32 on it runs on TF32 tensor
# cores (the run's precision switches record which).
GPU_FIX = (
    "on a GPU, an fp32 convolution may run a Winograd or FFT algorithm (fewer multiplications "
    "than the analytic count: see the fewer-flops-algorithm finding of an ncu profile) or, with "
    "torch.backends.cudnn.allow_tf32 on (the run's precision switches), TF32 tensor cores: "
    "compare it with the tf32 ceiling, or profile it with `--ncu`; else " + REMEASURE
)


def _ceiling(
    device_name: str, precision: str, ceilings: Sequence[MeasuredCeilings]
) -> tuple[str, float] | None:
    """(GEMM precision key, its measured rate) on the device, or None: the ceiling of the
    run's own precision (`roofs.gemm_ceiling`)."""
    mine = [m for m in ceilings if m.device_name == device_name]
    return gemm_ceiling(device_name, precision, mine) if mine else None


def _fix(device_name: str, ceilings: Sequence[MeasuredCeilings]) -> str:
    device_id = next(
        (m.device_id for m in ceilings if m.device_name == device_name and m.device_id),
        "<device>",
    )
    on_cpu = device_id.startswith("cpu-") or device_id == "<device>"
    return (REMEASURE if on_cpu else GPU_FIX).format(device_id=device_id)


def step_above_ceiling(
    row: dict[str, Any], result: Result | None, ceilings: Sequence[MeasuredCeilings]
) -> list[Finding]:
    """`row`: a runs row (ingest.runs); `result`: its workload's, whose modelled FLOP/s
    (analytic FLOPs over its step time) is checked."""
    rate = result.attained if result is not None else None
    found = _ceiling(str(row.get("device_name") or ""), str(row.get("precision") or ""), ceilings)
    if row.get("status") != "ok" or rate is None or found is None:
        return []
    attained = rate.value
    key, ceiling = found
    # above only beyond its interval: a step whose interval holds the ceiling may run at it
    if (rate.low if rate.low is not None else attained) <= ceiling:
        return []
    what = f"{row['model']} b{row['batch']} {row['phase']}"
    return [
        ABOVE_CEILING.found(
            f"{what} runs above its device's measured ceiling",
            f"{what} runs at {si(attained, 'FLOP/s')}, above the measured {key} GEMM ceiling "
            f"of {si(ceiling, 'FLOP/s')} on {device_label(str(row['device_name']))} "
            f"({attained / ceiling:.2f}×): the ceiling is no ceiling, and efficiencies against "
            "it are overstated",
            _fix(str(row["device_name"]), ceilings),
        )
    ]


def ops_above_ceiling(
    run: dict[str, Any], by_op: pl.DataFrame, ceilings: Sequence[MeasuredCeilings]
) -> list[Finding]:
    """The ops of a run's profiled step (`by_op`: op, attained_flops_per_s) above the
    measured GEMM ceiling of the run's precision: one finding naming the fastest."""
    found = _ceiling(str(run.get("device_name") or ""), str(run.get("precision") or ""), ceilings)
    if found is None or by_op.is_empty() or "attained_flops_per_s" not in by_op.columns:
        return []
    key, ceiling = found
    over = by_op.filter(pl.col("attained_flops_per_s") > ceiling).sort(
        "attained_flops_per_s", descending=True
    )
    if over.is_empty():
        return []
    worst = over.row(0, named=True)
    others = f" ({over.height - 1} more op(s) too)" if over.height > 1 else ""
    return [
        ABOVE_CEILING.found(
            f"{worst['op']} runs above its device's measured ceiling",
            f"{worst['op']} in the profiled step runs at "
            f"{si(worst['attained_flops_per_s'], 'FLOP/s')}, above the measured {key} GEMM "
            f"ceiling of {si(ceiling, 'FLOP/s')} on {device_label(str(run['device_name']))}"
            f"{others}: the ceiling "
            "is no ceiling",
            _fix(str(run["device_name"]), ceilings),
        )
    ]


def above_ceiling(
    runs: pl.DataFrame,
    results: Mapping[str, Result],
    ceilings: Sequence[MeasuredCeilings],
    ops: dict[str, pl.DataFrame] | None = None,
) -> dict[str, tuple[Finding, ...]]:
    """By run id, the above-ceiling findings of every run that has one: its modelled step
    (its workload's result, `results`: workload -> result), and the ops of its profiled step
    (`ops`: run id -> by-op table) where given."""
    found: dict[str, tuple[Finding, ...]] = {}
    for row in runs.to_dicts():
        own = step_above_ceiling(row, results.get(row["workload"]), ceilings)
        if ops and row["run_id"] in ops:
            own += ops_above_ceiling(row, ops[row["run_id"]], ceilings)
        if own:
            found[row["run_id"]] = tuple(own)
    return found
