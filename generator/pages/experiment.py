"""One page per experiment group: setup, hypothesis, verdict, results, charts, observations."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl
from markupsafe import Markup, escape

from generator.analysis.observations import observations
from generator.analysis.odd_ratios import Odd
from generator.analysis.phases import training_parts
from generator.analysis.result_columns import runs_download
from generator.analysis.results import Result
from generator.analysis.roofs import MEASURED, ceiling_of, roof_for
from generator.analysis.step_verdict import StepVerdict
from generator.analysis.verdict_needs import (
    DEVICE,
    NOT_TESTABLE,
    RESULT,
    MatrixKey,
    ResultRow,
    Verdict,
    metric_interval,
)
from generator.analysis.verdicts import by_device, group_rows, key_name, sweep_key, swept
from generator.catalog import device_label
from generator.config import ExperimentsFile, Group
from generator.formatting import number, seconds
from generator.ingest.runs import in_group
from generator.memo import remembered
from generator.pages import run_lists
from generator.pages.experiment_setup import setup
from generator.pages.finding_html import admonition
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render
from generator.pages.run_text import cv_text, run_label
from generator.pages.seed_beside import for_group, seed_section
from generator.pages.seed_utilisation import utilisation_section
from generator.records.ceilings import MeasuredCeilings

# Charts beside throughput: metric -> axis title (SM % and DRAM % need ncu counters).
SIDE_BY_SIDE = {
    "step_time": "median step time (s) with 95 % CI",
    "modelled_flops_per_s": "modelled FLOP/s with 95 % CI",
    "modelled_ai": "modelled AI (FLOP/byte, analytic: exact)",
}
_KIND = {
    "supported": "success",
    "not supported": "failure",
    "inconclusive": "warning",
    "mixed": "question",
    NOT_TESTABLE: "warning",
}


def verdict_html(verdict: Verdict) -> Markup:
    return admonition(
        _KIND.get(verdict.outcome, "note"),
        "verdict",
        verdict.outcome,
        f"Verdict: {verdict.outcome}",
        [_code(verdict.reason)],
    )


def _code(text: str) -> Markup:
    """The reason, escaped, its `commands` as code (the box is HTML, not Markdown)."""
    parts = str(escape(text)).split("`")
    return Markup("".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts)))


def _measured(
    rows: Sequence[ResultRow], ceilings: list[MeasuredCeilings]
) -> dict[str, MeasuredCeilings]:
    """The ceilings measured on each of the group's devices, by the devices' labels."""
    devices = {row[DEVICE] for row in rows}
    return {
        label: measured
        for measured in ceilings
        if (label := device_label(measured.device_name)) in devices
    }


def _roofs(
    measured: dict[str, MeasuredCeilings], rows: Sequence[ResultRow]
) -> list[dict[str, Any]]:
    """A measured roof per device and precision the group's runs use, by the one roof rule
    (analysis/roofs.py): the same numbers as the run pages'."""
    used = dict.fromkeys((str(row[DEVICE]), str(row["precision"])) for row in rows)
    roofs = []
    for device, precision in used:
        ceilings = measured.get(device)
        under = roof_for(device, precision, MEASURED, [ceilings]) if ceilings else None
        if under is not None:
            roofs.append({"device": device, "precision": run_precision_label(precision),
                          "peak": under.peak_flops_per_s,
                          "bandwidth": under.bandwidth_bytes_per_s})  # fmt: skip
    return roofs


def run_precision_label(precision: str) -> str:
    """How a chart names a run's precision: "fp32" -> "FP32", "bf16-amp" -> "BF16 AMP"."""
    return precision.replace("-", " ").upper()


def _sentences(
    rows: Sequence[ResultRow],
    keys: list[MatrixKey],
    key: MatrixKey | None,
    gemm: Callable[[str], tuple[str, float] | None] | None,
    label: Callable[[ResultRow], str],
) -> list[str]:
    """Sentences from the data; when several variables vary together, along their combined
    label (e.g. "resnet18 / cifar10")."""
    if not rows or not keys:
        return []
    if key is not None:
        return observations(rows, key, gemm)
    return observations(rows, None, gemm, label)


def _observations(
    rows: Sequence[ResultRow],
    keys: list[MatrixKey],
    key: MatrixKey | None,
    measured: dict[str, MeasuredCeilings],
    label: Callable[[ResultRow], str],
) -> list[str]:
    """Along each device's own series: one device's batch 32 and another's batch 1024 are
    no trend."""
    parts = by_device(rows)
    ceiling = ceiling_of(list(measured.values()))

    def gemm(device: str) -> Callable[[str], tuple[str, float] | None]:
        """The device's measured GEMM ceiling of a run's own precision."""
        return lambda precision: ceiling(device, precision)

    if key == DEVICE or len(parts) <= 1:  # the devices are the sweep, or there is one
        one = gemm(next(iter(parts))) if len(parts) == 1 else None
        return _sentences(rows, keys, key, one, label)
    sentences: list[str] = []
    for device, part in parts.items():
        part_keys = swept(part)
        found = _sentences(part, part_keys, sweep_key(part_keys), gemm(device), label)
        sentences.extend(f"On {device}: {sentence}" for sentence in found)
    return sentences


def _has_a_line(rows: list[dict[str, Any]]) -> bool:
    """Whether some series (device) has two or more x values: a series of one point each is
    the results table again, not a chart (issue 18: group B drew four charts of lone dots)."""
    from generator.charts.scales import worth_drawing  # altair: import on use

    series = {str(row["series"]) for row in rows}
    return any(worth_drawing([r for r in rows if str(r["series"]) == s], "x") for s in series)


def _runs_per_workload(rows: Sequence[ResultRow]) -> dict[str, list[str]]:
    """Each configuration's run ids, in the rows' order."""
    found: dict[str, list[str]] = {}
    for row in rows:
        found.setdefault(row["workload"], []).append(row["run_id"])
    return found


def _run_link(row: ResultRow, group_id: str, runs: int) -> Markup:
    """The run's page; for a configuration that stands for `runs` runs, their list too."""
    html = Markup('<a href="../../runs/{}/">{}</a>').format(row["run_id"], run_label(row))
    if runs > 1:
        html += Markup(' ({} runs, <a href="../../run-lists/{}-1/">all listed</a>)').format(
            runs, group_id
        )
    return html


def _host_bound(row: ResultRow) -> bool:
    """The row's result is host-bound (launch): the roofline does not set its time."""
    result = row[RESULT]
    return result is not None and result.launch is not None and result.launch.host_bound


def _bound_cell(verdict: StepVerdict | None) -> str:
    """The step's verdict in a cell: "compute, 27.6 % [26.3, 28.7] of the roof"."""
    if verdict is None:
        return "n/a"
    cell = f"{verdict.bound}, {verdict.of_roof.percent_text()} of the roof ({verdict.point} point)"
    if verdict.launch is not None and verdict.host_bound:
        return f"{verdict.bound_class} (host/GPU {number(verdict.launch.ratio, 3)}); {cell}"
    return cell


def experiment_page(
    group: Group,
    experiments: ExperimentsFile,
    runs: pl.DataFrame,
    ceilings: list[MeasuredCeilings],
    verdict: Verdict,
    step_verdicts: Mapping[str, StepVerdict] | None = None,
    summary: bool | None = None,
    results: Mapping[str, Result] | None = None,
    odd: Sequence[Odd] = (),
    seeds: Markup | None = None,
) -> Page:
    """`summary`: one row per configuration (None: when `runs` are too many for one row
    each, run_lists.summarize; the report passes its total, as `runs` may be the group's).
    `seeds`: the section setting the seed reports' times of these configurations beside
    ours (pages/seed_beside.py)."""
    ordered, keys, key = group_rows(group, runs, results or {})
    rows = ordered
    counts = _runs_per_workload(ordered)
    if summary is None:
        summary = run_lists.summarize(runs.height)
    if summary:  # one row, point and sentence per configuration
        ordered = [r for r in ordered if counts[r["workload"]][0] == r["run_id"]]

    def label(row: ResultRow) -> str:
        return " / ".join(str(row[k]) for k in keys) if keys else row["model"]

    table = []
    sweep_rows = []
    metric_rows: dict[str, list[dict[str, Any]]] = {m: [] for m in SIDE_BY_SIDE}
    for row in ordered:
        for metric, unit in SIDE_BY_SIDE.items():
            interval = metric_interval(row, metric)
            if interval:
                metric_rows[metric].append(
                    {"x": row["batch"] if key == "batch" else label(row), "label": label(row),
                     "value": interval.value, "low": interval.low, "high": interval.high,
                     "unit": unit, "series": row[DEVICE]}
                )  # fmt: skip
        throughput = metric_interval(row, "throughput")
        result = row[RESULT]
        table.append(
            [
                label(row),
                _run_link(
                    row, group.id, len(counts[row["workload"]]) if rows is not ordered else 1
                ),
                result.step.text(seconds) if result else "n/a",
                cv_text(result, row["run_id"]),
                throughput.text(number) if throughput else "n/a",
                _bound_cell((step_verdicts or {}).get(row["run_id"])),
                number(row["modelled_ai"]),
            ]
        )
        if throughput:
            sweep_rows.append(
                {"x": row["batch"] if key == "batch" else label(row), "label": label(row),
                 "value": throughput.value, "low": throughput.low, "high": throughput.high,
                 "unit": "samples/s", "series": row[DEVICE]}
            )  # fmt: skip
    measured = _measured(rows, ceilings)
    from generator.charts import modelled_roofline_chart, sweep_chart  # altair: import on use
    from generator.charts.scales import unit_title

    swept_label = ", ".join(key_name(k) for k in keys) if keys else "model"
    path = f"{GENERATED_DIR}/experiments/{group.id}.md"
    book = ChartBook(path)
    throughput_chart, metric_charts = Markup(""), []
    if _has_a_line(sweep_rows):
        throughput_spec = sweep_chart(
            sweep_rows, swept_label, key == "batch", f"{group.id}: throughput with 95 % CI"
        )
        throughput_chart = book.embed(throughput_spec, f"throughput-{group.id}")
        metric_charts = [
            book.embed(
                sweep_chart(
                    metric_rows[metric],
                    swept_label,
                    key == "batch",
                    f"{group.id}: {unit_title(unit)}",
                ),
                f"{metric.replace('_', '-')}-{group.id}",
            )
            for metric, unit in SIDE_BY_SIDE.items()
            if _has_a_line(metric_rows[metric])
        ]
    roofline_spec = modelled_roofline_chart(
        [
            {
                "label": label(r),
                "ai": r["modelled_ai"],
                "attained": rate.value
                if (rate := metric_interval(r, "modelled_flops_per_s"))
                else None,
                "device": r[DEVICE],
                "precision": run_precision_label(str(r["precision"])),
                "host_bound": _host_bound(r),
            }
            for r in ordered
        ],
        _roofs(measured, ordered),
        f"{group.id}: modelled roofline points",
    )
    roofline_chart = book.embed(roofline_spec, f"roofline-{group.id}") if ordered else Markup("")
    markdown = render(
        "experiment.md.j2",
        group_id=group.id,
        title=group.title,
        title_yaml=front_matter_title(f"{group.id}: {group.title}"),
        hypothesis=group.hypothesis,
        setup=setup(group, experiments, rows),
        verdict_html=verdict_html(verdict),
        swept_label=swept_label,
        rows=table,
        single_points=not _has_a_line(sweep_rows),
        needs=", ".join(group.devices),
        throughput_chart=throughput_chart,
        metric_charts=metric_charts,
        roofline_chart=roofline_chart,
        observations=_observations(ordered, keys, key, measured, label)
        + [f"Against the expected direction: {o.sentence()}" for o in odd],
        seeds=seeds or Markup(""),
    )
    return Page(
        path,
        f"{group.id}: {group.title}",
        markdown,
        book.specs,
        {"runs": runs_download(runs.filter(in_group(group.id)), results or {})},
    )


def _render(report: Report) -> list[Page]:
    if report.experiments is None:
        return []
    summary = run_lists.summarize(report.runs.height)
    # each training step's phase times: a seed time of part of a step meets ours of that part
    parts = {p.workload: p for p in training_parts(report.runs, report.steps, report.results)}
    pages = []
    for group in report.experiments.groups:
        # Each page from its own group's runs and verdicts alone, so a run added to one group
        # leaves the other pages to the memo (generator/memo).
        runs = report.runs.filter(in_group(group.id))
        verdicts = {
            run_id: verdict
            for run_id in runs["run_id"]
            if (verdict := report.step_verdicts.get(run_id)) is not None
        }
        results = {
            workload: found
            for workload in runs["workload"]
            if (found := report.results.get(workload)) is not None
        }
        odd = tuple(
            o for o in report.odd
            if o.expected.workload in results and (o.other is None or o.other.workload in results)
        )  # fmt: skip
        seeds = seed_section(
            *for_group(report.seed_predictions, results, report.ceilings, report.catalog, parts)
        ) + utilisation_section(report.utilisation_beside, results, report.catalog)
        args = (group, report.experiments, runs, report.ceilings, report.verdicts[group.id])
        pages.append(
            remembered(
                "experiment_page", experiment_page, *args, verdicts, summary, results, odd, seeds
            )
        )
    return pages


PAGE = Generated("Experiments", _render)
