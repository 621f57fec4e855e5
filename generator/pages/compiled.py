"""torch.compile against eager: per configuration both sides' medians with their intervals,
the speedup with its interval, the compile time (cold and from the cache), the steps that
pay it back, both points on the roofline, the phases where the compiled step still splits,
and the measured memory beside the analytic footprint (analysis.compile_compare)."""

from __future__ import annotations

from typing import Any, Literal

import polars as pl
from markupsafe import Markup

from generator.analysis.compile_compare import CompileComparison, compile_comparisons
from generator.analysis.roofs import MEASURED, roof_for
from generator.formatting import number, seconds, si, slug
from generator.ingest.runs import RunRow
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, front_matter_title, render
from generator.pages.run_text import run_label, step_text

PATH = f"{GENERATED_DIR}/compile.md"
TITLE = "torch.compile against eager"
PhaseColumn = Literal["forward_s", "loss_s", "backward_s", "optimizer_step_s"]
PHASES: tuple[tuple[str, PhaseColumn], ...] = (
    ("forward", "forward_s"),
    ("loss", "loss_s"),
    ("backward", "backward_s"),
    ("optimizer_step", "optimizer_step_s"),
)


def _link(row: RunRow, text: str) -> Markup:
    when = str(row["finished_at"] or "")[:10]
    return Markup('<a href="../runs/{}/">{}</a><br><small>{}</small>').format(
        row["run_id"], text, when
    )


def _speedup(item: CompileComparison) -> str:
    return item.speedup.times_text()


def _compile_times(item: CompileComparison, report: Report) -> tuple[str, str]:
    record = report.records.get(item.compiled.run_ids[0])
    compiled = (record.compile if record else None) or {}
    cold, warm = compiled.get("cold_compile_s"), compiled.get("warm_compile_s")
    return (seconds(cold) if cold is not None else "not recorded",
            seconds(warm) if warm is not None else "n/a")  # fmt: skip


def _payback(item: CompileComparison) -> str:
    """Steps to pay the cold compile back, where compiling was shown faster."""
    if item.verdict != "faster":
        return "n/a: no speedup shown"
    payback = item.payback_steps
    return f"{payback:,.0f}" if payback is not None else "never (no step saved)"


def _bytes(value: float | None) -> str:
    return si(value, "B", 3) if value is not None else "n/a"


def _memory(row: RunRow) -> str:
    measured, analytic = row["memory_bytes"], row["memory_analytic_bytes"]
    if measured is None:
        return f"not measured (analytic {_bytes(analytic)})" if analytic else "not measured"
    ratio = f", {number(measured / analytic, 3)}×" if analytic else ""
    return f"{_bytes(measured)} (analytic {_bytes(analytic)}{ratio})"


def _phases(item: CompileComparison) -> list[str]:
    cells = []
    for phase, column in PHASES:
        eager, compiled = item.eager_row[column], item.compiled_row[column]
        if eager is None and compiled is None:
            continue
        cells.append(f"{phase}: {seconds(eager)} → {seconds(compiled)}")
    return cells


def _roof(report: Report, device: str) -> tuple[float, float] | None:
    """The device's fp32 measured roof, by the one roof rule (analysis/roofs.py)."""
    under = roof_for(device, "fp32", MEASURED, report.ceilings)
    return (under.peak_flops_per_s, under.bandwidth_bytes_per_s) if under else None


def _shown(item: CompileComparison) -> tuple[float, float]:
    """The speedup's interval as the chart draws it: none (a point alone) where the table
    says it is too uncertain to state, or where there is none."""
    speedup = item.speedup
    if speedup.low is None or speedup.high is None or speedup.too_wide:
        return speedup.value, speedup.value
    return speedup.low, speedup.high


def _charts(items: list[CompileComparison], report: Report, book: ChartBook) -> list[Any]:
    from generator.charts.comparisons import speedup_chart  # altair: import on use
    from generator.charts.compiled import compile_roofline_chart

    charts = []
    for device in sorted({i.compiled.device_label for i in items}):
        mine = [i for i in items if i.compiled.device_label == device]
        rows = [{"label": run_label(i.eager_row).removesuffix(" " + device).strip(),
                 "phase": i.compiled.phase, "speedup": i.speedup.value,
                 "low": _shown(i)[0], "high": _shown(i)[1]}
                for i in mine]  # fmt: skip
        title = f"Speedup of torch.compile over eager on {device}"
        charts.append(book.embed(speedup_chart(rows, title, "speedup of compiled over eager "
                                               "(×, log scale)"), f"speedup-{slug(device)}"))  # fmt: skip
        points = [{"configuration": f"{i.compiled.model} b{i.compiled.batch} {i.compiled.phase}",
                   "mode": side.compile, "ai": row["modelled_ai"],
                   "attained": side.attained.value if side.attained else None}
                  for i in mine
                  for side, row in ((i.eager, i.eager_row), (i.compiled, i.compiled_row))]  # fmt: skip
        spec = compile_roofline_chart(points, _roof(report, device),
                                      f"Eager and compiled steps on {device}'s roofline", device)  # fmt: skip
        charts.append(book.embed(spec, f"roofline-{slug(device)}"))
    return charts


def _frame(items: list[CompileComparison], report: Report) -> pl.DataFrame:
    rows = []
    for item in items:
        record = report.records.get(item.compiled.run_ids[0])
        compiled = (record.compile if record else None) or {}
        eager, fast, speedup = item.eager, item.compiled, item.speedup
        rows.append({
            "device": fast.device_label, "model": fast.model, "dataset": fast.dataset,
            "batch": fast.batch, "phase": fast.phase, "precision": fast.precision,
            "mode": item.mode, "eager_runs": ", ".join(eager.run_ids),
            "compiled_runs": ", ".join(fast.run_ids), "eager_median_s": eager.step.value,
            "eager_interval": eager.step.kind, "compiled_median_s": fast.step.value,
            "compiled_interval": fast.step.kind, "speedup": speedup.value,
            "speedup_low": speedup.low, "speedup_high": speedup.high,
            "speedup_interval": speedup.kind,
            "cold_compile_s": compiled.get("cold_compile_s"),
            "warm_compile_s": compiled.get("warm_compile_s"),
            "payback_steps": item.payback_steps,
            "eager_memory_bytes": item.eager_row.get("memory_bytes"),
            "compiled_memory_bytes": item.compiled_row.get("memory_bytes"),
            "analytic_memory_bytes": item.compiled_row.get("memory_analytic_bytes"),
        })  # fmt: skip
    return pl.DataFrame(rows, infer_schema_length=None)


def compile_page(report: Report) -> Page:
    items = compile_comparisons(report.results, report.runs)
    book = ChartBook(PATH)
    rows = []
    for item in items:
        cold, warm = _compile_times(item, report)
        rows.append({
            "configuration": run_label(item.eager_row) + f", against {item.mode}",
            "eager": _link(item.eager_row, step_text(item.eager.step)),
            "compiled": _link(item.compiled_row, step_text(item.compiled.step)),
            "speedup": _speedup(item), "verdict": item.verdict, "cold": cold, "warm": warm,
            "payback": _payback(item),
            "eager_memory": _memory(item.eager_row),
            "compiled_memory": _memory(item.compiled_row),
            "phases": "; ".join(_phases(item)) or "n/a",
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
