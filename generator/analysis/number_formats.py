"""The floating-point formats deep-learning work runs in: their bits, the range those bits
give (computed here from the bit counts, never typed in), and which NVIDIA tensor cores
take them (read off the catalog's dense tensor peaks). Seed 004 (Kuo and Gurjar's A100 lab
report, Table 3) lists the bits; the Glossary page shows this table."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from generator.catalog import Device

# NVIDIA's architectures, oldest first: the order the tensor-core column names them in.
GENERATIONS = ("Volta", "Turing", "Ampere", "Ada Lovelace", "Hopper", "Blackwell")


@dataclass(frozen=True)
class NumberFormat:
    """A binary floating-point format: 1 sign bit, `exponent_bits`, `mantissa_bits` (the
    stored fraction; a normal number has one more, implicit, leading 1)."""

    name: str
    what: str
    exponent_bits: int
    mantissa_bits: int
    tensor_peak: str | None  # the catalog peak of tensor cores that take it, if any
    # True: the top exponent is reserved for infinities and NaNs (IEEE 754). False: only
    # the all-ones pattern is NaN and the top exponent holds finite numbers (FP8 E4M3).
    ieee_top_exponent: bool = True
    sign_bits: int = 1

    @property
    def bits(self) -> int:
        return self.sign_bits + self.exponent_bits + self.mantissa_bits

    @property
    def bias(self) -> int:
        return (1 << (self.exponent_bits - 1)) - 1

    @property
    def largest_finite(self) -> float:
        """(2 − 2^−m) × 2^bias; where the top exponent is finite, its largest mantissa less
        one step (the all-ones one is NaN) at one exponent more."""
        if self.ieee_top_exponent:
            return math.ldexp(2 - 2.0**-self.mantissa_bits, self.bias)
        return math.ldexp(2 - 2.0 ** (1 - self.mantissa_bits), self.bias + 1)

    @property
    def smallest_normal_exponent(self) -> int:
        return 1 - self.bias

    @property
    def smallest_normal(self) -> float:
        return math.ldexp(1.0, self.smallest_normal_exponent)

    @property
    def decimal_digits(self) -> float:
        """Significant decimal digits the mantissa (with its implicit bit) carries."""
        return (self.mantissa_bits + 1) * math.log10(2)


FORMATS: tuple[NumberFormat, ...] = (
    NumberFormat("FP64", "double precision (IEEE 754 binary64)", 11, 52, "fp64_tensor"),
    NumberFormat("FP32", "single precision (IEEE 754 binary32)", 8, 23, None),
    NumberFormat("TF32", "TensorFloat-32: FP32's range, FP16's mantissa (19 bits, held in 32)", 8,
                 10, "tf32_tensor"),
    NumberFormat("FP16", "half precision (IEEE 754 binary16)", 5, 10, "fp16_tensor"),
    NumberFormat("BF16", "bfloat16: FP32's range, 7 mantissa bits", 8, 7, "bf16_tensor"),
    NumberFormat("FP8 E4M3", "8-bit, more precision (no infinities)", 4, 3, "fp8_tensor",
                 ieee_top_exponent=False),
    NumberFormat("FP8 E5M2", "8-bit, more range", 5, 2, "fp8_tensor"),
)  # fmt: skip
# What FP32 matrix work does on NVIDIA GPUs, which have no FP32 tensor cores.
FP32_ON_TENSOR_CORES = "none: CUDA cores (with TF32 allowed, an FP32 matmul runs as TF32)"


def _model(device: Device) -> str:
    """A short product name: "A100" from "NVIDIA A100 80GB PCIe", "RTX 4090" from
    "NVIDIA GeForce RTX 4090"; the name less "NVIDIA" where no model number stands out."""
    found = re.search(r"\b(?:RTX )?[A-Z]{0,2}\d{1,4}[A-Z]?\b", device.name)
    return found.group(0) if found else device.name.removeprefix("NVIDIA ").strip()


def tensor_cores_taking(peak: str | None, devices: tuple[Device, ...]) -> str:
    """The oldest NVIDIA architecture with a catalog GPU that states a dense tensor peak of
    the format, "and later"; where fewer than half the catalog's GPUs of those architectures
    state one (FP64: the data-center parts), the models that do."""
    if peak is None:
        return FP32_ON_TENSOR_CORES
    gpus = [d for d in devices if d.vendor == "NVIDIA" and d.kind == "gpu"]
    first = next(
        (g for g in GENERATIONS if any(d.architecture == g and d.peak(peak) for d in gpus)),
        None,
    )
    if first is None:
        return "none in the catalog"
    later = GENERATIONS[GENERATIONS.index(first) :]
    members = [d for d in gpus if d.architecture in later]
    having = [d for d in members if d.peak(peak) is not None]
    words = f"{first} and later" if first != GENERATIONS[-1] else first
    if 2 * len(having) >= len(members):
        return words
    models = ", ".join(dict.fromkeys(_model(d) for d in having))
    return f"{words}; in the catalog {models}"
