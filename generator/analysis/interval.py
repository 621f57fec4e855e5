"""The one interval type of the report: a value, its 95 % interval where it has one, and what
kind of interval that is, so that every page prints it the same way and says what it is.

Three kinds, and no other:

- CALIBRATED: the 95 % re-measurement interval across independent processes (the blocks
  method, at least `MIN_BLOCKS` blocks; `hierarchical.block_estimate`). The committed
  calibration records check that re-measurements fall inside it. This is the only interval
  a verdict or a citation may rest on.
- ONE_PROCESS: the distribution-free interval of the median over the steps of one process
  (`stats.median_ci`). It says how precise that process's median is, not where a
  re-measurement falls: processes differ by more than steps within one.
- NONE: no interval. Several runs each timed in one process are never pooled into an
  interval (a t interval over two processes has one degree of freedom and spans orders of
  magnitude): each run's own value is shown instead, with how far apart they are.

Ratios (a speedup, a gain, a share of a roof) use one method, `ratio`: the ratio of the
interval ends (`a.low / b.high .. a.high / b.low`), which holds whenever both intervals hold,
with the weaker kind of the two."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from generator.formatting import number, percent

CALIBRATED = "calibrated"
ONE_PROCESS = "within one process"
NONE = "not calibrated"
KINDS = (CALIBRATED, ONE_PROCESS, NONE)  # strongest first
MIN_BLOCKS = 5  # experiments.toml's default min_blocks: t with 4 degrees of freedom
# An interval whose high end is more than this many times its low end says only that the
# value is not known: it is written out in words, never as "value [low, high]".
MAX_SPAN = 5.0


@dataclass(frozen=True)
class Interval:
    """A value with its 95 % interval (`low`, `high`; None when it has none) and its kind.
    `processes`: how many independent processes the value rests on (0: a lone figure, such
    as one profiled step's kernel time, that states no interval and needs no kind)."""

    value: float
    low: float | None = None
    high: float | None = None
    kind: str = NONE
    processes: int = 0
    in_blocks: bool = False  # timed in blocks: NONE with fewer than MIN_BLOCKS of them

    def _too_few_blocks(self) -> str:
        """ "not calibrated (3 of 5 blocks)" for a result timed in too few blocks, else ""."""
        if self.kind == NONE and self.in_blocks and 0 < self.processes < MIN_BLOCKS:
            return f"{NONE} ({self.processes} of {MIN_BLOCKS} blocks)"
        return ""

    @property
    def bounded(self) -> bool:
        return self.low is not None and self.high is not None

    @property
    def too_wide(self) -> bool:
        """The high end more than MAX_SPAN times the low end (or the low end not positive)."""
        if self.low is None or self.high is None:
            return False
        return self.low <= 0 or self.high > MAX_SPAN * self.low

    @property
    def half_width(self) -> float | None:
        """The interval's larger half as a share of its value (None without an interval)."""
        if self.low is None or self.high is None or not self.value:
            return None
        return max(self.value - self.low, self.high - self.value) / self.value

    @property
    def calibrated(self) -> bool:
        return self.kind == CALIBRATED and self.bounded

    def kind_words(self) -> str:
        """What the interval is, in a few words a reader can check."""
        if self.kind == CALIBRATED:
            return f"calibrated: 95 % re-measurement interval across {self.processes} processes"
        if self.kind == ONE_PROCESS and self.bounded:
            return "within one process: not calibrated"
        return f"no interval: {self._too_few_blocks() or NONE}"

    def short_kind(self) -> str:
        """The kind in a table cell."""
        if self.kind == CALIBRATED:
            return f"calibrated, {self.processes} processes"
        if self.kind == ONE_PROCESS and self.bounded:
            return "within one process"
        return self._too_few_blocks() or NONE

    def text(
        self,
        shown: Callable[[float], str],
        bare: Callable[[float], str] | None = None,
        kind: bool = True,
    ) -> str:
        """ "5.48 ms [5.34 ms, 5.66 ms] (within one process)": `shown` formats a number with
        its unit, `bare` the interval's ends where they share the value's unit; `kind`
        False leaves the kind to the caller (a column that names it once)."""
        if not self.bounded:
            core = shown(self.value)
        elif self.too_wide:
            assert self.low is not None and self.high is not None
            core = (
                f"{shown(self.value)}, too uncertain for an interval (its 95 % interval's "
                f"ends, {shown(self.low)} and {shown(self.high)}, are more than "
                f"{MAX_SPAN:g}× apart)"
            )
        else:
            ends = bare or shown
            assert self.low is not None and self.high is not None
            core = f"{shown(self.value)} [{ends(self.low)}, {ends(self.high)}]"
        # A lone number (a kernel time) has no kind to state; a result without an interval
        # says it is not calibrated.
        say = kind and (self.bounded or self.processes > 0)
        return f"{core} ({self.short_kind()})" if say else core

    def percent_text(self, kind: bool = True) -> str:
        """A fraction as a percentage: "41.2 % [40.1, 42] (calibrated, 10 processes)"."""
        return self.text(lambda f: percent(100 * f), lambda f: number(100 * f, 3), kind)

    def times_text(self, kind: bool = True) -> str:
        """A ratio: "9.12× [8.71, 9.6] (calibrated, 10 processes)"."""
        return self.text(lambda v: f"{_ratio_number(v)}×", _ratio_number, kind)

    def scaled(self, factor: float) -> Interval:
        """The interval times a positive constant (FLOPs over a time are not: `inverse`)."""
        return Interval(
            self.value * factor,
            None if self.low is None else self.low * factor,
            None if self.high is None else self.high * factor,
            self.kind,
            self.processes,
        )

    def inverse(self, numerator: float = 1.0) -> Interval:
        """numerator / this (a rate from a time): the ends swap."""
        return Interval(
            numerator / self.value,
            None if not self.high else numerator / self.high,
            None if not self.low else numerator / self.low,
            self.kind,
            self.processes,
        )

    def ratio(self, other: Interval) -> Interval:
        """self / other, the report's one ratio-interval method: the ratio of the interval
        ends, of the weaker kind; no interval unless both have one."""
        kind = max(self.kind, other.kind, key=KINDS.index)
        processes = min(self.processes, other.processes)
        value = self.value / other.value
        if not (self.bounded and other.bounded) or kind == NONE:
            return Interval(value, None, None, NONE, processes)
        assert self.low is not None and self.high is not None
        assert other.low is not None and other.high is not None
        return Interval(value, self.low / other.high, self.high / other.low, kind, processes)

    def excludes(self, value: float) -> bool:
        """True when the interval lies wholly on one side of `value`."""
        if self.low is None or self.high is None:
            return False
        return self.low > value or self.high < value


def _ratio_number(value: float) -> str:
    """A ratio to 3 significant digits, or as many more as it takes not to print an end
    just above or below 1 as "1" (a reader takes "[1, 1.43]" for an interval touching 1)."""
    for digits in range(3, 7):
        text = number(value, digits)
        if text != "1" or value == 1:
            return text
    return text
