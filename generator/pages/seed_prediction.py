"""The Seed times page: every time the seed reports publish, beside the roofline's prediction
of it on the device it ran on (analysis/seed_prediction.py), the spread of published ÷
predicted per seed with its chart, what a row lacks where it has no prediction, and every
claim of the seeds judged by arithmetic (literature/claims.toml, analysis/seed_claims.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl
from markupsafe import Markup

from generator.analysis.device_choice import LAUNCH_LATENCY_SOURCE, LAUNCH_LATENCY_US
from generator.analysis.seed_claims import JudgedClaim
from generator.analysis.seed_prediction import (
    NEAR_FLOOR,
    Prediction,
    SeedSpread,
    spread_by_seed,
)
from generator.analysis.seed_rates import samples_per_second, step_ratio
from generator.formatting import number, si
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render
from generator.records.literature_workload import is_rate

PATH = f"{GENERATED_DIR}/seed-prediction.md"
TITLE = "Seed times against the roofline"


def _rate(p: Prediction) -> float | None:
    """An img/s row's predicted throughput (batch ÷ its floor); None for a time row."""
    if not is_rate(p.row) or not p.predicted_s or not p.workload.batch:
        return None
    return samples_per_second(p.workload.batch, p.predicted_s)


def _published_and_predicted(p: Prediction) -> tuple[str, str]:
    if not is_rate(p.row):
        return si(p.row.published_base, "s"), si(p.predicted_s, "s") if p.predicted_s else "n/a"
    rate = _rate(p)
    predicted = f"{number(rate)} img/s" if rate else "n/a"  # batch ÷ floor: in the sentence
    return f"{number(p.row.published_base)} img/s", predicted


def _row(p: Prediction) -> dict[str, str]:
    published, predicted = _published_and_predicted(p)
    return {
        "id": p.row.id,
        "where": p.row.where,
        "configuration": p.row.configuration,
        "quantity": p.row.quantity,
        "device": p.device_name,
        "published": published,
        "predicted": predicted,
        "bound": p.bound,
        "roof": p.under.label if p.under else "",
        "counts": (
            f"{si(p.counts.flops, 'FLOP')}, {si(p.counts.bytes, 'B')} ({p.counts.source})"
            if p.counts
            else ""
        ),
        "kernels": f"{number(p.kernels.per_step)} kernels, {p.kernels.how}" if p.kernels else "",
        "ratio": number(p.ratio, 3) if p.ratio else "n/a",
        "sentence": p.sentence,
        "missing": "; ".join(p.missing),
    }


def prediction_frame(predictions: Sequence[Prediction]) -> pl.DataFrame:
    """One row per published time or throughput: the download keeps base units (seconds,
    FLOP, bytes; an img/s row's published and predicted img/s beside its floor in seconds)."""
    rows = [
        {
            "id": p.row.id, "seed": p.row.seed, "where": p.row.where,
            "configuration": p.row.configuration, "device": p.device_name,
            "model": p.workload.model, "dataset": p.workload.dataset, "batch": p.workload.batch,
            "phase": p.workload.phase, "precision": p.workload.precision,
            "published_s": None if is_rate(p.row) else p.row.published_base,
            "published_img_s": p.row.published_base if is_rate(p.row) else None,
            "predicted_s": p.predicted_s, "predicted_img_s": _rate(p),
            "bound": p.bound or None, "roof": p.under.label if p.under else None,
            "flops": p.counts.flops if p.counts else None,
            "bytes": p.counts.bytes if p.counts else None,
            "kernels": p.kernels.per_step if p.kernels else None,
            "published_over_predicted": p.ratio, "cause": p.sentence or None,
            "missing": "; ".join(p.missing) or None,
        }
        for p in predictions
    ]  # fmt: skip
    return pl.DataFrame(rows, infer_schema_length=None)


def _chart_rows(predictions: Sequence[Prediction]) -> list[dict[str, Any]]:
    """The chart's points, each seed's spread a little apart vertically (in reading order); an
    img/s row at its step time ÷ its floor, so that one axis holds times and throughputs."""
    rows, seen = [], dict[str, int]()
    for p in predictions:
        ratio = step_ratio(p.row, p.ratio)
        if ratio is None:
            continue
        index = seen.get(p.row.seed, 0)
        seen[p.row.seed] = index + 1
        rows.append(
            {"id": p.row.id, "seed": p.row.seed, "device": p.device_name, "ratio": ratio,
             "bound": p.bound, "jitter": ((index % 5) - 2) / 3}
        )  # fmt: skip
    return rows


def claims_by_seed(judged: Sequence[JudgedClaim]) -> list[dict[str, Any]]:
    """The judged claims grouped per seed, in file order within each."""
    return [
        {
            "seed": seed,
            "claims": [
                {
                    "id": j.claim.id,
                    "where": j.claim.where,
                    "claim": j.claim.claim,
                    "outcome": j.outcome,
                    "checks": [{"outcome": c.outcome, "sentence": c.sentence} for c in j.checks],
                    "note": j.claim.note,
                }
                for j in judged
                if j.claim.seed == seed
            ],
        }
        for seed in sorted({j.claim.seed for j in judged})
    ]


def _spread(s: SeedSpread) -> dict[str, Any]:
    return {
        "seed": s.seed,
        "predicted": s.predicted,
        "missing": s.missing,
        "median": number(s.median, 3),
        "low": number(s.low, 3),
        "high": number(s.high, 3),
        "spread": number(s.spread, 3),
    }


def seed_prediction_page(report: Report) -> Page:
    from generator.charts.seed_prediction import seed_ratio_chart  # altair: import on use

    predictions = list(report.seed_predictions)
    book = ChartBook(PATH)
    chart = Markup("")
    spec = seed_ratio_chart(_chart_rows(predictions), "Published ÷ predicted, per seed report")
    if spec:
        chart = book.embed(spec, "seed-ratios")
    spreads = spread_by_seed(predictions)
    seeds = [
        {"seed": seed, "rows": [_row(p) for p in predictions if p.row.seed == seed]}
        for seed in sorted({p.row.seed for p in predictions})
    ]
    markdown = render(
        "seed_prediction.md.j2",
        title_yaml=front_matter_title(TITLE),
        title=TITLE,
        total=len(predictions),
        rates=sum(is_rate(p.row) for p in predictions),
        predicted=sum(p.ratio is not None for p in predictions),
        spreads=[_spread(s) for s in spreads],
        near=number(NEAR_FLOOR),
        launch_us=LAUNCH_LATENCY_US,
        launch_source=LAUNCH_LATENCY_SOURCE,
        chart=chart,
        seeds=seeds,
        claims=claims_by_seed(report.seed_claims),
    )
    tables = {"seed-prediction": prediction_frame(predictions)} if predictions else {}
    return Page(PATH, TITLE, markdown, book.specs, tables)


def _render(report: Report) -> list[Page]:
    if not report.seed_predictions:
        return []
    return [seed_prediction_page(report)]


PAGE = Generated("Results", _render)
