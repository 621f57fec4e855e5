"""A CPU's datasheet peak, derived: vendors rarely print a CPU's FLOP/s, but its ISA and clock
fix it. Peak = cores × FMA units per core × vector lanes × 2 FLOP per FMA × clock, with the
lanes read from the /proc/cpuinfo flags (avx512f: 512-bit vectors, avx2 with fma: 256-bit,
asimd: 128-bit; SVE's width is the implementation's, so it is passed in). Pure: no /proc
read here, so the catalog's numbers can be checked anywhere."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

LANE_BITS = {"fp64": 64, "fp32": 32, "fp16": 16}


@dataclass(frozen=True)
class DerivedPeak:
    flops_per_s: float
    derivation: str  # "2 cores × 2 FMA units × 16 fp32 lanes × 2 FLOP × 2.596 GHz = 332.3 GFLOP/s"


def vector_bits(flags: Iterable[str], sve_bits: int | None = None) -> int:
    """The widest FMA vector the flags name, in bits."""
    have = set(flags)
    if "avx512f" in have:
        return 512
    if "avx2" in have and "fma" in have:
        return 256
    if "sve" in have or "sve2" in have:
        if sve_bits is None:
            raise ValueError("SVE's vector length is the implementation's: pass sve_bits")
        return sve_bits
    if "asimd" in have or "neon" in have:
        return 128
    raise ValueError(f"no FMA vector extension among the flags: {sorted(have)}")


def _number(value: float) -> str:
    return f"{value:g}"


def derive_cpu_peak(
    flags: Iterable[str],
    cores: int,
    fma_units: int,
    clock_hz: float,
    precision: str = "fp32",
    sve_bits: int | None = None,
) -> DerivedPeak:
    """One kind of core's peak: cores × FMA units × lanes of `precision` × 2 × clock."""
    if cores <= 0 or fma_units <= 0 or clock_hz <= 0:
        raise ValueError("cores, FMA units and clock must be positive")
    lanes = vector_bits(flags, sve_bits) // LANE_BITS[precision]
    flops = cores * fma_units * lanes * 2 * clock_hz
    derivation = (
        f"{cores} cores × {fma_units} FMA units × {lanes} {precision} lanes × 2 FLOP × "
        f"{_number(clock_hz / 1e9)} GHz = {_gflops(flops)}"
    )
    return DerivedPeak(flops, derivation)


def _gflops(flops: float) -> str:
    return f"{flops / 1e9:,.1f} GFLOP/s"


def combined(parts: Sequence[DerivedPeak]) -> DerivedPeak:
    """A hybrid CPU (P-cores and E-cores): the sum of its kinds of core."""
    total = sum(p.flops_per_s for p in parts)
    terms = " + ".join(f"({p.derivation.rsplit(' = ', 1)[0]})" for p in parts)
    return DerivedPeak(total, f"{terms} = {_gflops(total)}")
