"""Does the roofline predict the H200? Each configuration measured on both GPUs of a pair:
its class on the first, the predicted and the measured speedup of the second, a scatter of
one against the other with the diagonal, and a sentence computed from them
(analysis/device_prediction.py)."""

from __future__ import annotations

from typing import Any

import polars as pl
from markupsafe import Markup

from generator.analysis.device_prediction import (
    HOST,
    Prediction,
    misses,
    predictions,
    summary,
)
from generator.formatting import number, seconds, si
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render
from generator.pages.run_text import step_text

PATH = f"{GENERATED_DIR}/prediction.md"
TITLE = "H200 against H100: does the roofline predict it?"


def _times(value: float | None) -> str:
    return f"{number(value, 3)}×" if value is not None else "n/a"


def _link(item: Prediction, which: str) -> Markup:
    result = item.first if which == "first" else item.second
    return Markup('<a href="../runs/{}/">{}</a>').format(result.run_ids[0], step_text(result.step))


def _class(item: Prediction) -> str:
    if item.kind == HOST and item.first.launch is not None:
        return f"host-bound (launch), host/GPU {number(item.first.launch.ratio, 3)}"
    return f"{item.kind}-bound ({item.point} point)"


def _roofs(item: Prediction) -> str:
    if item.roofs is None:
        return "n/a"
    return "; ".join(
        f"{roof.label}: {si(roof.peak_flops_per_s, 'FLOP/s', 3)}, "
        f"{si(roof.bandwidth_bytes_per_s, 'B/s', 3)}"
        for roof in item.roofs
    )


def _hosts(item: Prediction) -> str:
    first, second = item.first.launch, item.second.launch
    if first is None or second is None:
        return "n/a"
    return f"{seconds(first.host_s)} / {seconds(second.host_s)} ({first.source})"


def _inside(item: Prediction) -> str:
    if item.inside is None:
        return "cannot be checked (no interval)" if item.predicted else "no prediction"
    return "inside" if item.inside else "outside"


def _rows(items: list[Prediction]) -> list[list[Any]]:
    return [
        [item.label, _class(item), _link(item, "first"), _link(item, "second"),
         _times(item.by_roofline), _times(item.by_host), _times(item.predicted),
         item.measured.times_text(), _inside(item)]
        for item in items
    ]  # fmt: skip


def _frame(items: list[Prediction]) -> pl.DataFrame:
    rows = [
        {"first": i.first.device_label, "second": i.second.device_label,
         "model": i.first.model, "dataset": i.first.dataset, "batch": i.first.batch,
         "phase": i.first.phase, "precision": i.first.precision, "compile": i.first.compile,
         "class": i.kind, "side": i.side, "point": i.point,
         "first_median_s": i.first.step.value, "first_interval": i.first.step.kind,
         "second_median_s": i.second.step.value, "second_interval": i.second.step.kind,
         "first_host_s": i.first.launch.host_s if i.first.launch else None,
         "second_host_s": i.second.launch.host_s if i.second.launch else None,
         "predicted_by_roofline": i.by_roofline, "predicted_by_host": i.by_host,
         "predicted": i.predicted, "measured": i.measured.value, "measured_low": i.measured.low,
         "measured_high": i.measured.high, "measured_interval": i.measured.kind,
         "inside": i.inside}
        for i in items
    ]  # fmt: skip
    return pl.DataFrame(rows, infer_schema_length=None)


def prediction_page(report: Report) -> Page:
    from generator.charts.prediction import prediction_scatter  # altair: import on use

    items = predictions(report.results, report.points, report.ceilings)
    book = ChartBook(PATH)
    chart = Markup("")
    if items:
        first, second = items[0].first.device_label, items[0].second.device_label
        spec = prediction_scatter(
            [{"label": i.label, "class": i.kind, "predicted": i.predicted, "roofs": i.by_roofline,
              "measured": i.measured.value, "low": i.measured.low, "high": i.measured.high}
             for i in items],
            f"{second} over {first}: predicted against measured speedup",
        )  # fmt: skip
        chart = book.embed(spec, "prediction") if spec else chart
    markdown = render(
        "prediction.md.j2",
        title_yaml=front_matter_title(TITLE),
        title=TITLE,
        summary=summary(items),
        misses=misses(items),
        rows=_rows(items),
        roofs=sorted({_roofs(i) for i in items if i.roofs}),
        hosts=[(i.label, _hosts(i)) for i in items if i.kind == HOST],
        chart=chart,
    )
    tables = {"prediction": _frame(items)} if items else {}
    return Page(PATH, TITLE, markdown, book.specs, tables)


def _render(report: Report) -> list[Page]:
    return [prediction_page(report)]


PAGE = Generated("Results", _render)
