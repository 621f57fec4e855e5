"""The report at scale: build time against the number of runs, log-log, with the targets
and a line of linear growth to read "linear or better" against."""

from __future__ import annotations

from typing import TypedDict

import altair as alt

from generator.charts.scales import (
    DASHES,
    GUIDE_COLOUR,
    HUES,
    bottom_legend,
    finish,
    fit_title,
    inline,
    seconds_axis,
    si_axis,
)
from generator.charts.vega import VegaSpec
from generator.formatting import si
from generator.records.bench_results import ScalingEntry

FULL = "full build, from nothing"
ONE_MORE = "rebuild after one more run"
LINEAR = "linear growth from the smallest set"
SERIES = {FULL: (HUES["blue"], "circle"), ONE_MORE: (HUES["vermillion"], "square")}


class GuideRow(TypedDict):
    """A point of a dashed guide line: linear growth, or the rebuild's target share."""

    runs: int
    seconds: float
    guide: str


def _one_more_target(share: float) -> str:
    return f"target: {100 * share:.0f} % of the full build"


def _full_target(runs: int, seconds: float) -> str:
    return f"target: full build of {runs:,} runs under {si(seconds, 's')}"


def _guide_rows(entries: list[ScalingEntry], share: float) -> list[GuideRow]:
    first = entries[0]
    linear: list[GuideRow] = [
        {"runs": e["runs"], "seconds": first["full_s"] * e["runs"] / first["runs"], "guide": LINEAR}
        for e in entries
    ]
    target: list[GuideRow] = [
        {"runs": e["runs"], "seconds": share * e["full_s"], "guide": _one_more_target(share)}
        for e in entries
    ]
    return linear + target


def scaling_chart(
    entries: list[ScalingEntry], full_target: tuple[int, float], share: float
) -> VegaSpec:
    """entries: {"runs", "full_s", "one_more_run_s"}, by runs; `full_target`: (runs,
    seconds) the full build must stay under; `share`: of the full build, the rebuild's."""
    if len(entries) < 1:
        return {}
    points = [
        point
        for e in entries
        for point in (
            {"runs": e["runs"], "seconds": e["full_s"], "series": FULL},
            {"runs": e["runs"], "seconds": e["one_more_run_s"], "series": ONE_MORE},
        )
    ]
    x = alt.X("runs:Q", title="runs in the report", scale=alt.Scale(type="log"), axis=si_axis())
    y = alt.Y("seconds:Q", title="wall time", scale=alt.Scale(type="log"), axis=seconds_axis())
    names = list(SERIES)
    hues = alt.Scale(domain=names, range=[SERIES[n][0] for n in names])
    colour = alt.Color("series:N", scale=hues, legend=bottom_legend(names, "measured"))
    # the same legend on every layer: Vega merges colour and shape into one (a null legend
    # on one layer would hide it on all)
    shape = alt.Shape(
        "series:N",
        scale=alt.Scale(domain=names, range=[SERIES[n][1] for n in names]),
        legend=bottom_legend(names, "measured"),
    )
    line_colour = alt.Color("series:N", scale=hues, legend=bottom_legend(names, "measured"))
    tooltip = [
        alt.Tooltip("series:N"),
        alt.Tooltip("runs:Q", format=","),
        alt.Tooltip("seconds:Q", title="seconds", format=".3~s"),
    ]
    measured = alt.Chart(inline(points)).encode(x=x, y=y, tooltip=tooltip)
    dashes = {LINEAR: DASHES[2], _one_more_target(share): DASHES[1]}
    guides = list(dashes)
    guide = (
        alt.Chart(inline(_guide_rows(entries, share)))
        .mark_line(color=GUIDE_COLOUR, strokeWidth=1.2)
        .encode(
            x=x,
            y=y,
            strokeDash=alt.StrokeDash(
                "guide:N",
                scale=alt.Scale(domain=guides, range=[dashes[g] for g in guides]),
                legend=bottom_legend(guides, "guides"),
            ),
        )
    )
    full_label = _full_target(*full_target)
    target = (
        alt.Chart(inline([{"runs": full_target[0], "seconds": full_target[1], "what": full_label}]))
        .mark_point(shape="cross", size=160, color=GUIDE_COLOUR, strokeWidth=2)
        .encode(x=x, y=y, tooltip=[alt.Tooltip("what:N", title="target")])
    )
    label = target.mark_text(align="left", dx=9, dy=-9, fontSize=10, color=GUIDE_COLOUR).encode(
        text="what:N"
    )
    chart = alt.layer(
        guide,
        measured.mark_line().encode(color=line_colour),
        measured.mark_point(filled=True, size=70).encode(color=colour, shape=shape),
        target,
        label,
    ).properties(
        title=fit_title("Report build time against runs (log-log)"),
        width="container",
        height=320,
    )
    return finish(chart)
