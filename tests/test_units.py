from __future__ import annotations

import pytest

from generator.ingest.units import parse_unit


@pytest.mark.parametrize(
    ("text", "factor", "base"),
    [
        ("byte", 1, "byte"),
        ("Kbyte", 1e3, "byte"),
        ("Mbyte", 1e6, "byte"),
        ("Gbyte", 1e9, "byte"),
        ("Tbyte", 1e12, "byte"),
        ("nsecond", 1e-9, "second"),
        ("ns", 1e-9, "second"),
        ("usecond", 1e-6, "second"),
        ("us", 1e-6, "second"),
        ("msecond", 1e-3, "second"),
        ("ms", 1e-3, "second"),
        ("second", 1, "second"),
        ("cycle", 1, "cycle"),
        ("cycle/second", 1, "cycle/second"),
        ("cycle/nsecond", 1e9, "cycle/second"),
        ("hz", 1, "hz"),
        ("Khz", 1e3, "hz"),
        ("Mhz", 1e6, "hz"),
        ("Ghz", 1e9, "hz"),
        ("inst", 1, "inst"),
        ("Kinst", 1e3, "inst"),
        ("%", 1, "%"),
        ("", 1, ""),
        ("byte/second", 1, "byte/second"),
        ("Kbyte/second", 1e3, "byte/second"),
        ("Mbyte/second", 1e6, "byte/second"),
        ("Gbyte/second", 1e9, "byte/second"),
        ("Tbyte/second", 1e12, "byte/second"),
        ("Gbyte/s", 1e9, "byte/second"),
        ("inst/cycle", 1, "inst/cycle"),
        ("register/thread", 1, "register/thread"),
        ("byte/block", 1, "byte/block"),
    ],
)
def test_units_convert_with_si_factors(text: str, factor: float, base: str) -> None:
    unit = parse_unit(text)
    assert unit is not None
    assert unit.factor == pytest.approx(factor, rel=1e-15)
    assert unit.base == base


@pytest.mark.parametrize("text", ["MiB", "furlong", "Mbytes", "kbyte", "byte/fortnight", "GB"])
def test_unknown_units_are_refused(text: str) -> None:
    assert parse_unit(text) is None
