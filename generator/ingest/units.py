"""Nsight Compute units to SI base units.

ncu scales values per row ("Kbyte" in one row, "Mbyte" in the next) and its prefixes are
SI: K = 1e3, M = 1e6, G = 1e9. Reading "Mbyte" as 2**20 bytes overstates traffic by 4.9%.
A unit is `numerator[/denominator]`; each side is an optional SI prefix and a known base.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

SI_PREFIXES: dict[str, float] = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}

# base unit -> (dimension, factor to the dimension's base unit)
TIME_UNITS: dict[str, float] = {
    "nsecond": 1e-9,
    "ns": 1e-9,
    "usecond": 1e-6,
    "us": 1e-6,
    "msecond": 1e-3,
    "ms": 1e-3,
    "second": 1.0,
    "s": 1.0,
}
FREQUENCY_UNITS: dict[str, float] = {"hz": 1.0, "Khz": 1e3, "Mhz": 1e6, "Ghz": 1e9, "Thz": 1e12}

# Units that count things; SI prefixes apply ("Kinst", "Msector").
COUNT_BASES: frozenset[str] = frozenset(
    {
        "byte",
        "bit",
        "inst",
        "cycle",
        "sector",
        "request",
        "wavefront",
        "warp",
        "block",
        "thread",
        "register",
        "cluster",
        "transaction",
        "op",
        "ops",
        "flop",
        "sm",
        "SM",
        "event",
    }
)


@dataclass(frozen=True)
class Unit:
    """A parsed unit: multiply a value by `factor` to get it in `base`."""

    text: str
    factor: float
    base: str  # e.g. "byte", "second", "byte/second", "%", "" (dimensionless)


def _side(text: str) -> tuple[float, str] | None:
    if text in TIME_UNITS:
        return TIME_UNITS[text], "second"
    if text in FREQUENCY_UNITS:
        return FREQUENCY_UNITS[text], "hz"
    for prefix, factor in SI_PREFIXES.items():
        if text.startswith(prefix) and text[len(prefix) :] in COUNT_BASES:
            return factor, text[len(prefix) :]
    return None


@cache
def parse_unit(text: str) -> Unit | None:
    """Parse an ncu unit string; None when it is unknown."""
    unit = text.strip()
    if unit in ("", "%"):
        return Unit(text=text, factor=1.0, base=unit)
    numerator, _, denominator = unit.partition("/")
    top = _side(numerator)
    if top is None:
        return None
    if not denominator:
        return Unit(text=text, factor=top[0], base=top[1])
    bottom = _side(denominator)
    if bottom is None:
        return None
    return Unit(text=text, factor=top[0] / bottom[0], base=f"{top[1]}/{bottom[1]}")


def known_unit_examples() -> str:
    return "byte, Kbyte, Mbyte, Gbyte, nsecond, usecond, msecond, second, cycle, Ghz, inst, %, Gbyte/second"
