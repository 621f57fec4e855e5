"""Measured again, did the result hold? `not-reproduced` on a run whose latest re-measurement
(`python -m generator remeasure`, measurements/calibration/) fell outside the 95 %
interval the report states for it, and the coverage sentence the report prints."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from generator.findings.specs import NOT_REPRODUCED
from generator.formatting import number, percent, seconds
from generator.records.calibration import CalibrationFile, Remeasured
from generator.records.finding import Finding
from generator.records.run import RunRecord
from generator.stats import clopper_pearson

NOMINAL = 0.95  # what a 95 % re-measurement interval promises: 19 re-measurements in 20 inside


@dataclass(frozen=True)
class Coverage:
    covered: int
    total: int
    calibrations: int  # files (remeasure calls) they come from
    first: str  # started_at of the oldest and newest call
    last: str
    min_minutes_after: float  # the shortest time between a result and its re-measurement
    configurations: int = 0  # distinct configurations (run ids) re-measured

    @property
    def share(self) -> float:
        return self.covered / self.total if self.total else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The observed coverage's 95 % Clopper-Pearson interval (stats.clopper_pearson)."""
        return clopper_pearson(self.covered, self.total)

    def interval_text(self) -> str:
        """'89 % [79.3, 95.1] (95 % Clopper-Pearson)'."""
        low, high = self.interval
        return (
            f"{percent(100 * self.share)} [{number(100 * low, 3)}, {number(100 * high, 3)}] "
            "(95 % Clopper-Pearson)"
        )

    def against_nominal(self) -> str:
        """Whether the observed coverage is consistent with the nominal 95 %."""
        low, high = self.interval
        if high < NOMINAL:
            return (
                f"below the nominal {percent(100 * NOMINAL)}: the intervals are too narrow "
                "for what changes between invocations"
            )
        if low > NOMINAL:
            return (
                f"above the nominal {percent(100 * NOMINAL)}: the intervals are wider than needed"
            )
        return f"consistent with the nominal {percent(100 * NOMINAL)}"

    def sentence(self) -> str:
        calls = "one re-measurement call" if self.calibrations == 1 else (
            f"{self.calibrations} re-measurement calls")  # fmt: skip
        configurations = f" of {self.configurations} configurations" if self.configurations else ""
        return (
            f"Our 95 % intervals covered {self.covered} of {self.total} re-measurements"
            f"{configurations}: {self.interval_text()}, {self.against_nominal()} ({calls}, "
            f"{self.first[:10]}"
            + (f" to {self.last[:10]}" if self.last[:10] != self.first[:10] else "")
            + f", each at least {number(self.min_minutes_after, 2)} minutes after the result "
            "it checks)."
        )


def coverage(
    calibrations: Sequence[CalibrationFile], keep: Callable[[str], bool] | None = None
) -> Coverage | None:
    """Every re-measurement on record (of the run ids `keep` accepts), pooled: how many fell
    inside their stated interval, of how many configurations."""
    items = [(calibration, item) for calibration in calibrations
             for item in calibration.configurations if keep is None or keep(item.run_id)]  # fmt: skip
    if not items:
        return None
    starts = sorted({c.started_at for c, _ in items})
    return Coverage(
        covered=sum(item.inside for _, item in items),
        total=len(items),
        calibrations=len(starts),
        first=starts[0],
        last=starts[-1],
        min_minutes_after=min(item.minutes_after for _, item in items),
        configurations=len({item.run_id for _, item in items}),
    )


def latest_remeasurements(
    calibrations: Sequence[CalibrationFile], records: Mapping[str, RunRecord]
) -> dict[str, tuple[CalibrationFile, Remeasured]]:
    """Run -> its newest re-measurement that checked the result as it stands (a result
    measured again since was not what that call checked)."""
    latest: dict[str, tuple[CalibrationFile, Remeasured]] = {}
    for calibration in sorted(calibrations, key=lambda c: c.started_at):
        for item in calibration.configurations:
            record = records.get(item.run_id)
            if record is None or (record.finished_at or "") > calibration.started_at:
                continue
            latest[item.run_id] = (calibration, item)
    return latest


def not_reproduced(
    calibrations: Sequence[CalibrationFile], records: Mapping[str, RunRecord]
) -> dict[str, tuple[Finding, ...]]:
    found: dict[str, tuple[Finding, ...]] = {}
    for run_id, (calibration, item) in latest_remeasurements(calibrations, records).items():
        if item.inside:
            continue
        low, high = item.committed.interval95_s
        found[run_id] = (
            NOT_REPRODUCED.found(
                "A re-measurement fell outside this result's 95 % interval",
                f"measured again on {calibration.started_at[:16].replace('T', ' ')} UTC, "
                f"{number(item.minutes_after, 2)} minutes later, in a new invocation: "
                f"{seconds(item.remeasured.median_s)} ({number(item.ratio, 3)}× the committed "
                f"{seconds(item.committed.median_s)}), outside its interval [{seconds(low)}, "
                f"{seconds(high)}]",
            ),
        )
    return found
