"""The SI prefixes every page's numbers are printed with (formatting.si)."""

from __future__ import annotations

import pytest

from generator.formatting import si


@pytest.mark.parametrize(
    ("value", "unit", "shown"),
    [
        (4928393620, "FLOP", "4.928 GFLOP"),
        (999.99, "s", "1 ks"),  # rounds to 1000 s: the next prefix up, not "1000 s"
        (0.99999, "s", "1 s"),  # not "1000 ms"
        (999_999.6, "B", "1 MB"),
        (2.5e-7, "s", "250 ns"),
    ],
)
def test_a_value_that_rounds_to_1000_of_a_prefix_takes_the_next(
    value: float, unit: str, shown: str
) -> None:
    assert si(value, unit) == shown


def test_a_count_never_takes_a_milli_prefix() -> None:
    """An op's FLOPs split over its kernels by time can be a fraction of one: 0.99999 FLOP
    printed "1000 mFLOP" read as a thousand megaflops on a trace page."""
    assert si(0.99999, "FLOP") == "1 FLOP"
    assert si(0.5, "FLOP") == "0.5 FLOP"
    assert si(0.25, "B") == "0.25 B"
    assert si(0.5, "s") == "500 ms"  # a time is not a count: milli stays
