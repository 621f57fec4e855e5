"""The headline that answers "which step is compute-bound, and how sure are we": per device,
how many measured configurations each bound holds for, and the one closest to its roof with
its fraction of the roof and interval, linked to its run page, which shows the same values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from generator.analysis.bound_words import LATENCY, SIDES
from generator.analysis.step_verdict import StepVerdict
from generator.pages.run_text import run_label


def bound_sentences(
    runs: pl.DataFrame, verdicts: Mapping[str, StepVerdict], runs_link: str
) -> list[str]:
    """`runs_link`: the relative link from the page to the run pages' folder (no slash)."""
    sentences = []
    ok = runs.filter(pl.col("status") == "ok").sort("run_id")
    seen: set[str] = set()
    by_device: dict[str, list[tuple[dict[str, Any], StepVerdict]]] = {}
    for row in ok.to_dicts():
        verdict = verdicts.get(row["run_id"])
        if verdict is None or row["workload"] in seen:
            continue  # one configuration once: its runs share the pooled verdict
        seen.add(row["workload"])
        by_device.setdefault(str(row["device_label"]), []).append((row, verdict))
    for device, items in sorted(by_device.items()):
        counts = {bound: sum(v.bound == bound for _, v in items) for bound in _order(items)}
        split = ", ".join(f"{n} {bound}-bound" for bound, n in counts.items())
        compute = [item for item in items if item[1].bound == "compute"]
        row, verdict = max(compute or items, key=lambda item: item[1].of_roof.value)
        closest = (
            "the compute-bound one closest to its roof" if compute else "the closest to its roof"
        )
        sentences.append(
            f"On {device}, of {len(items)} measured configurations {split}; {closest} is "
            f"[{run_label(row)}]({runs_link}/{row['run_id']}.md): {verdict.words()} "
            f"({verdict.basis()})."
        )
    return sentences


def _order(items: list[tuple[dict[str, Any], StepVerdict]]) -> list[str]:
    present = {v.bound for _, v in items}
    return [bound for bound in (*SIDES, LATENCY) if bound in present]
