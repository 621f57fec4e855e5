"""Seed throughputs against the roofline. An img/s row (seed 002's §5.1 table) is predicted as
its batch over the step's floor: the most samples a second the device's roof allows, as a
`floor:` key of an img/s row derives it on the Replication page (analysis/replication.py).

Published ÷ predicted is then of throughputs, at most 1 on a real run where a time's is at
least 1. Its cause is the time rules' (seed_prediction.cause_sentence) read on the step time the
throughput implies, batch ÷ img/s; a seed's spread and the chart take that step time too, so one
axis holds a seed's times and throughputs. No import of seed_prediction (it imports this)."""

from __future__ import annotations

from dataclasses import replace

from generator.formatting import number, si
from generator.records.literature import LiteratureRow
from generator.records.literature_workload import is_rate


def samples_per_second(batch: int, step_s: float) -> float:
    """Throughput of steps of `batch` samples each taking `step_s` seconds."""
    return batch / step_s


def as_step_time(row: LiteratureRow, batch: int) -> LiteratureRow:
    """An img/s row as the step time it implies (batch ÷ its throughput), in seconds."""
    return replace(row, published=batch / row.published_base, unit="s")


def published_over_predicted(
    row: LiteratureRow, batch: int | None, predicted_s: float
) -> float | None:
    """Of times for a time row; of throughputs (batch ÷ the floor) for an img/s row."""
    if not is_rate(row):
        return row.published_base / predicted_s
    if not batch:
        return None
    return row.published_base / samples_per_second(batch, predicted_s)


def step_ratio(row: LiteratureRow, ratio: float | None) -> float | None:
    """The published step time ÷ the floor: `ratio` itself for a time row, its inverse for an
    img/s row (whose step time is batch ÷ throughput)."""
    if ratio is None or not is_rate(row):
        return ratio
    return 1 / ratio


def rate_sentence(row: LiteratureRow, batch: int, predicted_s: float, step_sentence: str) -> str:
    """published ÷ predicted throughput, then the time rules' sentence on its step time."""
    predicted = samples_per_second(batch, predicted_s)
    step = as_step_time(row, batch).published_base
    return (
        f"Published ÷ predicted throughput = {number(row.published_base / predicted, 3)} "
        f"({number(row.published_base)} img/s against batch {batch} ÷ the "
        f"{si(predicted_s, 's')} floor = {number(predicted)} img/s); as a step time "
        f"({si(step, 's')} per batch), {step_sentence[:1].lower()}{step_sentence[1:]}"
    )
