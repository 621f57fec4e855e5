"""Sentences with an experiment group's numbers: how the swept variable moves each metric,
and which results are too imprecise to compare."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from generator.analysis.results import precise_enough
from generator.analysis.thresholds import NOISY_CI
from generator.analysis.verdict_needs import MatrixKey, ResultRow, metric_interval
from generator.analysis.verdicts import fmt_metric, ordered_along, with_metric
from generator.formatting import percent, si


def observations(
    rows: Sequence[ResultRow],
    key: MatrixKey | None,
    ceiling: Callable[[str], tuple[str, float] | None] | None,
    label: Callable[[ResultRow], str] = str,
) -> list[str]:
    """Sentences with the group's numbers: how the swept variable moves each metric.
    `ceiling`: a run's precision -> the measured GEMM ceiling of that precision on the rows'
    device (`roofs.gemm_ceiling`), against which its modelled FLOP/s is stated. `key`
    None: several variables vary together, and each row goes by its `label`."""

    def at(row: ResultRow) -> int | str:
        return row[key] if key is not None else label(row)

    ordered = ordered_along(rows, key) if key is not None else sorted(rows, key=label)
    sentences = []
    if key == "batch":
        first, last = ordered[0], ordered[-1]
        for metric, verb in (
            ("throughput", "Throughput"),
            ("modelled_ai", "Modelled AI"),
            ("modelled_flops_per_s", "Modelled FLOP/s"),
        ):
            a, b = metric_interval(first, metric), metric_interval(last, metric)
            if a is None or b is None:
                continue
            move = "rises" if b.value > a.value else "falls"
            change = percent(100 * (b.value / a.value - 1)) if a.value else "n/a"
            sentences.append(
                f"{verb} {move} from {fmt_metric(metric, a.value)} to {fmt_metric(metric, b.value)} ({change}) as "
                f"the batch goes from {first['batch']} to {last['batch']}."
            )
    else:
        timed = with_metric(ordered, "step_time")
        if timed:
            fastest = min(timed, key=lambda item: item[1].value)
            slowest = max(timed, key=lambda item: item[1].value)
            sentences.append(
                f"Fastest step: {at(fastest[0])} ({si(fastest[1].value, 's')}); slowest: "
                f"{at(slowest[0])} ({si(slowest[1].value, 's')})."
            )
        rated = with_metric(ordered, "modelled_flops_per_s")
        if rated:
            best = max(rated, key=lambda item: item[1].value)
            precision = str(best[0]["precision"])
            found = ceiling(precision) if ceiling else None
            share = (
                f": {percent(100 * best[1].value / found[1])} of the measured {found[0]} GEMM "
                "ceiling"
                if found
                else ""
            )
            sentences.append(
                f"Highest modelled FLOP/s: {at(best[0])} ({si(best[1].value, 'FLOP/s')} in "
                f"{precision}{share})."
            )
    # judged on each row's result, not on the pooled table's ci columns, which are blank
    # where an interval is too wide to state: the widest would drop out
    steps = [step for row in rows if (step := metric_interval(row, "step_time")) is not None]
    noisy = [step.half_width for step in steps if step.bounded and not precise_enough(step)]
    if noisy:
        sentences.append(
            f"{len(noisy)} of {len(rows)} results have a 95 % interval wider than ±"
            f"{percent(100 * NOISY_CI)} (up to ±{percent(100 * max(w or 0.0 for w in noisy))}): "
            "compare them by their intervals."
        )
    return sentences
