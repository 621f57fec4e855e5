"""The Replication page: seed reports' published numbers beside ours, differences explained.

The method is stated once (how ours is derived, what each cause requires of the ratio, the
rate test); each seed then gets one compact table. Values are shown in SI units with the
helpers every other page uses; the download keeps each number as printed."""

from __future__ import annotations

from collections import Counter
from itertools import groupby

from generator.analysis.replication import (
    DATASHEET_TOLERANCE,
    IMPOSSIBLE,
    OTHER_FIGURES,
    Replication,
)
from generator.analysis.thresholds import ROOF_TOLERANCE
from generator.formatting import number, percent, si
from generator.pages.data import replication_frame
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import front_matter_title, render
from generator.records.literature import CAUSES, UNITS, LiteratureRow
from generator.records.references import Reference

# dimension -> the SI unit other pages print it in (formatting.si)
SI_UNIT = {"flop_rate": "FLOP/s", "bandwidth": "B/s", "flops": "FLOP", "bytes": "B", "time": "s"}
SOURCE_KIND = {
    "catalog": "datasheet (catalog)",
    "ridge": "datasheet (catalog)",
    "at_peak": "datasheet (catalog)",
    "analytic": "analytic count",
    "imported": "recomputed export",
    "measured": "measured here",
    "floor": "analytic work at the peak",
    "rate_from": "exact step at the report's time",
    "quotient": "the report's own rows",
    "gain": "the report's own rows",
    "mean": "the report's own rows",
    "clock": "datasheet clock",
    "cycles": "cycles at the boost clock",
    "recorded": "not derivable here",
}


def si_value(value: float | None, row: LiteratureRow) -> str:
    """A value of the row's quantity, in base units, as the other pages print it."""
    if value is None:
        return "n/a"
    dimension = UNITS[row.unit][1]
    if row.unit == "TOPS":
        return si(value, "OP/s")
    if dimension in SI_UNIT:
        return si(value, SI_UNIT[dimension])
    if dimension == "percent":
        return percent(value)
    if dimension == "intensity":
        return f"{number(value)} FLOP/byte"
    if dimension == "count":
        return si(value, "").strip()
    return number(value)


def requirement(cause: str) -> str:
    """What published ÷ ours must be for the cause to hold."""
    spec = CAUSES[cause]
    if cause == "macs_as_flops":
        return "the model's forward MACs ÷ its FLOPs (0.5 for pure MAC work), ± 2 %"
    if cause == "macs_x3":
        return "3 × the model's forward MACs ÷ our step FLOPs, ± 2 %"
    if cause == "incomplete_profile":
        return (
            "the step less the named missing part ÷ the step (analytic), ± 30 % for a "
            "hardware counter, ± 2 % for a profiler's formula"
        )
    if cause == "forward_macs_as_step":
        return "the model's forward MACs ÷ our step FLOPs, ± 5 %"
    if cause == "tensor_core_uncounted":
        return "at most half the same workload's ratio on a GPU without TF32"
    if cause == "clock_summed":
        return "÷ n kernels (× n for a time): a clock between half the boost and the boost"
    if cause == "precision_peak":
        return "the catalog's peak of the named precision ÷ its peak of the row's, ± 2 %"
    if cause == "aggregation_join":
        return "1 with the report's own join recomputed from the raw export, ± 0.1 %"
    if cause == "contradicts_own_rows":
        return "outside 1 ± (2 % and the printed digits): the report's own rows disagree"
    if cause == "below_peak":
        return "at most 1 for a rate, at least 1 for a time"
    if cause == "data_loading_in_epoch":
        return "at least 10 (the epoch's steps at the peak)"
    if cause in ("intensity_definition", "open_question", "recorded", "unexplained"):
        return "nothing is checked: the row's note gives the numbers or the next check"
    if cause == "other_datasheet":
        return (
            "the report's figure ÷ the catalog's (a recorded other figure, or the report's "
            f"own from another of its rows), ± {percent(100 * DATASHEET_TOLERANCE)}"
        )
    if spec.expected is None:
        return "nothing is checked"
    return f"{number(spec.expected, 7)}, ± {percent(100 * spec.tolerance)}"


def _method(results: list[Replication]) -> list[tuple[str, str, str, int, int]]:
    """Per cause used: label, requirement, explanation, rows, rows where it holds."""
    rows = Counter(name for r in results for name in _uses(r))
    holds = Counter(name for r in results if r.status == "consistent" for name in _uses(r))
    return [
        (CAUSES[c].label, requirement(c), CAUSES[c].explanation, rows[c], holds[c])
        for c in CAUSES
        if rows[c]
    ]


def _uses(r: Replication) -> list[str]:
    """The cause names of a row (several where causes combine)."""
    return [use.name for use in r.row.causes] or [r.row.cause.partition(":")[0]]


def cause_label(r: Replication) -> str:
    """The row's causes in words, with an argument where one is given."""
    words = []
    for use in r.row.causes or ():
        label = CAUSES[use.name].label
        words.append(f"{label} ({use.argument})" if use.argument else label)
    return " × ".join(words) or CAUSES[r.row.cause].label


def _row(r: Replication) -> dict[str, str]:
    derived_base = None if r.derived is None else r.derived * UNITS[r.row.unit][0]
    return {
        "id": r.row.id,
        "where": r.row.where,
        "quantity": r.row.quantity,
        "configuration": r.row.configuration,
        "published": si_value(r.row.published_base, r.row),
        "derived": si_value(derived_base, r.row),
        "kind": SOURCE_KIND.get(r.row.derive.kind, r.row.derive.kind),
        "source": r.source,
        "ratio": "n/a" if r.ratio is None else number(r.ratio),
        "cause": cause_label(r),
        "status": r.status,
        "explanation": r.explanation,
    }


def replication_page(results: list[Replication], references: dict[str, Reference]) -> Page:
    seeds = []
    for seed, items in groupby(sorted(results, key=lambda r: r.row.seed), lambda r: r.row.seed):
        reference = references.get(seed)
        seeds.append(
            {
                "seed": seed,
                "title": reference.short_title if reference else f"seed {seed}",
                "reference": reference.bibliographic if reference else "",
                "url": reference.url if reference else "",
                "rows": [_row(r) for r in items],
            }
        )
    markdown = render(
        "replication.md.j2",
        title=front_matter_title("Replication"),
        total=len(results),
        method=_method(results),
        roof_tolerance=percent(100 * (ROOF_TOLERANCE - 1)),
        figures=[
            (device, key, si(f.value, "B/s" if key == "bandwidth" else "FLOP/s"), f.what, f.source)
            for (device, key), f in sorted(OTHER_FIGURES.items())
        ],
        impossible=[r for r in results if r.status == IMPOSSIBLE],
        unexplained=[r for r in results if r.status in ("unexplained", "not consistent", "open")],
        seeds=seeds,
    )
    table = replication_frame(results)
    return Page(
        f"{GENERATED_DIR}/replication.md", "Replication", markdown, tables={"replication": table}
    )


def _render(report: Report) -> list[Page]:
    if not report.replications:
        return []
    return [replication_page(report.replications, report.references)]


PAGE = Generated(None, _render)
