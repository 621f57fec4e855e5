"""The "Complexity checks" page from measurements/complexity/*.csv (no torch needed)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from markupsafe import Markup

from generator.complexity.conventions import ELEMENTWISE, OPTIMIZERS
from generator.pages import _ENV, embed_chart
from generator.units_format import number, si


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def complexity_page(tables: dict[str, pl.DataFrame], folder: Path) -> str | None:
    if not tables:
        return None
    meta = json.loads((folder / "tables.json").read_text())
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
            embed_chart(
                model_bars(single, "forward_flops", "Forward FLOPs per sample", "FLOP"),
                "models-flops",
            ),
            embed_chart(model_bars(single, "params", "Parameters", "parameters"), "models-params"),
            embed_chart(
                model_bars(
                    single, "activation_bytes", "Saved activations per sample (fp32)", "bytes"
                ),
                "models-activations",
            ),
            embed_chart(model_intensity(models.to_dicts()), "models-ai"),
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
            breakdowns.append((model, embed_chart(spec, f"breakdown-{model}"), table))
    return _ENV.get_template("complexity.md.j2").render(
        model_rows=model_rows,
        model_charts=charts,
        batches=sorted(models["batch"].unique().to_list()) if models is not None else [],
        breakdowns=breakdowns,
        command=meta["command"],
        torch=meta["torch"],
        torchvision=meta["torchvision"],
        generated_at=meta["generated_at"],
        published=published,
        shortcuts=shortcuts,
        probes=probes,
        conventions=conventions,
        optimizers=optimizers,
    )
