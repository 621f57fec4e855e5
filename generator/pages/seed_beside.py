"""The section of an experiment page that sets the seed reports' times of the workloads it
re-runs beside ours: both devices named, published ÷ ours, published ÷ predicted, and the
cause of the first in one sentence (analysis/seed_beside.py's `beside_ours`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from markupsafe import Markup

from generator.analysis.phases import StepParts
from generator.analysis.results import Result
from generator.analysis.seed_beside import BesideOurs, beside_ours
from generator.analysis.seed_prediction import Prediction
from generator.catalog import Device
from generator.formatting import number, si
from generator.pages.render import render
from generator.records.ceilings import MeasuredCeilings


def _config(result: Result) -> tuple[str, str, int, str, str]:
    return (result.model, result.dataset, result.batch, result.phase, result.precision)


def for_group(
    predictions: Sequence[Prediction],
    results: Mapping[str, Result],
    ceilings: Sequence[MeasuredCeilings],
    catalog: Sequence[Device],
    parts: Mapping[str, StepParts] | None = None,
) -> tuple[list[BesideOurs], list[Prediction]]:
    """The seed times of the configurations a group measured: those beside our result, and
    those that cannot be (their device unknown, or measured here on the other kind only).
    `parts`: workload -> its training step's phase times (a seed time of part of a step is
    set against ours of the same part)."""
    pairs = beside_ours(predictions, results, ceilings, catalog, parts)
    paired = {pair.prediction.row.id for pair in pairs}
    ours = {_config(r) for r in results.values()}
    unmatched = [
        p for p in predictions
        if p.workload.key in ours and p.row.id not in paired and p.row.derive.kind != "at_peak"
    ]  # fmt: skip
    return pairs, unmatched


def _why_not(p: Prediction) -> str:
    """Why a seed time of a configuration this group ran stands beside none of ours."""
    if p.missing:
        return "it lacks " + "; ".join(p.missing)
    kind = "GPU" if p.device and p.device.kind == "gpu" else "CPU"
    return f"it ran on the {p.device_name}, and this group ran it on no {kind} here"


def _ours_cell(pair: BesideOurs) -> str:
    """Our time set against the seed's: the step, or the same part of it."""
    if not pair.partial:
        return si(pair.ours.step.value, "s")
    step = si(pair.ours.step.value, "s")
    if pair.ours_s is None:
        return f"{step} step (its phases not timed apart)"
    return f"{si(pair.ours_s, 's')} ({pair.part_words}; step {step})"


def seed_section(pairs: Sequence[BesideOurs], unmatched: Sequence[Prediction]) -> Markup:
    """The section's Markdown; empty when the group re-runs no seed time."""
    if not pairs and not unmatched:
        return Markup("")
    rows = [
        {
            "id": pair.prediction.row.id,
            "where": pair.prediction.row.where,
            "configuration": pair.prediction.row.configuration,
            "seed_device": pair.prediction.device_name,
            "published": si(pair.prediction.row.published_base, "s"),
            "ours_device": pair.ours.device_label,
            "ours": _ours_cell(pair),
            "over_ours": number(pair.ratio, 3),
            "over_predicted": number(pair.prediction.ratio, 3)
            + (" (a part of the step against the whole step's floor)" if pair.partial else ""),
            "sentence": pair.sentence(),
        }
        for pair in pairs
    ]
    missing = [(p.row.id, p.row.configuration, _why_not(p)) for p in unmatched]
    return Markup(render("seed_beside.md.j2", rows=rows, missing=missing))
