"""The "Complexity checks" page from measurements/complexity/*.csv (no torch needed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl
from markupsafe import Markup

from generator.analysis.layer_families import (
    FAMILY_MODELS,
    FamilyLatency,
    family_latency,
    family_table,
)
from generator.analysis.thresholds import MEMORY_MISMATCH_FACTOR
from generator.analysis.views import TraceView
from generator.catalog import device_label
from generator.complexity.conventions import ELEMENTWISE, OPTIMIZERS
from generator.complexity.formula_text import LAYER_RULES, STEP_FORMULA, STEP_SEED_000
from generator.formatting import number, si
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import ChartBook, render
from generator.pages.run_resources import memory_rows
from generator.records.complexity_tables import ComplexityTables


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def measured_families(
    traces: Sequence[TraceView], runs: pl.DataFrame
) -> dict[str, list[FamilyLatency]]:
    """FAMILY_MODELS' profiled runs on ImageNet-shaped input (seed 003's) with their layer
    times by family: model -> one per device, phase and batch (its first run's)."""
    config = {row["run_id"]: row for row in runs.to_dicts()}
    found: dict[str, list[tuple[tuple[str, str, int], FamilyLatency]]] = {}
    for trace in sorted(traces, key=lambda t: t.slug):
        row = config.get(trace.slug.removeprefix("run-"))
        if trace.kind != "run" or trace.layers is None or row is None:
            continue
        if row["model"] not in FAMILY_MODELS or row["dataset"] != "imagenet":
            continue
        device = device_label(str(row.get("device_label") or row.get("device_name") or ""))
        label = f"{device}, {row['phase']}, batch {row['batch']}"
        latency = family_latency(label, trace.layers)
        if latency is not None:
            key = (device, str(row["phase"]), int(row["batch"]))
            found.setdefault(row["model"], []).append((key, latency))
    out = {}
    for model, items in sorted(found.items()):
        first: dict[tuple[str, str, int], FamilyLatency] = {}
        for key, latency in items:
            first.setdefault(key, latency)
        out[model] = [first[key] for key in sorted(first)]
    return out


def seed_footprint_rows(frame: pl.DataFrame | None) -> list[list[str]]:
    """Seed 003's Figure 2 per model and batch (seed_footprint.csv): forward FLOPs, the
    footprint's parts, its intensity and ours beside it."""
    if frame is None:
        return []
    return [
        [
            r["model"],
            str(r["batch"]),
            si(r["forward_flops"], "FLOP"),
            si(r["parameter_bytes"], "B"),
            si(r["input_bytes"], "B"),
            si(r["activation_bytes"], "B"),
            si(r["footprint_bytes"], "B"),
            number(r["footprint_intensity"], 3),
            number(r["min_traffic_intensity"], 3),
        ]
        for r in frame.to_dicts()
    ]


def footprint_over_traffic(frame: pl.DataFrame | None) -> str:
    """The range of seed 003's intensity over ours across the table's rows, in words."""
    if frame is None or frame.is_empty():
        return "n/a"
    ratio = frame["footprint_intensity"] / frame["min_traffic_intensity"]
    return f"{number(ratio.min(), 3)} to {number(ratio.max(), 3)}"  # type: ignore[arg-type]


def complexity_page(
    complexity: ComplexityTables,
    runs: pl.DataFrame | None = None,
    measured: Mapping[str, Sequence[FamilyLatency]] | None = None,
) -> Page | None:
    tables, meta = complexity.frames, complexity.meta
    if meta is None or not tables:
        return None
    path = f"{GENERATED_DIR}/complexity.md"
    book = ChartBook(path)
    published = [
        [
            r["model"],
            f"{r['params']:,}",
            f"{r['published_params']:,}",
            f"{r['forward_gmacs']:.4f}",
            f"{r['published_gmacs']:.3f}",
            f"{r['gmacs_error_pct']:+.3f} %",
            _ratio(r["backward_over_forward_macs"]),
            _ratio(r["flop_counter_ratio"]),
            _ratio(r["flop_counter_ratio_corrected"]),
        ]
        for r in tables["published.csv"].to_dicts()
    ]
    shortcuts = []
    for r in tables["shortcuts.csv"].to_dicts():
        if r["status"] != "ok":
            shortcuts.append([r["model"], r["input"], f"rejected: {r['reason']}", "", "", "", ""])
            continue
        shortcuts.append(
            [
                r["model"],
                r["input"],
                si(r["forward_flops"], "FLOP"),
                si(r["train_flops"], "FLOP"),
                _ratio(r["rule_x3_ratio"]),
                _ratio(r["scaled_ratio"]),
                _ratio(r["macs_as_flops_ratio"]),
            ]
        )
    probes = [
        [r["case"], f"{r['flop_counter']:,}", f"{r['exact']:,}"]
        for r in tables["flop_counter_probes.csv"].to_dicts()
    ]
    conventions = [
        [
            name,
            number(rule.forward),
            number(rule.forward_eval) if rule.forward_eval is not None else "same",
            number(rule.backward_input),
            number(rule.backward_weight),
            rule.per,
            rule.basis,
        ]
        for name, rule in ELEMENTWISE.items()
    ]
    optimizers = [
        [name, str(cost.flops_per_param), str(cost.accesses_per_param), cost.basis]
        for name, cost in OPTIMIZERS.items()
    ]
    from generator.charts import breakdown_chart, model_bars, model_intensity  # altair

    models = tables.get("models.csv")
    model_rows: list[list[str]] = []
    charts: list[Markup] = []
    if models is not None:
        single = models.filter(pl.col("batch") == 1).to_dicts()
        model_rows = [
            [
                r["model"],
                r["dataset"],
                f"{r['params']:,}",
                si(r["forward_flops"], "FLOP"),
                si(r["step_flops"], "FLOP"),
                si(r["activation_bytes"], "B"),
                *(
                    number(v)
                    for v in models.filter(pl.col("model") == r["model"])
                    .sort("batch")["arithmetic_intensity"]
                    .to_list()
                ),
            ]
            for r in single
        ]
        charts = [
            book.embed(
                model_bars(single, "forward_flops", "Forward FLOPs per sample", "FLOP"),
                "models-flops",
            ),
            book.embed(model_bars(single, "params", "Parameters", "parameters"), "models-params"),
            book.embed(
                model_bars(
                    single, "activation_bytes", "Saved activations per sample (fp32)", "bytes"
                ),
                "models-activations",
            ),
            book.embed(model_intensity(models.to_dicts()), "models-ai"),
        ]
    layers = tables.get("layers.csv")
    breakdowns: list[tuple[str, Markup, list[list[str]]]] = []
    if layers is not None:
        for model in layers["model"].unique(maintain_order=True).to_list():
            frame = layers.filter(pl.col("model") == model)
            families = frame.group_by("family", maintain_order=True).agg(
                pl.col("forward_flops", "backward_flops", "activation_bytes", "params").sum()
            )
            measures = {
                "forward FLOPs": "forward_flops",
                "backward FLOPs": "backward_flops",
                "saved activations": "activation_bytes",
                "parameters": "params",
            }
            chart_rows = [
                {"measure": label, "family": r["family"], "value": float(r[column])}
                for label, column in measures.items()
                for r in families.to_dicts()
            ]
            totals = {column: families[column].sum() for column in measures.values()}
            table = [
                [r["family"]]
                + [
                    f"{100 * r[column] / totals[column]:.1f} %" if totals[column] else "n/a"
                    for column in measures.values()
                ]
                for r in families.sort("forward_flops", descending=True).to_dicts()
            ]
            spec = breakdown_chart(
                chart_rows, f"{model}: share per layer family (224×224, batch 1)"
            )
            breakdowns.append((model, book.embed(spec, f"breakdown-{model}"), table))
    memory, unmeasured = memory_rows(runs) if runs is not None else ([], {})
    markdown = render(
        "complexity.md.j2",
        model_rows=model_rows,
        model_charts=charts,
        batches=sorted(models["batch"].unique().to_list()) if models is not None else [],
        breakdowns=breakdowns,
        command=meta.command,
        torch=meta.torch,
        torchvision=meta.torchvision,
        generated_at=meta.generated_at,
        published=published,
        shortcuts=shortcuts,
        probes=probes,
        conventions=conventions,
        seed_footprint=seed_footprint_rows(tables.get("seed_footprint.csv")),
        footprint_over_traffic=footprint_over_traffic(tables.get("seed_footprint.csv")),
        layer_rules=LAYER_RULES,
        step_formula=STEP_FORMULA,
        step_seed=STEP_SEED_000,
        optimizers=optimizers,
        memory=memory,
        memory_unmeasured=unmeasured,
        memory_factor=MEMORY_MISMATCH_FACTOR,
        families=[
            (model, [run.label for run in items], family_table(items))
            for model, items in (measured or {}).items()
        ],
    )
    return Page(
        path,
        "Complexity",
        markdown,
        book.specs,
        {name.removesuffix(".csv"): frame for name, frame in tables.items()},
    )


def _render(report: Report) -> list[Page]:
    families = measured_families(report.traces, report.runs)
    page = complexity_page(report.complexity, report.runs, families)
    return [page] if page is not None else []


PAGE = Generated(None, _render)
