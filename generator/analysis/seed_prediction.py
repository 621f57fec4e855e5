"""Each published time of the seed reports predicted from the roofline of the device it ran on,
and published ÷ predicted with its cause in one sentence: what a student's T4 should have done.

The prediction is the floor every step time sits above (analysis/device_choice.py's one rule,
`floor_seconds`): max(FLOPs / peak, minimal bytes / bandwidth) over the seed device's roof
(its measured ceilings where we have them, else its catalog datasheet: analysis/roofs.roof_for),
and on a GPU the launch floor, kernels × LAUNCH_LATENCY_S, where a profiled step of the same
configuration here says how many kernels it launches. The FLOPs and bytes are the project's
analytic counts of that workload (measurements/complexity/seed_workloads.csv, made by
`complexity-tables`; a run measured here of the same configuration counts the same).

A row that does not say what the prediction needs (its model, input, batch, phase, or a device
the catalog knows) gets the list of what is missing instead of a number. The same prediction
and our measured result of the same configuration give the comparison the experiment pages
show (`beside_ours`): published ÷ ours, and how much of it the two devices' floors explain."""

from __future__ import annotations

import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from generator.analysis.device_choice import (
    LAUNCH,
    LAUNCH_LATENCY_US,
    floor_seconds,
)
from generator.analysis.results import Result
from generator.analysis.roofs import PREFERRED, Roof, peak_key, roof_for
from generator.analysis.seed_slips import slips_sentence
from generator.analysis.thresholds import PARTIAL_EXPORT_SHARE, ROOF_TOLERANCE
from generator.catalog import Device
from generator.formatting import number, percent, si
from generator.records.ceilings import MeasuredCeilings
from generator.records.literature import LiteratureRow
from generator.records.literature_workload import RowWorkload, is_time, row_workload

# (model, dataset, batch, phase, precision)
WorkloadKey = tuple[str, str, int, str, str]
NEAR_FLOOR = 1.5  # published within this factor of the floor: the step ran near its roof
FAR_APART = 100.0  # published over 100× the floor: not an efficiency, a slip or extra time
EXPLAINED = 0.2  # the floors' ratio explains published ÷ ours when within 20 %
KIND_OF_RUN = {"cpu": "cpu", "cuda": "gpu"}  # a run's device kind -> the catalog's


@dataclass(frozen=True)
class Counts:
    """One step's analytic FLOPs and minimal bytes, and where they come from."""

    flops: float
    bytes: float
    source: str


@dataclass(frozen=True)
class Kernels:
    """Kernel launches per step, and the profiled step they were counted in."""

    per_step: float
    how: str


@dataclass(frozen=True)
class Prediction:
    """A published time beside the roofline's prediction on the device it ran on."""

    row: LiteratureRow
    workload: RowWorkload
    device: Device | None
    missing: tuple[str, ...]  # what the row lacks for a prediction; () when predicted
    counts: Counts | None = None
    under: Roof | None = None
    kernels: Kernels | None = None
    predicted_s: float | None = None
    bound: str = ""  # compute, memory or launch overhead
    sentence: str = ""  # published ÷ predicted and its cause, in one sentence

    @property
    def ratio(self) -> float | None:
        """Published ÷ predicted."""
        if self.predicted_s is None or self.predicted_s <= 0:
            return None
        return self.row.published_base / self.predicted_s

    @property
    def device_name(self) -> str:
        return self.device.name if self.device else "not known"


@dataclass(frozen=True)
class SeedSpread:
    """published ÷ predicted across one seed's predicted times."""

    seed: str
    predicted: int
    missing: int
    median: float | None
    low: float | None
    high: float | None

    @property
    def spread(self) -> float | None:
        """Highest over lowest ratio: how far apart the seed's times sit from their floors."""
        return self.high / self.low if self.high and self.low else None


@dataclass(frozen=True)
class BesideOurs:
    """A published time beside our measured result of the same configuration."""

    prediction: Prediction
    ours: Result
    ours_floor_s: float | None  # the roofline floor of the same workload on our device
    ours_roof: Roof | None

    @property
    def ratio(self) -> float:
        """Published ÷ ours (our median step)."""
        return self.prediction.row.published_base / self.ours.step.value

    @property
    def floors_ratio(self) -> float | None:
        """The seed device's floor over ours: what the devices alone predict of the ratio."""
        seed = self.prediction.predicted_s
        return seed / self.ours_floor_s if seed and self.ours_floor_s else None

    def sentence(self) -> str:
        """Published ÷ ours and its cause, in one sentence."""
        p, ours = self.prediction, self.ours
        head = (
            f"Seed {p.row.seed}'s {si(p.row.published_base, 's')} on the {p.device_name} is "
            f"{number(self.ratio, 3)}× our {si(ours.step.value, 's')} on the "
            f"{ours.device_label}"
        )
        expected = self.floors_ratio
        if expected is None:
            return f"{head}; no roofline floor for both devices, so no part of it is explained."
        rest = self.ratio / expected
        floors = (
            f"the roofline expects ×{number(expected, 3)} from the devices alone "
            f"({si(p.predicted_s, 's')} against {si(self.ours_floor_s, 's')} floors)"
        )
        if abs(rest - 1) <= EXPLAINED:
            return f"{head}: {floors}, which explains it."
        slower = "theirs" if rest > 1 else "ours"
        return (
            f"{head}: {floors}; the other ×{number(max(rest, 1 / rest), 3)} is how much further "
            f"{slower} ran from its own floor."
        )


def _squash(text: str) -> str:
    return re.sub(
        r"[^a-z0-9]", " ", text.lower().replace("nvidia", "").replace("tesla", "")
    ).strip()


def _names(device: Device) -> list[str]:
    return [_squash(n) for n in (device.id, device.name, *device.aliases)]


def seed_device(
    row: LiteratureRow,
    workload: RowWorkload,
    catalog: Sequence[Device],
    rows: Sequence[LiteratureRow],
    imported: Mapping[str, Device | None],
) -> tuple[Device | None, str]:
    """The catalog device a published time ran on, or None with what is missing. A
    datasheet-derived row names it in its key; an imported export's device is its match;
    else a part of the configuration names it: exactly, or as a word of one catalog
    device's names, or of several where the seed's own datasheet rows name one of them."""
    derive = row.derive
    by_id = {d.id: d for d in catalog}
    if derive.kind in ("catalog", "ridge", "at_peak"):
        return by_id[derive.device], ""
    # the device the transcriber names (the `device` column); a `floor:` key's device alone
    # may be a stand-in for one the seed does not name (the fastest catalog CPU, a bound)
    if row.device:
        return by_id[row.device], ""
    if workload.imported is not None:
        device = imported.get(workload.imported)
        return device, "" if device else f"the device of export {workload.imported!r}"
    kind = KIND_OF_RUN.get(workload.device_kind or "")
    candidates = [d for d in catalog if kind is None or d.kind == kind]
    own = {r.derive.device for r in rows if r.seed == row.seed and r.derive.device in by_id}
    for part in workload.device_words:
        wanted = _squash(part)
        if not wanted or wanted.isdigit():
            continue
        exact = [d for d in candidates if wanted in _names(d)]
        if len(exact) == 1:
            return exact[0], ""
        pattern = re.compile(rf"\b{re.escape(wanted)}\b")
        named = exact or [d for d in candidates if any(pattern.search(n) for n in _names(d))]
        chosen = [d for d in named if d.id in own] if len(named) > 1 else named
        if len(chosen) == 1:
            return chosen[0], ""
        if named:
            ids = ", ".join(sorted(d.id for d in named))
            return (
                None,
                f"which {part!r}: several catalog devices ({ids}) and the seed's rows name none",
            )
    return None, "the device (no part of its configuration names a catalog device)"


def kernels_of(key: WorkloadKey, profiled: Mapping[WorkloadKey, Kernels]) -> Kernels | None:
    """Kernels per step of the same configuration's profiled GPU step here (the same
    precision first), else of the same model, input and phase at another batch (the fewest:
    launches barely depend on the batch)."""
    model, dataset, _, phase, precision = key
    same = sorted(((k[4] != precision, k[4]), v) for k, v in profiled.items() if k[:4] == key[:4])
    if same:
        return same[0][1]
    other = [
        (v.per_step, k[2], v)
        for k, v in profiled.items()
        if (k[0], k[1], k[3]) == (model, dataset, phase)
    ]
    if not other:
        return None
    per_step, other_batch, found = min(other, key=lambda item: (item[0], item[1]))
    return Kernels(per_step, f"{found.how} (batch {other_batch})")


def cause_sentence(p: Prediction, statuses: Mapping[str, str], counted: float | None = None) -> str:
    """published ÷ predicted and what it says, in one sentence. counted: the FLOPs the
    export that gave the time holds, where it is an imported export's."""
    ratio, row = p.ratio, p.row
    assert ratio is not None and p.counts is not None and p.predicted_s is not None
    head = f"Published ÷ predicted = {number(ratio, 3)}"
    share = counted / p.counts.flops if counted else None
    if share is not None and share < PARTIAL_EXPORT_SHARE:
        return (
            f"{head}, though the export holds only {percent(100 * share)} of the step's FLOPs "
            "(work missing from the profile), so its time is of part of the step: per FLOP it "
            f"held, its kernels ran at {percent(100 * share / ratio)} of the floor's speed."
        )
    if row.derive.kind == "at_peak":
        slip = (
            ", and printed in s where its arithmetic gives ms (a factor-1000 slip)"
            if row.cause == "factor_1000" and statuses.get(row.id) == "consistent"
            else ""
        )
        return (
            f"{head}: a time the seed computed, not measured, from "
            f"{si(row.derive.flops, 'FLOP')} where the step does {si(p.counts.flops, 'FLOP')} "
            f"(×{number(p.counts.flops / row.derive.flops, 3)}){slip}."
        )
    # slips Replication confirms for this row set the number, not the device (001's at peak)
    work = (p.predicted_s, p.counts.flops * p.workload.steps, p.under, p.bound)
    if slips := slips_sentence(head, row, statuses, ratio, work):
        return slips
    if ratio < 1 / ROOF_TOLERANCE:
        return (
            f"{head}: {number(1 / ratio, 3)}× faster than the {p.bound} floor allows, so the "
            "run did less work than this workload counts, used faster units than the "
            f"{peak_key(p.workload.precision)} peak, or its time leaves part of the step out."
        )
    if ratio > FAR_APART:
        return (
            f"{head}: over {number(FAR_APART)}× the floor, which no inefficiency explains: a "
            "unit slip, or time outside the step (data loading, the host) in the number."
        )
    if ratio <= NEAR_FLOOR:
        return f"{head}: the step ran near its {p.bound} floor on the {p.device_name}."
    if p.bound == LAUNCH:
        return (
            f"{head}: the floor is the host's kernel launches, so the host's speed between "
            "kernels, not the GPU, sets the rest."
        )
    speed = percent(100 / ratio)
    what = "peak FLOP/s" if p.bound == "compute" else "bandwidth"
    return (
        f"{head}: the step ran at {speed} of the {p.device_name}'s {p.bound}-bound floor, "
        f"the {what} eager PyTorch loses to small layers, norms and activations."
    )


def predict(
    rows: Sequence[LiteratureRow],
    catalog: Sequence[Device],
    counts: Mapping[WorkloadKey, Counts],
    ceilings: Sequence[MeasuredCeilings] = (),
    profiled: Mapping[WorkloadKey, Kernels] | None = None,
    imported: Mapping[str, tuple[str, str, int, str]] | None = None,
    imported_devices: Mapping[str, Device | None] | None = None,
    statuses: Mapping[str, str] | None = None,
    counted: Mapping[str, float | None] | None = None,
) -> list[Prediction]:
    """Every published time of `rows`, predicted where the row says enough. counts: the
    analytic counts by workload; profiled: kernels per step of our profiled GPU steps;
    imported: folder -> (model, dataset, batch, phase) of each imported export, and
    imported_devices its matched device; statuses: row id -> its replication status;
    counted: imported folder -> the FLOPs its export counts."""
    out = []
    for row in rows:
        if not is_time(row):
            continue
        workload = row_workload(row, imported)
        device, device_missing = seed_device(row, workload, catalog, rows, imported_devices or {})
        missing = workload.missing() + ([device_missing] if device_missing else [])
        key = workload.key
        found = counts.get(key) if key else None
        if key and found is None:
            missing.append(
                "the analytic count of this workload (run `python -m generator complexity-tables`)"
            )
        peak = peak_key(workload.precision)
        under = roof_for(device.name, peak, PREFERRED, ceilings, tuple(catalog)) if device else None
        if device and under is None:
            missing.append(f"the {device.name}'s {peak} peak (not in the catalog)")
        if missing or found is None or under is None or key is None or device is None:
            out.append(Prediction(row, workload, device, tuple(missing)))
            continue
        kernels = kernels_of(key, profiled or {}) if device.kind == "gpu" else None
        per_step, bound = floor_seconds(
            found.flops,
            found.bytes,
            under.peak_flops_per_s,
            under.bandwidth_bytes_per_s,
            kernels.per_step if kernels else None,
        )
        predicted = per_step * workload.steps  # an epoch's time: its steps' floors
        p = Prediction(row, workload, device, (), found, under, kernels, predicted, bound)
        out.append(
            Prediction(row, workload, device, (), found, under, kernels, predicted, bound,
                       cause_sentence(p, statuses or {},
                                      (counted or {}).get(workload.imported or "")))
        )  # fmt: skip
    return out


def spread_by_seed(predictions: Sequence[Prediction]) -> list[SeedSpread]:
    """Per seed, sorted: how many times were predicted and how many lack something, and the
    median, lowest and highest published ÷ predicted."""
    out = []
    for seed in sorted({p.row.seed for p in predictions}):
        mine = [p for p in predictions if p.row.seed == seed]
        ratios = sorted(r for p in mine if (r := p.ratio) is not None)
        out.append(
            SeedSpread(
                seed,
                len(ratios),
                len(mine) - len(ratios),
                statistics.median(ratios) if ratios else None,
                ratios[0] if ratios else None,
                ratios[-1] if ratios else None,
            )
        )
    return out


def beside_ours(
    predictions: Sequence[Prediction],
    results: Mapping[str, Result],
    ceilings: Sequence[MeasuredCeilings] = (),
    catalog: Sequence[Device] | None = None,
) -> list[BesideOurs]:
    """Each predicted published time beside our result of the same configuration (model,
    input, batch, phase, precision) on the same kind of device, CPU or GPU (the fastest
    where several devices ran it)."""
    out = []
    for p in predictions:
        key = p.workload.key
        if key is None or p.device is None:
            continue
        same = [
            r
            for r in results.values()
            if (r.model, r.dataset, r.batch, r.phase, r.precision) == key
            and KIND_OF_RUN.get(r.device) == p.device.kind
            and r.step.value > 0
        ]
        if not same:
            continue
        ours = min(same, key=lambda r: (r.step.value, r.workload))
        under = roof_for(ours.device_label, peak_key(ours.precision), PREFERRED, ceilings,
                     tuple(catalog) if catalog is not None else None)  # fmt: skip
        floor = None
        if under is not None and ours.modelled_flops and ours.modelled_bytes:
            # the same kernels launch on both GPUs: the same launch floor on each
            kernels = p.kernels.per_step if p.kernels and ours.device == "cuda" else None
            floor, _ = floor_seconds(
                ours.modelled_flops, ours.modelled_bytes, under.peak_flops_per_s,
                under.bandwidth_bytes_per_s, kernels,
            )  # fmt: skip
        out.append(BesideOurs(p, ours, floor, under))
    return out


def launch_note() -> str:
    """How the launch floor is set, for the page's method."""
    return (
        f"kernels per step × {LAUNCH_LATENCY_US} µs (the host's time to launch one kernel), "
        "where a profiled GPU step of the same configuration here counts its kernels"
    )
