"""Each result's verdict (`step_verdict`): its modelled point, the analytic FLOPs and minimal
bytes of the step over the result's timed median (analysis/results.py), under the roof of its
device and precision (`roofs.roof`: measured, else datasheet). Keyed by every run the result
pools, since the pages name runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from generator.analysis.results import Result
from generator.analysis.roofs import PEAK_OF_RUN, roof
from generator.analysis.step_verdict import TIMED, StepVerdict, step_verdict
from generator.catalog import Device
from generator.records.ceilings import MeasuredCeilings


def result_verdict(
    result: Result,
    ceilings: Sequence[MeasuredCeilings],
    catalog: tuple[Device, ...] | None = None,
) -> StepVerdict | None:
    precision = PEAK_OF_RUN.get(result.precision, "fp32")
    return step_verdict(
        result.modelled_flops,
        result.modelled_bytes,
        result.step,
        roof(result.device_label, precision, ceilings, catalog),
        TIMED,
        "modelled",
    )


def run_verdicts(
    results: Mapping[str, Result],
    ceilings: Sequence[MeasuredCeilings],
    catalog: tuple[Device, ...] | None = None,
) -> dict[str, StepVerdict]:
    """By run id, for every run of every result whose point and roof are known."""
    found = {}
    for result in results.values():
        if (verdict := result_verdict(result, ceilings, catalog)) is not None:
            found.update(dict.fromkeys(result.run_ids, verdict))
    return found
