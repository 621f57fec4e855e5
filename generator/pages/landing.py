"""The landing page, results first: what was found, on which device and how sure, as
sentences computed from the data with their intervals; every step on its roof; then the way
in by question and the commands that rebuild it all."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from generator.analysis.headline_points import headline_points
from generator.analysis.odd_ratios import PHASES, Odd
from generator.analysis.phases import StepParts, training_parts
from generator.analysis.points import HEADLINE_RULE
from generator.analysis.speedups import device_speedups, summary
from generator.analysis.verdict_needs import NOT_TESTABLE, Verdict
from generator.config import ExperimentsFile
from generator.formatting import number
from generator.pages.bound_sentences import bound_sentences
from generator.pages.calibration import answer
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import LANDING_PAGE
from generator.pages.render import ChartBook, render
from generator.records.versions import DEVELOPMENT, LATEST

PATH = LANDING_PAGE
VERDICT_ORDER = ("supported", "not supported", "mixed", "inconclusive", NOT_TESTABLE)


def verdict_summary(experiments: ExperimentsFile | None, verdicts: dict[str, Verdict]) -> str:
    """'Of 10 hypotheses with a stated expectation, 5 are supported, ...'; the groups that
    state none are counted, so no hypothesis disappears silently."""
    groups = experiments.groups if experiments else []
    outcomes = Counter(verdicts[g.id].outcome for g in groups if g.id in verdicts)
    judged = sum(n for outcome, n in outcomes.items() if outcome != "not evaluated")
    if not judged:
        return "No experiment group states an expectation the data could test yet."
    parts = ", ".join(f"{outcomes[o]} {o}" for o in VERDICT_ORDER if outcomes[o])
    unjudged = outcomes["not evaluated"]
    rest = (
        f"; {unjudged} more are reported without a verdict (no `expect`, or no run yet)"
        if unjudged
        else ""
    )
    untestable = [
        g.id for g in groups if g.id in verdicts and verdicts[g.id].outcome == NOT_TESTABLE
    ]
    which = (
        f" Not testable until re-measured in blocks (their results have no calibrated "
        f"interval): {', '.join(untestable)}; each verdict gives the command."
        if untestable
        else ""
    )
    inconclusive = [
        g.id for g in groups if g.id in verdicts and verdicts[g.id].outcome == "inconclusive"
    ]
    undecided = (
        f" Inconclusive on calibrated data (their intervals overlap): {', '.join(inconclusive)}."
        if inconclusive
        else ""
    )
    return f"Of {judged} hypotheses stated, {parts}{rest}.{undecided}{which}"


def verdict_rows(
    experiments: ExperimentsFile | None, verdicts: dict[str, Verdict]
) -> list[dict[str, str]]:
    """The judged hypotheses, supported first: group, claim, verdict and its evidence."""
    groups = experiments.groups if experiments else []
    judged = [(g, verdicts[g.id]) for g in groups if verdicts[g.id].outcome in VERDICT_ORDER]
    judged.sort(key=lambda item: VERDICT_ORDER.index(item[1].outcome))
    return [
        {"id": g.id, "title": g.title, "outcome": v.outcome, "reason": v.reason} for g, v in judged
    ]


def backward_sentences(
    parts: list[StepParts], devices: int = 2, odd: Sequence[Odd] = ()
) -> list[str]:
    """Backward against forward time over the fp32 training steps of each device (the two
    with most steps), next to the analytic FLOP ratio everyone assumes (about 2); where
    backward took less than forward, what decided it (analysis/odd_ratios.py)."""
    by_device: dict[str, list[StepParts]] = {}
    for item in parts:
        # fp32 only: autocast changes the kernels, not the method
        if item.time_ratio is not None and item.flop_ratio is not None and item.precision == "fp32":
            by_device.setdefault(item.device, []).append(item)
    ranked = sorted(by_device.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:devices]
    return [_backward_sentence(device, items, odd) for device, items in ranked]


def _backward_sentence(device: str, items: list[StepParts], odd: Sequence[Odd]) -> str:
    items = sorted(items, key=lambda item: item.time_ratio.value if item.time_ratio else 0.0)
    low, high = items[0].time_ratio, items[-1].time_ratio
    assert low is not None and high is not None  # filtered by backward_sentences
    flops = sorted(item.flop_ratio for item in items if item.flop_ratio is not None)
    span = (
        f"{low.times_text()} ({items[0].label}) to {high.times_text()} ({items[-1].label})"
        if len(items) > 1
        else f"{low.times_text()} ({items[0].label})"
    )
    ratio = (
        f"{number(flops[0], 3)} to {number(flops[-1], 3)}"
        if flops[0] != flops[-1]
        else number(flops[0], 3)
    )
    text = (
        f"On {device}, the backward pass takes {span} the forward time over {len(items)} fp32 "
        f"training step{'s' if len(items) != 1 else ''}, where the analytic FLOP ratio is "
        f"{ratio}."
    )
    workloads = {item.workload: item.label for item in items}
    under = [o for o in odd if o.kind == PHASES and o.expected.workload in workloads]
    for found in under[:2]:
        text += (
            f" Backward under forward for {workloads[found.expected.workload]}: "
            f"{found.cause.words}."
        )
    if len(under) > 2:
        text += f" {len(under) - 2} more on [step parts](measurements/step-parts.md)."
    return text


def headlines(report: Report) -> list[str]:
    """Three to five results, each with the device it holds on and its interval."""
    found = bound_sentences(
        report.runs, report.step_verdicts, "measurements/runs", report.run_findings
    )[:2]
    found.append(verdict_summary(report.experiments, report.verdicts))
    tables = device_speedups(report.results)
    if tables:
        found.append(summary(max(tables, key=lambda t: len(t.rows)), report.odd, brief=True))
    parts = training_parts(report.runs, report.steps, report.results)
    found += backward_sentences(parts, odd=report.odd)
    return found[:5]


def edition(citation: dict[str, Any]) -> str:
    """Which version of the report this is, of when and which commit, and where the newest
    one is: a reader who followed a citation sees that the numbers are those cited."""
    version, date = citation.get("report-version"), citation.get("report-date")
    commit = citation.get("report-commit")
    built = f"built on {date}" + (f" from commit `{commit[:12]}`" if commit else "")
    if version == DEVELOPMENT:
        return (
            f"**Development version**, {built}: rebuilt on every push to main, so its numbers "
            f"move. Cite a numbered version; the newest is [{LATEST}](../{LATEST}/)."
        )
    if version:
        return (
            f"**Version {version}** of this report, {built}. This address keeps these numbers "
            f"when newer runs land; the newest version is always at [{LATEST}](../{LATEST}/)."
        )
    site = citation.get("report-site")
    published = f" Published, citable versions: [{site}]({site})." if site else ""
    return f"**Unversioned local build**, {built}.{published}"


def landing_page(report: Report) -> Page:
    from generator.charts import overview_roofline  # altair: import on use

    book = ChartBook(PATH)
    shown = headline_points(report.results, report.points)
    points, roofs = shown.points, shown.roofs
    markdown = render(
        "landing.md.j2",
        edition=edition(report.citation),
        calibration=answer(report),
        headlines=headlines(report),
        headline_rule=HEADLINE_RULE,
        verdicts=verdict_rows(report.experiments, report.verdicts),
        chart=book.embed(
            overview_roofline(points, roofs, "Each configuration's headline point on its roof"),
            "every-step-roofline",
        ),
        point_count=len(points),
        configurations=len(report.results),
        devices=sorted({str(p["device"]) for p in points}),
        precisions=sorted({str(r["precision"]) for r in roofs}),
    )
    return Page(PATH, "Roofline Atlas", markdown, book.specs)


PAGE = Generated(None, lambda report: [landing_page(report)])
