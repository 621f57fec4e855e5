"""The "Complexity checks" page from measurements/complexity/*.csv (no torch needed)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from generator.complexity.conventions import ELEMENTWISE, OPTIMIZERS
from generator.pages import _ENV
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
    return _ENV.get_template("complexity.md.j2").render(
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
