"""The headline that answers "which step is compute-bound, and how sure are we": per device,
how many measured configurations each bound holds for, and the one closest to its roof with
its fraction of the roof and interval, linked to its run page, which shows the same values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from generator.analysis.bound_words import LATENCY, SIDES
from generator.analysis.launch import HOST_BOUND
from generator.analysis.step_verdict import StepVerdict
from generator.findings import Finding, specs
from generator.pages.run_text import run_label

ABOVE = "above the roof"
# findings that say the step beat the roof it is judged under: no flagship rests on them
ABOVE_CEILING = (specs.ABOVE_CEILING.id, specs.ABOVE_ROOF.id)
CLASSES = (*(f"{side}-bound" for side in SIDES), f"{LATENCY}-bound", HOST_BOUND, ABOVE)


def _class(verdict: StepVerdict) -> str:
    if verdict.host_bound:  # the host sets its time, wherever it sits on the roofline
        return HOST_BOUND
    return ABOVE if verdict.above_roof else verdict.bound_class


def bound_sentences(
    runs: pl.DataFrame,
    verdicts: Mapping[str, StepVerdict],
    runs_link: str,
    findings: Mapping[str, Sequence[Finding]] | None = None,
) -> list[str]:
    """`runs_link`: the relative link from the page to the run pages' folder (no slash);
    `findings`: run id -> its findings. The flagship (the compute-bound configuration closest
    to its roof) skips configurations one of whose runs has an above-ceiling finding, and
    says how many it skipped."""
    flagged = {
        run_id for run_id, found in (findings or {}).items()
        if any(f.id in ABOVE_CEILING for f in found)
    }  # fmt: skip
    seen: set[str] = set()
    by_device: dict[str, list[tuple[dict[str, Any], StepVerdict]]] = {}
    ok = runs.filter(pl.col("status") == "ok").sort("run_id")
    suspect = set(ok.filter(pl.col("run_id").is_in(list(flagged)))["workload"])
    for row in ok.to_dicts():
        verdict = verdicts.get(row["run_id"])
        if verdict is None or row["workload"] in seen:
            continue  # one configuration once: its runs share its headline verdict
        seen.add(row["workload"])
        by_device.setdefault(str(row["device_label"]), []).append((row, verdict))
    sentences = []
    for device, items in sorted(by_device.items()):
        counts = {c: sum(_class(v) == c for _, v in items) for c in CLASSES}
        split = ", ".join(f"{n} {c}" for c, n in counts.items() if n)
        bound = [item for item in items if _class(item[1]) == "compute-bound"]
        compute = [item for item in bound if item[0]["workload"] not in suspect]
        skipped = len(bound) - len(compute)
        aside = (
            f" ({skipped} compute-bound configuration{'s' if skipped > 1 else ''} with an "
            "above-ceiling finding left out: a measured ceiling they beat is no ceiling)"
            if skipped
            else ""
        )
        if not compute:
            sentences.append(
                f"On {device}, of {len(items)} measured configurations {split}{aside}."
            )
            continue
        row, verdict = max(compute, key=lambda item: item[1].of_roof.value)
        sentence = (
            f"On {device}, of {len(items)} measured configurations {split}; the compute-bound "
            f"one closest to its roof{aside} is [{run_label(row)}]({runs_link}/{row['run_id']}.md): "
            f"{verdict.words()} ({verdict.point} point: {verdict.basis()})."
        )
        if counts[ABOVE]:
            sentence += (
                f" The {counts[ABOVE]} above the roof beat a measured ceiling, which is then "
                "no ceiling for them."
            )
        sentences.append(sentence)
    return sentences
