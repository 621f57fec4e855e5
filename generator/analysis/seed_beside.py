"""A seed report's published time beside our measured result of the same configuration: both
devices named, published ÷ ours, and how much of it the two devices' roofline floors explain.

Like is set against like: a seed time whose profile lacks part of the step (its
`ProfileGap`, from an `incomplete_profile` cause: seed 000's ncu profiles hold no backward
pass) is set against our time of the same part, the sum of our timed phases' medians that
its profile held, where our run timed its phases; else the ratio is not printed, and the
sentence says why."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from generator.analysis.device_choice import floor_seconds
from generator.analysis.phases import PARTS, StepParts
from generator.analysis.results import Result
from generator.analysis.roofs import PREFERRED, Roof, peak_key, roof_for
from generator.analysis.seed_prediction import KIND_OF_RUN, Prediction
from generator.catalog import Device
from generator.formatting import number, si
from generator.records.ceilings import MeasuredCeilings
from generator.records.literature_workload import is_rate
from generator.records.run import PHASES

EXPLAINED = 0.2  # the floors' ratio explains published ÷ ours when within 20 %


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


@dataclass(frozen=True)
class BesideOurs:
    """A published time beside our measured result of the same configuration."""

    prediction: Prediction
    ours: Result
    ours_floor_s: float | None  # the roofline floor of the same workload on our device
    ours_roof: Roof | None
    # our phases' median times (seconds by records/run.PHASES name), where our run timed them
    ours_phases: Mapping[str, float] | None = None

    @property
    def held_phases(self) -> tuple[str, ...]:
        """The step's phases the seed's time covers: all but those its profile lacks."""
        gap = self.prediction.gap
        missing = gap.phases if gap else ()
        return tuple(phase for phase in PHASES if phase not in missing)

    @property
    def partial(self) -> bool:
        """Whether the seed's time is of part of the step (its profile lacks phases)."""
        return self.held_phases != PHASES

    @property
    def part_words(self) -> str:
        """The phases the seed's time covers: "forward, loss and optimizer step"."""
        return _listed([PARTS[f"{phase}_s"] for phase in self.held_phases])

    @property
    def ours_s(self) -> float | None:
        """Our time set against the seed's: the median step, or for a seed time of part of
        the step the sum of our same phases' medians (None where we did not time them)."""
        if not self.partial:
            return self.ours.step.value
        phases = self.ours_phases or {}
        if not all(phase in phases for phase in self.held_phases):
            return None
        return sum(phases[phase] for phase in self.held_phases)

    @property
    def ratio(self) -> float | None:
        """Published ÷ ours, like with like (None where they are not comparable)."""
        ours = self.ours_s
        return self.prediction.row.published_base / ours if ours else None

    @property
    def floors_ratio(self) -> float | None:
        """The seed device's floor over ours: what the devices alone predict of the ratio."""
        seed = self.prediction.predicted_s
        return seed / self.ours_floor_s if seed and self.ours_floor_s else None

    def sentence(self) -> str:
        """Published ÷ ours and its cause, in one sentence."""
        if self.partial:
            return self._partial_sentence()
        p, ours = self.prediction, self.ours
        ratio = self.ratio
        assert ratio is not None
        head = (
            f"Seed {p.row.seed}'s {si(p.row.published_base, 's')} on the {p.device_name} is "
            f"{number(ratio, 3)}× our {si(ours.step.value, 's')} on the {ours.device_label}"
        )
        expected = self.floors_ratio
        if expected is None:
            return f"{head}; no roofline floor for both devices, so no part of it is explained."
        rest = ratio / expected
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

    def _partial_sentence(self) -> str:
        """A seed time of part of the step against our time of the same part."""
        p, ours, gap = self.prediction, self.ours, self.prediction.gap
        assert gap is not None
        part = self.part_words
        head = (
            f"Seed {p.row.seed}'s {si(p.row.published_base, 's')} on the {p.device_name} times "
            f"only its {part}: {gap.words()} (row {gap.row_id})"
        )
        ratio, ours_s = self.ratio, self.ours_s
        if ratio is None or ours_s is None:
            return (
                f"{head}, and our run on the {ours.device_label} did not time its phases apart, "
                f"so it is not comparable with our {si(ours.step.value, 's')} step."
            )
        return (
            f"{head}; it is {number(ratio, 3)}× our {si(ours_s, 's')} for the same {part} "
            f"(of our {si(ours.step.value, 's')} step) on the {ours.device_label}. The "
            "roofline floors are of whole steps, so they explain no part of it."
        )


def beside_ours(
    predictions: Sequence[Prediction],
    results: Mapping[str, Result],
    ceilings: Sequence[MeasuredCeilings] = (),
    catalog: Sequence[Device] | None = None,
    parts: Mapping[str, StepParts] | None = None,
) -> list[BesideOurs]:
    """Each predicted published time beside our result of the same configuration (model,
    input, batch, phase, precision) on the same kind of device, CPU or GPU (the fastest
    where several devices ran it). `parts`: workload -> its training step's phase times."""
    out = []
    for p in predictions:
        key = p.workload.key
        if key is None or p.device is None or is_rate(p.row):  # times only
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
        out.append(
            BesideOurs(p, ours, floor, under, _phase_times((parts or {}).get(ours.workload)))
        )
    return out


def _phase_times(parts: StepParts | None) -> dict[str, float] | None:
    """Our step's phases' median times by records/run.PHASES name."""
    if parts is None:
        return None
    found = {phase: t.median_s for phase in PHASES if (t := parts.part(PARTS[f"{phase}_s"]))}
    return found or None
