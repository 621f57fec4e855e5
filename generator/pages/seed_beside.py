"""The section of an experiment page that sets the seed reports' times of the workloads it
re-runs beside ours: both devices named, published ÷ ours, published ÷ predicted, and the
cause of the first in one sentence (analysis/seed_prediction.py's `beside_ours`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from markupsafe import Markup

from generator.analysis.results import Result
from generator.analysis.seed_prediction import BesideOurs, Prediction, beside_ours
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
) -> tuple[list[BesideOurs], list[Prediction]]:
    """The seed times of the configurations a group measured: those beside our result, and
    those that cannot be (their device unknown, or measured here on the other kind only)."""
    pairs = beside_ours(predictions, results, ceilings, catalog)
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
            "ours": si(pair.ours.step.value, "s"),
            "over_ours": number(pair.ratio, 3),
            "over_predicted": number(pair.prediction.ratio, 3),
            "sentence": pair.sentence(),
        }
        for pair in pairs
    ]
    missing = [(p.row.id, p.row.configuration, _why_not(p)) for p in unmatched]
    return Markup(render("seed_beside.md.j2", rows=rows, missing=missing))
