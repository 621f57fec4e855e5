"""What the host decided of a comparison: a precision, a batch or a device compared between
steps that are host-bound (launch) compares the host's launch time, not the GPU's work. The
hypotheses' verdicts say so (analysis/verdicts.py), from each result's launch time."""

from __future__ import annotations

from collections.abc import Sequence

from generator.analysis.launch import HOST_BOUND, LaunchTime
from generator.analysis.results import Result
from generator.analysis.verdict_needs import RESULT, ResultRow
from generator.formatting import number


def host_note(rows: Sequence[ResultRow]) -> str:
    """`host_clause` of the results of a group's rows (`group_rows` puts them under RESULT)."""
    return host_clause([result for row in rows if (result := row[RESULT]) is not None])


def host_clause(results: Sequence[Result]) -> str:
    """What the host decided of a comparison of `results`: empty where no GPU step among
    them is host-bound (launch); else which are, with their host/GPU ratios and source, and,
    where all of them are, that the comparison measured the host rather than the GPU. Starts
    with a space: it follows a sentence."""
    launches: dict[str, LaunchTime] = {}
    unknown: set[str] = set()
    for result in results:
        if result.device == "cpu":
            continue
        if result.launch is None:
            unknown.add(result.workload)
        else:
            launches.setdefault(result.workload, result.launch)
    bound = [t for t in launches.values() if t.host_bound]
    if not bound:
        return ""
    ratios = sorted(t.ratio for t in bound)
    spread = (
        number(ratios[0], 3)
        if len(ratios) == 1
        else f"{number(ratios[0], 3)} to {number(ratios[-1], 3)}"
    )
    sources = ", ".join(sorted({t.source for t in bound}))
    if len(bound) == len(launches) and not unknown:
        return (
            f" Every GPU step compared is {HOST_BOUND} (host/GPU {spread}, {sources}): the "
            "host, not the GPU, decided this comparison."
        )
    return (
        f" {len(bound)} of the {len(launches) + len(unknown)} GPU steps compared are "
        f"{HOST_BOUND} (host/GPU {spread}, {sources}): the host set their time, not the GPU."
    )
