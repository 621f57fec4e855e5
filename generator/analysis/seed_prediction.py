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
the catalog knows) gets the list of what is missing instead of a number. A time whose profile
lacks part of the step (an `incomplete_profile` cause on a row of the same profile:
`profile_gap`) is said to be of part of the step. The same prediction and our measured result
of the same configuration give the comparison the experiment pages show
(analysis/seed_beside.py)."""

from __future__ import annotations

import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from generator.analysis import seed_rates
from generator.analysis.device_choice import LAUNCH, LAUNCH_LATENCY_US, floor_seconds
from generator.analysis.roofs import PREFERRED, Roof, peak_key, roof_for
from generator.analysis.seed_slips import slips_sentence
from generator.analysis.thresholds import PARTIAL_EXPORT_SHARE, ROOF_TOLERANCE
from generator.catalog import Device
from generator.formatting import number, percent, si
from generator.records.ceilings import MeasuredCeilings
from generator.records.literature import LiteratureRow, row_dimension
from generator.records.literature_workload import RowWorkload, is_rate, is_time, row_workload

# (model, dataset, batch, phase, precision)
WorkloadKey = tuple[str, str, int, str, str]
NEAR_FLOOR = 1.5  # published within this factor of the floor: the step ran near its roof
FAR_APART = 100.0  # published over 100× the floor: not an efficiency, a slip or extra time
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


# An `incomplete_profile` part whose time the profile lacks as well as its FLOPs: the step's
# phases (records/run.PHASES) its time leaves out. `conv_backward` (no FLOP formula for the
# convolutions' backward) leaves the time whole.
TIME_MISSING = {"backward": ("backward",)}


@dataclass(frozen=True)
class ProfileGap:
    """What the profile a seed time came from lacks, as a row of that profile's causes say."""

    part: str  # incomplete_profile's argument: "backward", "conv_backward"
    row_id: str  # the row whose cause names it
    flops: float | None  # the FLOPs the seed counted in that profile, where that row gives them

    @property
    def phases(self) -> tuple[str, ...]:
        """The step's phases missing from the profile's time; () when its time is whole."""
        return TIME_MISSING.get(self.part, ())

    def words(self) -> str:
        return f"the seed's profile lacks the {self.part.replace('_', ' ')} pass"


def profile_gap(row: LiteratureRow, rows: Sequence[LiteratureRow]) -> ProfileGap | None:
    """The `incomplete_profile` cause of the row or of another row of the same profile: the
    same seed and configuration, and the same device, workload and precision where both
    name one (a profile's numbers sit in several tables)."""

    def same(other: LiteratureRow) -> bool:
        pairs = ((row.device, other.device), (row.workload, other.workload),
                 (row.precision, other.precision))  # fmt: skip
        return (other.seed, other.configuration) == (row.seed, row.configuration) and all(
            not a or not b or a == b for a, b in pairs
        )

    for other in sorted((r for r in rows if r is row or same(r)), key=lambda r: r is not row):
        for use in other.causes:
            if use.name == "incomplete_profile":
                flops = other.published_base if row_dimension(other) == "flops" else None
                return ProfileGap(use.argument, other.id, flops)
    return None


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
    gap: ProfileGap | None = None  # what the profile the time came from lacks

    @property
    def ratio(self) -> float | None:
        """Published ÷ predicted (of throughputs for an img/s row: analysis/seed_rates.py)."""
        if self.predicted_s is None or self.predicted_s <= 0:
            return None
        return seed_rates.published_over_predicted(self.row, self.workload.batch, self.predicted_s)

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
    ratio, row, gap = p.ratio, p.row, p.gap
    assert ratio is not None and p.counts is not None and p.predicted_s is not None
    head = f"Published ÷ predicted = {number(ratio, 3)}"
    share = counted / p.counts.flops if counted else None
    if share is not None and share < PARTIAL_EXPORT_SHARE:
        return (
            f"{head}, though the export holds only {percent(100 * share)} of the step's FLOPs "
            "(work missing from the profile), so its time is of part of the step: per FLOP it "
            f"held, its kernels ran at {percent(100 * share / ratio)} of the floor's speed."
        )
    if gap is not None and gap.phases:  # the seed's own profile lacks part of the step's time
        if gap.flops is None:
            return (
                f"{head}, though {gap.words()} (row {gap.row_id}), so its time is of part of "
                "the step and not comparable with the whole step's floor."
            )
        share = gap.flops / p.counts.flops
        return (
            f"{head}, though {gap.words()} and holds only {percent(100 * share)} of the "
            f"step's FLOPs (its own count, row {gap.row_id}), so its time is of part of the "
            f"step: per FLOP it held, its kernels ran at {percent(100 * share / ratio)} of "
            "the floor's speed."
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
        if not (is_time(row) or is_rate(row)):
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
            out.append(Prediction(row, workload, device, tuple(missing),
                                  gap=profile_gap(row, rows)))  # fmt: skip
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
        gap = profile_gap(row, rows)
        p = Prediction(row, workload, device, (), found, under, kernels, predicted, bound, "", gap)
        timed = replace(p, row=seed_rates.as_step_time(row, key[2])) if is_rate(row) else p
        held = (counted or {}).get(workload.imported or "")
        sentence = cause_sentence(timed, statuses or {}, held)
        if is_rate(row):  # an img/s row: its throughput's ratio, then its step time's cause
            sentence = seed_rates.rate_sentence(row, key[2], predicted, sentence)
        out.append(replace(p, sentence=sentence))
    return out


def spread_by_seed(predictions: Sequence[Prediction]) -> list[SeedSpread]:
    """Per seed, sorted: how many times were predicted and how many lack something, and the
    median, lowest and highest published ÷ predicted (an img/s row's step time ÷ its floor)."""
    out = []
    for seed in sorted({p.row.seed for p in predictions}):
        mine = [p for p in predictions if p.row.seed == seed]
        ratios = sorted(r for p in mine if (r := seed_rates.step_ratio(p.row, p.ratio)) is not None)
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


def launch_note() -> str:
    """How the launch floor is set, for the page's method."""
    return (
        f"kernels per step × {LAUNCH_LATENCY_US} µs (the host's time to launch one kernel), "
        "where a profiled GPU step of the same configuration here counts its kernels"
    )
