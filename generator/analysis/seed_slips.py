"""The Seed times sentence of a published time whose own slips the Replication page confirms
(seed 001's "step time at the FP32 peak": seconds printed for milliseconds, forward MACs
called a step). The slips act on FLOPs ÷ peak, the compute floor the seed's formula computes,
and the Replication row checks published ÷ that floor against them; where the roofline's
floor is set by memory (or launches) instead, published ÷ predicted is smaller by the ratio
of the two floors, and the sentence says so, so that the ratio it pins on the slips is the
one they predict."""

from __future__ import annotations

from collections.abc import Mapping

from generator.analysis.roofs import Roof
from generator.formatting import number, si
from generator.records.literature import LiteratureRow
from generator.records.literature_causes import CAUSES, COMBINABLE

SAME_FLOOR = 1e-6  # the roofline's floor is the compute floor within rounding


def slips_sentence(
    head: str,
    row: LiteratureRow,
    statuses: Mapping[str, str],
    ratio: float,
    work: tuple[float, float, Roof | None, str],
) -> str:
    """The sentence for a row whose combinable slips Replication confirms, "" for any other.
    head: "Published ÷ predicted = …"; work: the predicted floor (s), the FLOPs of the same
    span, the roof the floor is under and the bound that sets the floor."""
    slips = " and ".join(CAUSES[u.name].label for u in row.causes if u.name in COMBINABLE)
    if not slips or statuses.get(row.id) != "consistent":
        return ""
    predicted, flops, roof, bound = work
    compute = flops / roof.peak_flops_per_s if roof and roof.peak_flops_per_s else None
    if compute is None or compute <= 0 or abs(predicted / compute - 1) <= SAME_FLOOR:
        return f"{head}: the seed's own {slips}, as Replication confirms; not the device."
    return (
        f"{head} against the {bound} floor, {number(predicted / compute, 3)}× the compute "
        f"floor the seed's formula computes (the step's FLOPs at the peak, {si(compute, 's')}); "
        f"over that floor published is ×{number(ratio * predicted / compute, 3)}, the seed's "
        f"own {slips}, as Replication confirms; not the device."
    )
