"""Human-readable numbers with SI prefixes (the report never uses binary prefixes)."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime

_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))
_SMALL = ((1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"))


# Units that count things: a count below 1 (a fraction of a FLOP from splitting an op's
# cost over its kernels) is printed as it is, never as "900 mFLOP" (read as megaflop).
COUNT_UNITS = frozenset({"FLOP", "B", "params"})


def si(value: float | None, unit: str, digits: int = 4) -> str:
    """`si(4928393620, "FLOP")` -> "4.928 GFLOP"; None -> "n/a". The prefix is chosen after
    rounding to `digits` figures, so 999.99 s -> "1 ks", never "1000 s"."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if value == 0:
        return f"0 {unit}"
    magnitude = abs(float(f"{value:.{digits}g}"))
    if magnitude < 1 and unit in COUNT_UNITS:
        return f"{plain(value, digits)} {unit}"
    scales = _PREFIXES if magnitude >= 1 else _SMALL
    for factor, prefix in scales:
        if magnitude >= factor or factor == scales[-1][0]:
            return f"{value / factor:.{digits}g} {prefix}{unit}"
    return f"{value:.{digits}g} {unit}"  # pragma: no cover


def seconds(value: float | None) -> str:
    return si(value, "s")


def plain(value: float, digits: int = 4) -> str:
    """`digits` significant figures, never in exponent notation: 64970 -> "64,970",
    1e9 -> "1,000,000,000", 0.00001234 -> "0.00001234" (prose is read, not parsed)."""
    text = f"{value:.{digits}g}"
    if "e" not in text or not math.isfinite(value):
        return text
    exponent = math.floor(math.log10(abs(value)))
    if exponent >= 0:
        return f"{round(value, digits - 1 - exponent):,.0f}"
    return f"{value:.{digits - 1 - exponent}f}"


def number(value: float | None, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return plain(value, digits)


def percent(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    return f"{plain(value, digits)} %"


def short_name(name: str | None, limit: int = 60) -> str:
    """A kernel name cut to `limit` characters (templates make them hundreds long)."""
    if not name:
        return "(unnamed)"
    return name if len(name) <= limit else name[: limit - 1] + "…"


def slug(text: str) -> str:
    """Lower case, every run of other characters one hyphen: an id for a URL or a chart."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def utc_now() -> str:
    """The time every written file is stamped with: UTC, ISO 8601, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")
