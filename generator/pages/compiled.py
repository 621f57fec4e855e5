"""torch.compile against eager: per configuration both sides' medians with their intervals,
the speedup with its interval, the compile time (cold and from the cache), the steps that
pay it back, both points on the roofline, the phases where the compiled step still splits,
and the measured memory beside the analytic footprint (analysis.compile_compare)."""

from __future__ import annotations

from typing import Any

import polars as pl
from markupsafe import Markup

from generator.analysis.compile_compare import (
    CompileComparison,
    compile_comparisons,
    same_call_speedup,
)
from generator.catalog import device_label
from generator.formatting import number, seconds, si, slug
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render
from generator.pages.run_text import run_label

PATH = f"{GENERATED_DIR}/compile.md"
TITLE = "torch.compile against eager"
PHASES = ("forward", "loss", "backward", "optimizer_step")


def _median(row: dict[str, Any]) -> str:
    low, high = row.get("ci_low_s"), row.get("ci_high_s")
    text = seconds(row["median_s"])
    return f"{text} [{seconds(low)}, {seconds(high)}]" if low and high else text


def _latest_remeasure(report: Report) -> dict[str, tuple[str, Any]]:
    """Run id -> (when, the newest re-measurement of it): `remeasure` measures both sides
    again in one call, under the same conditions."""
    found: dict[str, tuple[str, Any]] = {}
    for call in report.calibrations:  # oldest first: later calls overwrite
        for item in call.configurations:
            found[item.run_id] = (call.started_at[:16].replace("T", " "), item.remeasured)
    return found


def _again(run_id: str, again: dict[str, tuple[str, Any]]) -> str:
    if run_id not in again:
        return "not re-measured"
    when, result = again[run_id]
    low, high = result.interval95_s
    return f"{seconds(result.median_s)} [{seconds(low)}, {seconds(high)}] ({when})"


def _same_call(eager_id: str, compiled_id: str, again: dict[str, tuple[str, Any]]) -> str:
    """eager over compiled, both re-measured in one call (analysis.compile_compare)."""
    if eager_id not in again or compiled_id not in again:
        return "n/a"
    (when_e, eager), (when_c, compiled) = again[eager_id], again[compiled_id]
    if when_e != when_c:
        return "not in one call"
    found = same_call_speedup(eager, compiled)
    if found is None:
        return f"{number(eager.median_s / compiled.median_s, 3)}×"
    value, low, high = found
    return f"{number(value, 3)}× [{number(low, 3)}, {number(high, 3)}]"


def _link(row: dict[str, Any], text: str) -> Markup:
    when = str(row.get("finished_at") or "")[:10]
    return Markup('<a href="../runs/{}/">{}</a><br><small>{}</small>').format(
        row["run_id"], text, when
    )


def _speedup(item: CompileComparison) -> str:
    interval = item.speedup_interval
    value = f"{number(item.speedup, 3)}×"
    return f"{value} [{number(interval[0], 3)}, {number(interval[1], 3)}]" if interval else value


def _compile_times(item: CompileComparison, report: Report) -> tuple[str, str]:
    record = report.records.get(str(item.compiled["run_id"]))
    compiled = (record.compile if record else None) or {}
    cold, warm = compiled.get("cold_compile_s"), compiled.get("warm_compile_s")
    return (seconds(cold) if cold is not None else "not recorded",
            seconds(warm) if warm is not None else "n/a")  # fmt: skip


def _bytes(value: float | None) -> str:
    return si(value, "B", 3) if value is not None else "n/a"


def _memory(row: dict[str, Any]) -> str:
    measured, analytic = row.get("memory_bytes"), row.get("memory_analytic_bytes")
    if measured is None:
        return f"not measured (analytic {_bytes(analytic)})" if analytic else "not measured"
    ratio = f", {number(measured / analytic, 3)}×" if analytic else ""
    return f"{_bytes(measured)} (analytic {_bytes(analytic)}{ratio})"


def _phases(item: CompileComparison) -> list[str]:
    cells = []
    for phase in PHASES:
        eager, compiled = item.eager.get(f"{phase}_s"), item.compiled.get(f"{phase}_s")
        if eager is None and compiled is None:
            continue
        cells.append(f"{phase}: {seconds(eager)} → {seconds(compiled)}")
    return cells


def _roof(report: Report, device: str) -> tuple[float, float] | None:
    for measured in report.ceilings:
        if device_label(measured.device_name) == device:
            gemm = measured.gemm_flops_per_s.get("fp32")
            if gemm and measured.triad_bytes_per_s:
                return gemm, measured.triad_bytes_per_s
    return None


def _charts(items: list[CompileComparison], report: Report, book: ChartBook) -> list[Any]:
    from generator.charts.comparisons import speedup_chart  # altair: import on use
    from generator.charts.compiled import compile_roofline_chart

    charts = []
    for device in sorted({str(i.compiled["device_label"]) for i in items}):
        mine = [i for i in items if i.compiled["device_label"] == device]
        rows = [{"label": run_label(i.eager).removesuffix(" " + device).strip(),
                 "phase": i.compiled["phase"], "speedup": i.speedup,
                 "low": (i.speedup_interval or (i.speedup, i.speedup))[0],
                 "high": (i.speedup_interval or (i.speedup, i.speedup))[1]}
                for i in mine]  # fmt: skip
        title = f"Speedup of torch.compile over eager on {device}"
        charts.append(book.embed(speedup_chart(rows, title, "speedup of compiled over eager "
                                               "(×, log scale)"), f"speedup-{slug(device)}"))  # fmt: skip
        points = [{"configuration": f"{i.compiled['model']} b{i.compiled['batch']} "
                                    f"{i.compiled['phase']}",
                   "mode": side["compile"], "ai": side["modelled_ai"],
                   "attained": side["modelled_attained"]}
                  for i in mine for side in (i.eager, i.compiled)]  # fmt: skip
        spec = compile_roofline_chart(points, _roof(report, device),
                                      f"Eager and compiled steps on {device}'s roofline")  # fmt: skip
        charts.append(book.embed(spec, f"roofline-{slug(device)}"))
    return charts


def _frame(items: list[CompileComparison], report: Report) -> pl.DataFrame:
    rows = []
    for item in items:
        interval = item.speedup_interval or (None, None)
        record = report.records.get(str(item.compiled["run_id"]))
        compiled = (record.compile if record else None) or {}
        rows.append({
            "device": item.compiled["device_label"], "model": item.compiled["model"],
            "dataset": item.compiled["dataset"], "batch": item.compiled["batch"],
            "phase": item.compiled["phase"], "precision": item.compiled["precision"],
            "mode": item.mode, "eager_run": item.eager["run_id"],
            "compiled_run": item.compiled["run_id"], "eager_median_s": item.eager["median_s"],
            "compiled_median_s": item.compiled["median_s"], "speedup": item.speedup,
            "speedup_low": interval[0], "speedup_high": interval[1],
            "cold_compile_s": compiled.get("cold_compile_s"),
            "warm_compile_s": compiled.get("warm_compile_s"),
            "payback_steps": item.payback_steps,
            "eager_memory_bytes": item.eager.get("memory_bytes"),
            "compiled_memory_bytes": item.compiled.get("memory_bytes"),
            "analytic_memory_bytes": item.compiled.get("memory_analytic_bytes"),
        })  # fmt: skip
    return pl.DataFrame(rows, infer_schema_length=None)


def compile_page(report: Report) -> Page:
    items = compile_comparisons(report.runs)
    again = _latest_remeasure(report)
    book = ChartBook(PATH)
    rows = []
    for item in items:
        cold, warm = _compile_times(item, report)
        payback = item.payback_steps
        rows.append({
            "configuration": run_label(item.eager) + f", against {item.mode}",
            "eager": _link(item.eager, _median(item.eager)),
            "compiled": _link(item.compiled, _median(item.compiled)),
            "speedup": _speedup(item), "verdict": item.verdict, "cold": cold, "warm": warm,
            "payback": f"{payback:,.0f}" if payback is not None else "never (no step saved)",
            "eager_memory": _memory(item.eager), "compiled_memory": _memory(item.compiled),
            "phases": "; ".join(_phases(item)) or "n/a",
            "eager_again": _again(str(item.eager["run_id"]), again),
            "compiled_again": _again(str(item.compiled["run_id"]), again),
            "same_call": _same_call(str(item.eager["run_id"]), str(item.compiled["run_id"]), again),
        })  # fmt: skip
    counts = {v: sum(1 for i in items if i.verdict == v) for v in ("faster", "slower")}
    markdown = render(
        "compile.md.j2",
        title_yaml=front_matter_title(TITLE),
        title=TITLE,
        rows=rows,
        total=len(items),
        faster=counts["faster"],
        slower=counts["slower"],
        charts=_charts(items, report, book) if items else [],
    )
    tables = {"compile": _frame(items, report)} if items else {}
    return Page(PATH, TITLE, markdown, book.specs, tables)


def _render(report: Report) -> list[Page]:
    return [compile_page(report)]


PAGE = Generated("Results", _render)
