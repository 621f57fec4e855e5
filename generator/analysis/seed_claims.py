"""Seed 000's two claims about its GPUs, checked by catalog arithmetic: "both GPUs have the same
bandwidth" (§II) and "it may be overkill to use the L4 for this workload" (experiment B,
ResNet-18's training step at batch 128 on CIFAR-10-shaped input). The same floor rule as every
prediction (analysis/device_choice.floor_seconds) on each device's datasheet roof."""

from __future__ import annotations

from dataclasses import dataclass

from generator.analysis.device_choice import floor_seconds
from generator.catalog import Device
from generator.formatting import number, percent, si

SAME_WITHIN = 0.10  # two bandwidths within 10 % are "the same" for a roofline's purpose
# Experiment B's workload: (model, dataset, batch, phase, precision)
OVERKILL_WORKLOAD = ("resnet18", "cifar10", 128, "train_step", "fp32")


@dataclass(frozen=True)
class Claim:
    seed: str
    where: str
    claim: str  # the seed's words
    holds: bool | None  # None: not checkable (the counts are missing)
    check: str  # the arithmetic, in one sentence


def same_bandwidth(first: Device, second: Device) -> Claim:
    ratio = second.bandwidth_bytes_per_s / first.bandwidth_bytes_per_s
    holds = abs(ratio - 1) <= SAME_WITHIN
    return Claim(
        "000",
        "§II",
        f"the {first.name} and the {second.name} have the same bandwidth",
        holds,
        f"The datasheets give {si(first.bandwidth_bytes_per_s, 'B/s')} and "
        f"{si(second.bandwidth_bytes_per_s, 'B/s')}: the {second.name} has "
        f"{percent(100 * abs(ratio - 1))} {'less' if ratio < 1 else 'more'}, the same within "
        f"{percent(100 * SAME_WITHIN)}, so §III's 'higher peak compute and bandwidth' is half "
        "wrong.",
    )


def overkill(first: Device, second: Device, flops: float | None, nbytes: float | None) -> Claim:
    """The second GPU is overkill when its floor for the workload gains much less than its
    peak over the first's: the workload sits left of its ridge, where its bandwidth decides."""
    claim = f"the {second.name} is overkill for ResNet-18's training step at batch 128"
    first_peak, second_peak = first.peak("fp32"), second.peak("fp32")
    if not flops or not nbytes or not first_peak or not second_peak:
        return Claim("000", "experiment B", claim, None, "The step's analytic count is missing.")
    ai = flops / nbytes
    t1, bound1 = floor_seconds(flops, nbytes, first_peak, first.bandwidth_bytes_per_s, None)
    t2, bound2 = floor_seconds(flops, nbytes, second_peak, second.bandwidth_bytes_per_s, None)
    gain, peaks = t1 / t2, second_peak / first_peak
    used = flops / t2 / second_peak
    ridge = second_peak / second.bandwidth_bytes_per_s
    return Claim(
        "000",
        "experiment B",
        claim,
        gain < peaks / 2,
        f"The step does {number(ai, 3)} FLOP/byte, {bound1}-bound on the {first.name} and "
        f"{bound2}-bound on the {second.name} (ridge {number(ridge, 3)}): its "
        f"{number(peaks, 3)}× FP32 peak buys {number(gain, 3)}× on the floor, where it uses "
        f"{percent(100 * used)} of that peak.",
    )
