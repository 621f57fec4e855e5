"""Words for where a point sits against its roofline that hold.

The side of the ridge says which roof would limit a point that reached it; it does not say
what limits a point far below both. So every "compute-bound" or "memory-bound" the report
prints states the fraction of the roof attained, and a point under LATENCY_BOUND_BELOW of
its roof is called latency/overhead-bound whatever side of the ridge it sits on: at 2 % of
the roof neither the arithmetic units nor DRAM are what it waits for, but kernel launches,
synchronisation, small grids or the host.
"""

from __future__ import annotations

from generator.formatting import percent

# Under this fraction of the roof (attained / min(peak, AI x bandwidth)) a point is
# latency/overhead-bound, whichever side of the ridge it sits on.
LATENCY_BOUND_BELOW = 0.10
SIDES = ("compute", "memory")
LATENCY = "latency/overhead"


def _check_side(side: str) -> None:
    if side not in SIDES:
        raise ValueError(f"side of the ridge must be one of {SIDES}, not {side!r}")


def bound_regime(side: str, efficiency: float | None) -> str | None:
    """What bounds the point: "compute", "memory" or "latency/overhead"; None when the
    fraction of the roof is unknown (then nothing is claimed). `side` is the side of the
    ridge ("compute": AI at or right of it, "memory": left of it)."""
    _check_side(side)
    if efficiency is None:
        return None
    return LATENCY if efficiency < LATENCY_BOUND_BELOW else side


def bound_words(side: str, efficiency: float | None) -> str:
    """The bound in words, with the fraction of the roof it rests on, e.g.
    "compute-bound at 45.2 % of the roof",
    "latency/overhead-bound at 2 % of the roof (under 10 %; right of the ridge, where the
    compute roof would limit a faster step)", or, without an attained rate, only the side of the ridge."""
    regime = bound_regime(side, efficiency)
    where = "right of the ridge" if side == "compute" else "left of the ridge"
    if regime is None or efficiency is None:
        return f"{where} (fraction of the roof attained unknown: no bound claimed)"
    share = percent(100 * efficiency)
    if regime == LATENCY:
        return (
            f"{LATENCY}-bound at {share} of the roof (under "
            f"{percent(100 * LATENCY_BOUND_BELOW)}; {where}, where the {side} roof would "
            "limit a faster step)"
        )
    return f"{regime}-bound at {share} of the roof"


def bound_cell(side: str | None, efficiency: float | None) -> str:
    """A table cell by the same rule: "compute", "memory" or "latency/overhead"; "n/a" with
    no side, and the side alone marked as such when the fraction of the roof is unknown."""
    if side not in SIDES:
        return "n/a"
    regime = bound_regime(side, efficiency)
    return regime if regime is not None else f"{side} side of the ridge"
