"""A catalog FP32 peak multiplied out from the board: 2 FLOPs per fused multiply-add, once
per FP32 CUDA core per clock, at the boost clock. Where the catalog states the cores per
SM, the Hardware page shows the product beside the datasheet's rounded peak, and a test
holds the two together."""

from __future__ import annotations

from dataclasses import dataclass

from generator.catalog import Device
from generator.formatting import number

FLOPS_PER_FMA = 2  # a fused multiply-add is a multiply and an add


@dataclass(frozen=True)
class Fp32Derivation:
    """The FP32 peak from its parts, for one device."""

    sm_count: int
    cores_per_sm: int
    boost_clock_hz: float

    @property
    def cores(self) -> int:
        return self.sm_count * self.cores_per_sm

    @property
    def flops_per_s(self) -> float:
        return FLOPS_PER_FMA * self.cores * self.boost_clock_hz

    def sentence(self) -> str:
        """e.g. "FP32 peak = 2 FLOP (one FMA) × 6,912 FP32 cores (108 SMs × 64) × 1.41 GHz
        = 19.5 TFLOP/s (19.49 unrounded)"."""
        tflops = self.flops_per_s / 1e12
        return (
            f"FP32 peak = {FLOPS_PER_FMA} FLOP (one FMA) × {self.cores:,} FP32 cores "
            f"({self.sm_count} SMs × {self.cores_per_sm}) × "
            f"{number(self.boost_clock_hz / 1e9)} GHz boost = {tflops:.1f} TFLOP/s "
            f"({tflops:.2f} unrounded)"
        )


def fp32_derivation(device: Device) -> Fp32Derivation | None:
    """The derivation where the catalog states FP32 cores per SM, SMs and a boost clock."""
    if not device.fp32_cores_per_sm or not device.sm_count or not device.boost_clock_hz:
        return None
    return Fp32Derivation(device.sm_count, device.fp32_cores_per_sm, device.boost_clock_hz)
