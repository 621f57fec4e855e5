"""Seed 003's three roofline figures, redrawn (the types: analysis/seed_rooflines.py).

- Fig. 1: the devices of its Table 1 at the peak it gives each (BF16; the Grace CPU's FP64),
  each at the datasheet's dense peak where the seed took the with-sparsity figure.
- Fig. 3: its ten models' batch-1 inference intensity under the Colab Xeon's and the T4's
  roofs. The seed divides FLOPs by a memory footprint; here the intensity is this project's
  analytic FLOPs over minimal bytes (the counts the H and H-cpu groups' runs carry), each
  model drawn at the rate its roof allows (the seed's figure has no measured rate). The seed's
  T4 roof is the FP16 tensor-core peak: drawn beside the FP32 roof FP32 inference runs under.
- Fig. 7: achieved FLOP/s (analytic FLOPs over the measured median step) against intensity for
  every model and batch measured here on the CPU (H-cpu, H-cpu-batch) and the GPU (H), under
  each device's measured roof: the modelled points the report computes (analysis/points.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from generator.analysis.points import Points
from generator.analysis.replication import Replication
from generator.analysis.results import Result
from generator.analysis.roofs import Roof
from generator.analysis.seed_prediction import Counts, WorkloadKey
from generator.analysis.seed_rooflines import (
    SEED_ROOF,
    DrawnPoint,
    DrawnRoof,
    Redrawn,
    datasheet_roof,
    listed,
    ridge_text,
    roof_changes,
    seed_values,
    side,
)
from generator.analysis.step_verdict import StepVerdict
from generator.catalog import Device
from generator.formatting import number, si
from generator.records.literature import LiteratureRow
from generator.records.peaks import PEAK_LABELS

COLAB_CPU, T4 = "colab-xeon-2vcpu", "t4"  # seed 003's Table 2, as catalog ids
BATCH_ONE_GROUPS = ("H-cpu", "H")  # the groups that ran its ten models at batch 1
MEASURED_GROUPS = ("H-cpu", "H-cpu-batch", "H")  # every batch of them, CPU and GPU
AT_ROOF = "ours: analytic intensity, at the rate its roof allows"
SEED_SAYS = (
    "the seed finds every CPU configuration compute-bound and almost every GPU one "
    "memory-bound (FLOPs over a memory footprint, under its FP16 T4 roof)"
)

# Seed 003's §1: "The performance of TPUs and GPUs are comparable both in earlier generations
# (TPU v4 and NVIDIA A100) and later generations (TPU7x and NVIDIA H100)": catalog ids.
SEED_003_PAIRS = (("tpu-v4", "a100-80gb-sxm"), ("tpu7x", "h100-sxm"))


def seed_003_devices(
    replications: Sequence[Replication], catalog: tuple[Device, ...]
) -> Redrawn | None:
    """Seed 003's Fig. 1: the roofs of its Table 1's devices at the peak it gives each (BF16;
    the Grace CPU's FP64), each at the datasheet's dense peak: a sparse peak corrected."""
    rows = [r.row for r in replications]
    devices = {d.id: d for d in catalog}
    table = [
        r for r in rows
        if r.seed == "003" and r.where == "Table 1" and r.derive.kind == "catalog"
        and r.derive.peak != "bandwidth" and r.derive.device in devices
    ]  # fmt: skip
    drawn = [
        (row, roof)
        for row in table
        if (
            roof := datasheet_roof(
                devices[row.derive.device], row.derive.peak, rows, "003", "Table 1"
            )
        )
    ]
    if not drawn:
        return None
    roofs = [roof for _, roof in drawn]
    parts = []
    sparse = [
        (d, r) for r, d in drawn
        if any(u.name == "sparse_peak" for u in r.causes) and d.seed_peak and d.seed_ridge
    ]  # fmt: skip
    if sparse:
        names = " and ".join(f"{d.roof.device}'s" for d, _ in sparse)
        parts.append(
            f"the seed draws the {names} with-sparsity peaks "
            f"({' and '.join(si(d.seed_peak, 'FLOP/s') for d, _ in sparse)}, rows "
            f"{', '.join(r.id for _, r in sparse)}); at their dense peaks "
            f"({' and '.join(si(d.roof.peak_flops_per_s, 'FLOP/s') for d, _ in sparse)}) their "
            "ridges fall "
            + " and ".join(
                f"from {number(d.seed_ridge or 0, 3)} to {number(d.roof.ridge_ai, 3)}"
                for d, _ in sparse
            )
            + " FLOP/byte"
        )
    by_id = {row.derive.device: roof for row, roof in drawn}
    pairs = [(by_id[a], by_id[b]) for a, b in SEED_003_PAIRS if a in by_id and b in by_id]
    if pairs:
        parts.append(
            "the seed's 'comparable' pairs become "
            + " and ".join(
                f"{a.roof.device} at {number(_peak_ratio(a, b), 3)}× the {b.roof.device}'s peak "
                f"(the seed's {number(_peak_ratio(a, b, seed=True), 3)}×)"
                for a, b in pairs
            )
        )
    other = [d for d in roofs if d.roof.precision != "bf16_tensor"]
    parts += [
        f"the {d.roof.device} keeps its {PEAK_LABELS[d.roof.precision]} peak, as the seed "
        "did: the catalog gives it no BF16 peak"
        for d in other
    ]
    sentence = (
        "Against the seed's figure, " + "; ".join(parts or ["the roofs are the seed's own"]) + "."
    )
    return Redrawn(
        "seed-003-fig-1", "003", "Fig. 1", "five devices at their dense peaks",
        tuple(roofs), (), sentence,
    )  # fmt: skip


def _peak_ratio(a: DrawnRoof, b: DrawnRoof, seed: bool = False) -> float:
    """a's peak over b's: the datasheet's dense peaks, or the seed's where it gave them."""
    if seed:
        return (a.seed_peak or a.roof.peak_flops_per_s) / (b.seed_peak or b.roof.peak_flops_per_s)
    return a.roof.peak_flops_per_s / b.roof.peak_flops_per_s


def _of(count: int, total: int) -> str:
    return f"all {total}" if count == total else f"{count} of the {total}"


def batch_one_workloads(runs: pl.DataFrame) -> list[WorkloadKey]:
    """The models the H and H-cpu groups ran at batch 1 (FP32 inference), by run id."""
    if runs.is_empty() or "groups" not in runs.columns:
        return []
    found = [
        (row["model"], row["dataset"], 1, "inference", "fp32")
        for row in runs.sort("run_id").to_dicts()
        if set(row["groups"] or ()) & set(BATCH_ONE_GROUPS)
        and row["batch"] == 1 and row["phase"] == "inference" and row["precision"] == "fp32"
    ]  # fmt: skip
    return list(dict.fromkeys(found))


def _seed_tensor_roof(rows: Sequence[LiteratureRow], t4: Device) -> DrawnRoof | None:
    """The roof seed 003 drew for the T4: its Table 2's tensor-core peak over its bandwidth."""
    values = seed_values(rows, "003", t4.id, "Table 2")
    key, tensor = next(
        ((k, r) for k, r in values.items() if k not in ("bandwidth", "fp32")), ("", None)
    )
    if tensor is None:
        return None
    bandwidth = values.get("bandwidth")
    over = bandwidth.published_base if bandwidth else t4.bandwidth_bytes_per_s
    roof = Roof(t4.name, key, tensor.published_base, over, SEED_ROOF)
    return DrawnRoof(
        roof, SEED_ROOF, tensor.published_base, over, tensor.id, bandwidth.id if bandwidth else ""
    )


def seed_003_models(
    replications: Sequence[Replication],
    catalog: tuple[Device, ...],
    counts: Mapping[WorkloadKey, Counts],
    workloads: Sequence[WorkloadKey],
) -> Redrawn | None:
    """Seed 003's Fig. 3: its ten models at batch 1 under the Colab Xeon's and the T4's FP32
    roofs, with the seed's FP16 tensor-core T4 roof beside them."""
    rows = [r.row for r in replications]
    devices = {d.id: d for d in catalog}
    if COLAB_CPU not in devices or T4 not in devices:
        return None
    cpu = datasheet_roof(devices[COLAB_CPU], "fp32", rows, "003", "Table 2")
    gpu = datasheet_roof(devices[T4], "fp32", rows, "003", "Table 2")
    seeds = _seed_tensor_roof(rows, devices[T4])
    found = [(key[0], c.flops / c.bytes, c.source) for key in workloads if (c := counts.get(key))]
    if cpu is None or gpu is None or seeds is None or not found:
        return None
    points = tuple(
        DrawnPoint(model, (), f"{model}, batch 1 inference", d.roof.device, ai, d.roof.at(ai),
                   AT_ROOF, side(ai, d.roof), source)
        for d in (cpu, gpu)
        for model, ai, source in found
    )  # fmt: skip
    ais = [ai for _, ai, _ in found]
    n, tensor, fp32 = len(found), seeds.roof, gpu.roof
    left = sum(ai < tensor.ridge_ai for ai in ais)
    compute = [m for m, ai, _ in found if ai >= fp32.ridge_ai]
    on_cpu = sum(ai >= cpu.roof.ridge_ai for ai in ais)
    parts = [
        f"the seed's T4 roof is its {PEAK_LABELS[tensor.precision]}-core peak, "
        f"{si(tensor.peak_flops_per_s, 'FLOP/s')} (row {seeds.rows[0]}), whose ridge at "
        f"{ridge_text(tensor.ridge_ai)} puts {_of(left, n)} models "
        f"({number(min(ais), 3)}–{number(max(ais), 3)} FLOP/byte at batch 1) on the memory side",
        f"FP32 inference runs under the T4's FP32 peak, {si(fp32.peak_flops_per_s, 'FLOP/s')}, "
        f"ridge {ridge_text(fp32.ridge_ai)}, where "
        + (f"{listed(compute)} sit on the compute side ({len(compute)} of {n})" if compute
           else f"all {n} stay on the memory side"),
        f"on the {cpu.roof.device} {_of(on_cpu, n)} sit on the compute side"
        + (", as the seed says" if on_cpu == n else ""),
        *roof_changes([cpu, gpu]),
    ]  # fmt: skip
    return Redrawn(
        "seed-003-fig-3", "003", "Fig. 3", "ten models at batch 1 under both T4 roofs",
        (cpu, gpu, seeds), points, "Against the seed's figure, " + "; ".join(parts) + ".",
    )  # fmt: skip


def seed_003_measured(
    results: Mapping[str, Result], points: Mapping[str, Points]
) -> Redrawn | None:
    """Seed 003's Fig. 7: every model and batch of the H, H-cpu and H-cpu-batch groups, its
    modelled point (analytic FLOPs over the measured median step) under its device's roof."""
    chosen: list[tuple[Result, StepVerdict]] = []
    for workload, result in results.items():
        verdict = points[workload].modelled if workload in points else None
        if verdict and set(result.groups) & set(MEASURED_GROUPS) and result.phase == "inference":
            chosen.append((result, verdict))
    if not chosen:
        return None
    chosen.sort(key=lambda c: (c[0].batch, c[0].device_label, c[0].model))
    drawn = tuple(
        DrawnPoint(f"{r.model} b{r.batch}", (), f"{r.model}, batch {r.batch} ({', '.join(r.groups)})",
                   v.roof.device, v.ai, v.attained.value, f"batch {r.batch}", v.side, v.words())
        for r, v in chosen
    )  # fmt: skip
    roofs = {v.roof.label: DrawnRoof(v.roof, v.roof.source) for _, v in chosen}
    parts = []
    for roof in sorted(roofs.values(), key=lambda d: d.roof.device):
        mine = [(r, v) for r, v in chosen if v.roof.label == roof.roof.label]
        batches = sorted({r.batch for r, _ in mine})
        by_batch = ", ".join(
            f"{sum(v.side == 'compute' for r, v in mine if r.batch == b)} of "
            f"{sum(r.batch == b for r, _ in mine)} at batch {b}"
            for b in batches
        )
        hosted = sum(v.host_bound for _, v in mine)
        parts.append(
            f"on the {roof.roof.device} {sum(v.side == 'compute' for _, v in mine)} of "
            f"{len(mine)} points sit on the compute side of its measured ridge at "
            f"{ridge_text(roof.roof.ridge_ai)} ({by_batch})"
            + (f", {hosted} of them host-bound (launch)" if hosted else "")
        )
    sentence = (
        f"Where {SEED_SAYS}, here, on analytic FLOPs over minimal bytes under the roofs "
        f"measured on each device, {'; '.join(parts)}."
    )
    return Redrawn(
        "seed-003-fig-7", "003", "Fig. 7", "the models measured here on both devices",
        tuple(roofs.values()), drawn, sentence,
    )  # fmt: skip
