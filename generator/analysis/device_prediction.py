"""The roofline's prediction put to the test: one GPU's speedup over another, predicted from
the step's bound on the first, against the speedup measured on both.

The H100 SXM and the H200 SXM have the same Hopper SMs and the same dense peaks; their HBM
differs (3.35 against 4.8 TB/s on the datasheets). So the roofline predicts each step's
speedup before the second GPU measures it, by its class on the first:

- **memory** or **compute** (the side of the ridge of its headline point): the roofline time
  of the step's FLOPs and bytes on each GPU, `max(F / peak, B / bandwidth)` under each one's
  measured roof of the step's precision (analysis/roofs.py), and the speedup is their ratio:
  up to the bandwidth ratio where the step is memory-bound, about 1 where it is
  compute-bound. The step is assumed to reach the same share of its roof on both;
- **host** (host-bound (launch) on the first GPU, analysis/launch.py): the GPUs' roofs do not
  set its time, the host does, so the prediction is the ratio of the two hosts' launch times
  (each GPU's own host: the machines differ).

The measured speedup is the first GPU's step time over the second's, with the report's one
ratio interval (`Interval.ratio`, of the weaker kind of the two). A prediction is *inside*
when it lies in that interval; a ratio with no interval cannot be checked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from generator.analysis.interval import Interval
from generator.analysis.points import Points
from generator.analysis.results import Result
from generator.analysis.roofs import MEASURED, Roof, roof_for
from generator.formatting import number, seconds
from generator.records.ceilings import MeasuredCeilings

HOST, MEMORY, COMPUTE = "host", "memory", "compute"
PAIRS = (("NVIDIA H100 SXM", "NVIDIA H200 SXM"),)  # (first, second): the pairs the report tests
KEY = ("model", "dataset", "batch", "phase", "precision", "compile")


@dataclass(frozen=True)
class Prediction:
    """One configuration measured on both GPUs: its class on the first, what the roofline
    and the hosts predict of the second's speedup over the first, and what was measured."""

    first: Result
    second: Result
    kind: str  # HOST, MEMORY or COMPUTE: the class the prediction follows
    side: str | None  # MEMORY or COMPUTE: the side of the ridge of its headline point
    point: str  # the kind of point the side rests on (counted, trace, modelled), or "none"
    by_roofline: float | None  # the roofline time on the first over that on the second
    by_host: float | None  # the first's host launch time over the second's
    measured: Interval  # first's step time / second's
    roofs: tuple[Roof, Roof] | None = None  # the two measured roofs

    @property
    def predicted(self) -> float | None:
        """The prediction of its class: the hosts' for a host-bound step, else the roofline's."""
        return self.by_host if self.kind == HOST else self.by_roofline

    @property
    def checked(self) -> bool:
        return self.predicted is not None and self.measured.bounded

    @property
    def inside(self) -> bool | None:
        """The prediction lies in the measured interval; None when it cannot be checked."""
        if not self.checked:
            return None
        assert self.predicted is not None
        return not self.measured.excludes(self.predicted)

    @property
    def label(self) -> str:
        text = f"{self.first.model} b{self.first.batch} {self.first.phase} {self.first.precision}"
        return text if self.first.compile == "eager" else f"{text} ({self.first.compile})"


def _key(result: Result) -> tuple[object, ...]:
    return tuple(getattr(result, name) for name in KEY)


def _roof(result: Result, ceilings: Sequence[MeasuredCeilings]) -> Roof | None:
    return roof_for(result.device_label, result.precision, MEASURED, ceilings)


def roofline_time(flops: float, nbytes: float, roof: Roof) -> float:
    """The time the roofline allows the step: its FLOPs at the peak or its bytes at the
    bandwidth, whichever is longer."""
    return max(flops / roof.peak_flops_per_s, nbytes / roof.bandwidth_bytes_per_s)


def predict(
    first: Result, second: Result, points: Points | None, ceilings: Sequence[MeasuredCeilings]
) -> Prediction:
    """The prediction for one configuration measured on both GPUs (module docstring)."""
    measured = first.step.ratio(second.step)
    hosts = first.launch, second.launch
    by_host = (
        hosts[0].host_s / hosts[1].host_s
        if hosts[0] is not None and hosts[1] is not None and hosts[1].host_s > 0
        else None
    )
    kind = HOST if hosts[0] is not None and hosts[0].host_bound else None
    headline = points.headline if points is not None else None
    roofs = (_roof(first, ceilings), _roof(second, ceilings))
    if headline is None or roofs[0] is None or roofs[1] is None:
        return Prediction(first, second, kind or COMPUTE, None, "none", None, by_host, measured)
    flops = headline.attained.value * headline.time.value
    nbytes = flops / headline.ai
    side = MEMORY if headline.ai < roofs[0].ridge_ai else COMPUTE
    by_roofline = roofline_time(flops, nbytes, roofs[0]) / roofline_time(flops, nbytes, roofs[1])
    return Prediction(
        first, second, kind or side, side, headline.point, by_roofline, by_host, measured,
        (roofs[0], roofs[1]),
    )  # fmt: skip


def predictions(
    results: Mapping[str, Result],
    points: Mapping[str, Points],
    ceilings: Sequence[MeasuredCeilings],
    pairs: Sequence[tuple[str, str]] = PAIRS,
) -> list[Prediction]:
    """Every configuration measured on both GPUs of a pair, by label."""
    found = []
    for first_label, second_label in pairs:
        seconds = {_key(r): r for r in results.values() if r.device_label == second_label}
        for workload, first in sorted(results.items(), key=lambda item: item[1].run_ids):
            if first.device_label != first_label or _key(first) not in seconds:
                continue
            found.append(predict(first, seconds[_key(first)], points.get(workload), ceilings))
    return found


def _times(value: float | None) -> str:
    return f"{number(value, 3)}×" if value is not None else "n/a"


def why_missed(item: Prediction) -> str:
    """The evidence the data holds on a prediction that fell outside its measured interval."""
    first, second = item.first, item.second
    weaker = [r.device_label for r in (first, second) if not r.step.calibrated]
    uncalibrated = (
        f"; the {' and '.join(weaker)} side is not calibrated ({'; '.join(r.step.short_kind() for r in (first, second) if not r.step.calibrated)}), so the measured interval says little of the next run"
        if weaker
        else ""
    )
    roofline = (
        f"; the roofs alone predict {_times(item.by_roofline)}"
        + (
            " (inside)"
            if item.by_roofline is not None and not item.measured.excludes(item.by_roofline)
            else ""
        )
        if item.kind == HOST
        else ""
    )
    if item.kind == HOST:
        assert first.launch is not None and second.launch is not None
        return (
            f"host-bound on the {first.device_label}: its profiled host took "
            f"{seconds(first.launch.host_s)} to enqueue the step, the {second.device_label}'s "
            f"{seconds(second.launch.host_s)}; profiled hosts are slowed by the profiler, each "
            f"machine's by its own factor{roofline}{uncalibrated}"
        )
    return (
        f"{item.kind}-bound by its {item.point} point: the prediction assumes the same share "
        f"of its roof on both GPUs{uncalibrated}"
    )


def summary(items: Sequence[Prediction]) -> str:
    """How often the prediction fell inside the measured interval, computed from `items`,
    with each miss explained (`why_missed`) and what is not tested yet."""
    if not items:
        return "No configuration has been measured on both GPUs of a pair yet."
    first, second = items[0].first.device_label, items[0].second.device_label
    counts = {kind: sum(1 for i in items if i.kind == kind) for kind in (HOST, MEMORY, COMPUTE)}
    classes = ", ".join(f"{n} {k}-bound" if k != HOST else f"{n} host-bound (launch)"
                        for k, n in counts.items() if n)  # fmt: skip
    checked = [i for i in items if i.checked]
    inside = [i for i in checked if i.inside]
    calibrated = sum(1 for i in checked if i.measured.calibrated)
    text = (
        f"Of {len(items)} configurations measured on both the {first} and the {second}, by "
        f"their class on the {first}: {classes}. The prediction of its class fell inside the "
        f"measured interval for {len(inside)} of the {len(checked)} that have one "
        f"({calibrated} of them calibrated)"
    )
    if len(checked) < len(items):
        text += (
            f"; {len(items) - len(checked)} have no measured interval (a side pools runs "
            "that were each timed in one process) or no prediction"
        )
    text += "."
    misses = [i for i in checked if not i.inside]
    if misses:
        text += f" The {len(misses)} misses are explained below."
    if not any(i.kind == MEMORY for i in items):
        text += (
            f" No configuration measured on both is memory-bound and free of the host on the "
            f"{first}, so the bandwidth prediction itself is not tested yet."
        )
    return text


def misses(items: Sequence[Prediction]) -> list[str]:
    """Each prediction outside its measured interval, with what the data says of why."""
    return [
        f"{i.label}: predicted {_times(i.predicted)}, measured {i.measured.times_text()}; "
        f"{why_missed(i)}"
        for i in items
        if i.checked and not i.inside
    ]
