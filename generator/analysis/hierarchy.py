"""The hierarchical roofline (Yang, Kurth and Williams, arXiv:2009.02449): every kernel and
every step at L1, L2 and DRAM, each level's arithmetic intensity against its own bandwidth.

One kernel's FLOPs over each level's bytes give one AI per level; its attained FLOP/s is
the same at every level. The level whose roof is lowest at its AI binds the kernel. In time
that is the largest of bytes / bandwidth (each level with a ceiling) and FLOPs / peak, which
also judges a kernel that did no FLOPs. A level without a ceiling (no citable figure in the
catalog) is drawn but never judged, and the summary says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from generator.analysis.roofline import PRECISIONS, Totals
from generator.analysis.roofs import DATASHEET, peak_key, roof_for
from generator.catalog import Device
from generator.formatting import number, percent, si
from generator.records.peaks import PEAK_LABELS

if TYPE_CHECKING:
    from generator.analysis.views import MeasurementView

LEVELS: tuple[str, ...] = ("L1", "L2", "DRAM")
COMPUTE = "compute"
# level -> the kernel_metrics column of its bytes (DRAM: read + write, as the roofline)
KERNEL_BYTES: dict[str, str] = {"L1": "l1_bytes", "L2": "l2_bytes", "DRAM": "dram_total_bytes"}
STEP_BYTES: dict[str, str] = {"L1": "l1_bytes", "L2": "l2_bytes", "DRAM": "dram_bytes"}
PREFIX: dict[str, str] = {"L1": "l1", "L2": "l2", "DRAM": "dram"}
STEP = "step"

_FLOAT = pl.Float64
_LEVEL_COLUMNS: dict[str, pl.DataType | type[pl.DataType]] = {
    f"{PREFIX[level]}_{what}": _FLOAT for level in LEVELS for what in ("bytes", "ai")
}
_JUDGED: dict[str, pl.DataType | type[pl.DataType]] = {
    "binding": pl.String,
    "roof_flops_per_s": _FLOAT,
    "efficiency": _FLOAT,
}
KERNEL_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "kernel_id": pl.Int64,
    "kernel_name": pl.String,
    "nvtx_range": pl.String,
    "time_s": _FLOAT,
    "flops": _FLOAT,
    "attained_flops_per_s": _FLOAT,
    "precision": pl.String,
    "peak_flops_per_s": _FLOAT,
    **_LEVEL_COLUMNS,
    **_JUDGED,
}
STEP_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "scope": pl.String,  # "step" (every kernel), else an NVTX range
    "kernels": pl.Int64,
    "time_s": _FLOAT,
    "flops": _FLOAT,
    "attained_flops_per_s": _FLOAT,
    "precision": pl.String,
    "peak_flops_per_s": _FLOAT,
    **_LEVEL_COLUMNS,
    **_JUDGED,
}


@dataclass(frozen=True)
class HierarchyTable:
    """An export's kernels and steps at every memory level it has bytes for."""

    device: Device | None
    levels: tuple[str, ...]  # levels with bytes in the export, in LEVELS order
    ceilings: dict[str, float | None]  # level -> byte/s; None: no citable figure
    precision: str | None  # the step's dominant precision: its peak is the drawn roof
    peak_flops_per_s: float | None
    kernels: pl.DataFrame  # KERNEL_SCHEMA, one row per kernel, most time first
    steps: pl.DataFrame  # STEP_SCHEMA, the whole step then each NVTX range
    missing: dict[str, int]  # level -> kernels lacking its bytes

    @property
    def unjudged(self) -> tuple[str, ...]:
        """Levels drawn without a roof: the catalog has no ceiling for them."""
        return tuple(level for level in self.levels if self.ceilings.get(level) is None)


def level_ceilings(device: Device | None) -> dict[str, float | None]:
    """Each level's bandwidth in byte/s: DRAM from the datasheet roof (`roofs.roof_for`),
    L1 and L2 only where the catalog cites a figure. Every level is a datasheet figure (the
    caches have no other source), so the DRAM one is too: one source on one chart."""
    if device is None:
        return dict.fromkeys(LEVELS)
    dram = roof_for(device.name, "fp32", DATASHEET, catalog=(device,))
    return {
        "L1": device.l1_bandwidth_bytes_per_s,
        "L2": device.l2_bandwidth_bytes_per_s,
        "DRAM": dram.bandwidth_bytes_per_s if dram else None,
    }


def peak_for(device: Device | None, precision: str | None) -> float | None:
    """The datasheet peak of a counted precision (`roofs.roof_for`), as the chart names it."""
    if device is None or precision is None:
        return None
    roof = roof_for(device.name, precision, DATASHEET, catalog=(device,))
    return roof.peak_flops_per_s if roof else None


def binding_level(
    flops: float | None,
    moved: Mapping[str, float | None],
    ceilings: Mapping[str, float | None],
    peak: float | None,
) -> tuple[str | None, float | None]:
    """(binding level, its roof in FLOP/s): the level (or "compute") whose lower bound on
    time is longest, so whose roof is lowest. None when a level that could bind lacks its
    bytes (missing is never zero), the FLOPs or peak are unknown, or no level has a
    ceiling. The roof is None for a kernel without FLOPs (it binds, but has no FLOP/s)."""
    if flops is None or peak is None:
        return None, None
    times = {COMPUTE: flops / peak}
    for level, bandwidth in ceilings.items():
        if bandwidth is None:
            continue
        level_bytes = moved.get(level)
        if level_bytes is None:
            return None, None
        times[level] = level_bytes / bandwidth
    if len(times) == 1:
        return None, None
    slowest = max(times, key=lambda k: times[k])
    longest = times[slowest]
    if longest <= 0:
        return None, None
    return slowest, (flops / longest if flops > 0 else None)


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    """A finite ratio or None: no bytes moved is no finite AI (never inf, JSON has none)."""
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def _judged(
    flops: float | None,
    moved: Mapping[str, float | None],
    ceilings: Mapping[str, float | None],
    peak: float | None,
    attained: float | None,
) -> dict[str, Any]:
    binding, roof = binding_level(flops, moved, ceilings, peak)
    return {
        "binding": binding,
        "roof_flops_per_s": roof,
        "efficiency": _ratio(attained, roof),
    }


def _per_level(flops: float | None, moved: Mapping[str, float | None]) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for level in LEVELS:
        row[f"{PREFIX[level]}_bytes"] = moved.get(level)
        row[f"{PREFIX[level]}_ai"] = _ratio(flops, moved.get(level))
    return row


def _dominant(row: Mapping[str, Any]) -> str | None:
    """The precision with the most FLOPs in one kernel (its own compute roof)."""
    present = {p: row.get(f"flops_{p}") or 0.0 for p in PRECISIONS}
    best = max(present, key=lambda p: present[p])
    return best if present[best] > 0 else None


def _kernel_rows(
    metrics: pl.DataFrame,
    have: tuple[str, ...],
    ceilings: Mapping[str, float | None],
    device: Device | None,
    step_precision: str | None,
) -> pl.DataFrame:
    rows = []
    for row in metrics.iter_rows(named=True):
        # A kernel's own precision sets its compute roof (an FP32 elementwise kernel in a
        # TF32 step is not held to the tensor peak); no FLOPs: the step's.
        precision = _dominant(row) or step_precision
        peak = peak_for(device, precision) or peak_for(device, step_precision)
        flops, time_s = row.get("flops"), row.get("time_s")
        attained = _ratio(flops, time_s)
        moved = {level: row.get(KERNEL_BYTES[level]) for level in have}
        rows.append(
            {
                "kernel_id": row.get("kernel_id"),
                "kernel_name": row.get("kernel_name"),
                "nvtx_range": row.get("nvtx_range"),
                "time_s": time_s,
                "flops": flops,
                "attained_flops_per_s": attained,
                "precision": precision,
                "peak_flops_per_s": peak,
                **_per_level(flops, moved),
                **_judged(flops, moved, ceilings, peak, attained),
            }
        )
    frame = pl.DataFrame(rows, schema=KERNEL_SCHEMA, orient="row") if rows else None
    if frame is None:
        return pl.DataFrame(schema=KERNEL_SCHEMA)
    return frame.sort(["time_s", "kernel_id"], descending=[True, False], nulls_last=True)


def _step_row(
    scope: str,
    total: Totals,
    have: tuple[str, ...],
    ceilings: Mapping[str, float | None],
    device: Device | None,
) -> dict[str, Any]:
    precision = total.dominant_precision
    peak = peak_for(device, precision)
    moved = {level: getattr(total, STEP_BYTES[level]) for level in have}
    attained = total.attained_flops_per_s
    return {
        "scope": scope,
        "kernels": total.kernels,
        "time_s": total.time_s,
        "flops": total.flops,
        "attained_flops_per_s": attained,
        "precision": precision,
        "peak_flops_per_s": peak,
        **_per_level(total.flops, moved),
        **_judged(total.flops, moved, ceilings, peak, attained),
    }


def hierarchy(
    metrics: pl.DataFrame,
    step: Totals,
    ranges: Mapping[str, Totals],
    device: Device | None,
) -> HierarchyTable | None:
    """The hierarchical roofline of one export (a frame from roofline.kernel_metrics and
    its totals), or None when the export has neither L1 nor L2 bytes: then the DRAM
    roofline is all there is."""
    present = {
        level: metrics[column].null_count() < metrics.height
        for level, column in KERNEL_BYTES.items()
        if column in metrics.columns and metrics.height
    }
    if not (present.get("L1") or present.get("L2")):
        return None
    have = tuple(level for level in LEVELS if present.get(level))
    missing = {
        level: metrics[KERNEL_BYTES[level]].null_count()
        for level in have
        if metrics[KERNEL_BYTES[level]].null_count()
    }
    all_ceilings = level_ceilings(device)
    ceilings = {level: all_ceilings[level] for level in have}
    precision = step.dominant_precision
    kernels = _kernel_rows(metrics, have, ceilings, device, precision)
    scopes = [(STEP, step)]
    if len(ranges) > 1 or (ranges and next(iter(ranges)) != "(no range)"):
        scopes += list(ranges.items())
    steps = pl.DataFrame(
        [_step_row(name, total, have, ceilings, device) for name, total in scopes],
        schema=STEP_SCHEMA,
        orient="row",
    )
    return HierarchyTable(
        device=device,
        levels=have,
        ceilings=ceilings,
        precision=precision,
        peak_flops_per_s=peak_for(device, precision),
        kernels=kernels,
        steps=steps,
        missing=missing,
    )


def levels(view: MeasurementView) -> HierarchyTable | None:
    """A kernel page's hierarchical roofline; None when its export lacks L1 and L2 bytes."""
    return hierarchy(view.kernels, view.step, view.ranges, view.match.device)


def binding_shares(table: HierarchyTable) -> dict[str, float]:
    """Share of judged kernel time (0-1) per binding level, largest first."""
    judged = table.kernels.filter(pl.col("binding").is_not_null() & (pl.col("time_s") > 0))
    total = float(judged["time_s"].sum()) if judged.height else 0.0
    if total <= 0:
        return {}
    shares = judged.group_by("binding").agg(pl.col("time_s").sum()).to_dicts()
    ordered = sorted(shares, key=lambda r: (-r["time_s"], _order(r["binding"])))
    return {r["binding"]: r["time_s"] / total for r in ordered}


def _order(binding: str) -> int:
    return (*LEVELS, COMPUTE).index(binding)


def bound_label(binding: str, precision: str | None = None) -> str:
    """A binding level in words: "L2 bandwidth", "compute (FP32 peak)"."""
    if binding != COMPUTE:
        return f"{binding} bandwidth"
    return f"compute ({precision} peak)" if precision else "compute"


def _no_ceiling(table: HierarchyTable) -> str:
    names = " or ".join(table.unjudged)
    where = f"for {table.device.name}" if table.device else "(no catalog device matched)"
    them = "them" if len(table.unjudged) > 1 else "it"
    return f"no {names} ceiling in the catalog {where}, so no kernel is judged against {them}"


def summary(table: HierarchyTable) -> str:
    """One computed sentence: which level binds most kernel time, the others' shares, how
    close those kernels come to that roof, and which levels could not be judged."""
    if table.device is None:
        return (
            "No catalog device matched this export, so no level has a ceiling and no kernel "
            "is judged: the hierarchical roofline shows each level's arithmetic intensity only."
        )
    shares = binding_shares(table)
    if not shares:
        reason = f"; {_no_ceiling(table)}" if table.unjudged else ""
        return (
            "No kernel could be judged against the memory hierarchy "
            f"(FLOPs, time or bytes missing){reason}."
        )
    top, share = next(iter(shares.items()))
    judged = table.kernels.filter(pl.col("binding") == top)
    lead = "Most kernel time" if share > 0.5 else "The largest share of kernel time"
    label = bound_label(top, _top_precision(judged))
    others = ", ".join(
        f"{bound_label(b)} {percent(100 * s)}" for b, s in shares.items() if b != top
    )
    judged_time = float(table.kernels.filter(pl.col("binding").is_not_null())["time_s"].sum())
    sentence = (
        f"{lead} is bound by {label}: {percent(100 * share)} of the {si(judged_time, 's')} "
        f"of kernel time judged is in the {judged.height} kernels whose lowest roof is {top}"
        + (f" ({others})" if others else "")
    )
    reached = _time_weighted(judged)
    if reached is not None:
        sentence += f", which reach {percent(100 * reached)} of that roof (time-weighted)"
    if table.unjudged:
        sentence += f"; {_no_ceiling(table)}"
    return sentence + "."


def precision_label(precision: str) -> str:
    """A counted precision as every page names its peak ("tensor_tf32" -> "TF32 tensor")."""
    return PEAK_LABELS[peak_key(precision)]


def _top_precision(kernels: pl.DataFrame) -> str | None:
    counted = kernels.drop_nulls("precision")
    if not counted.height:
        return None
    by_time = counted.group_by("precision").agg(pl.col("time_s").sum()).sort("time_s")
    return precision_label(str(by_time["precision"][-1]))


def _time_weighted(kernels: pl.DataFrame) -> float | None:
    """Σ efficiency · time / Σ time over kernels with both."""
    both = kernels.filter(pl.col("efficiency").is_not_null() & (pl.col("time_s") > 0))
    total = float(both["time_s"].sum()) if both.height else 0.0
    if total <= 0:
        return None
    return float((both["efficiency"] * both["time_s"]).sum()) / total


def step_rows(table: HierarchyTable) -> list[dict[str, str]]:
    """The steps table as a page shows it: one row per scope, numbers formatted."""
    rows = []
    for row in table.steps.iter_rows(named=True):
        shown = {
            "scope": row["scope"],
            "FLOPs": si(row["flops"], "FLOP"),
            "time": si(row["time_s"], "s"),
            "attained": si(row["attained_flops_per_s"], "FLOP/s"),
        }
        for level in table.levels:
            shown[f"{level} AI (FLOP/byte)"] = number(row[f"{PREFIX[level]}_ai"])
        shown["lowest roof"] = row["binding"] or "n/a"
        shown["of that roof"] = percent(
            None if row["efficiency"] is None else 100 * row["efficiency"]
        )
        rows.append(shown)
    return rows
