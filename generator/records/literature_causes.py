"""The causes a transcribed seed number's difference from ours may have, each with what it
predicts of published ÷ ours, and the parser of a row's `cause` cell."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from generator.models import unknown_name
from generator.records.peaks import PEAK_KEYS

# cause arguments: a count (clock_summed), a missing part (incomplete_profile), a row id
# (tensor_core_uncounted), a peak key (precision_peak)
PROFILE_PARTS = ("backward", "conv_backward")
Fail = Callable[[str, str], NoReturn]


@dataclass(frozen=True)
class Cause:
    """A hypothesis for published ÷ derived: an expected ratio with a tolerance, or a bound."""

    label: str
    expected: float | None  # None: no single expected ratio
    tolerance: float  # relative
    explanation: str


CAUSES: dict[str, Cause] = {
    "agrees": Cause("agrees", 1.0, 0.02, "Agrees within 2 %."),
    "macs_as_flops": Cause(
        "MACs reported as FLOPs",
        0.5,
        0.02,
        "A multiply-accumulate is 2 FLOPs; the published count is multiply-accumulates "
        "(torchvision's and most counters' 'FLOPs' are MACs). Expected: the model's MACs ÷ "
        "its FLOPs (0.5 for pure MAC work, less where norms and activations add FLOPs).",
    ),
    "macs_x3": Cause(
        "MACs as FLOPs, ×3 rule",
        None,
        0.02,
        "The step was estimated as 3 × forward multiply-accumulates, called FLOPs. "
        "Expected: 3 × the model's forward MACs ÷ our exact step FLOPs.",
    ),
    "sparse_peak": Cause(
        "sparsity peak",
        2.0,
        0.02,
        "The datasheet's 'with sparsity' figure is twice the dense rate; dense training "
        "never reaches it.",
    ),
    "mbyte_as_mib": Cause(
        "Mbyte read as 2^20",
        1.048576,
        0.01,
        "ncu's Mbyte is 10^6 bytes; multiplying by 2^20 overstates bytes by 4.9 %.",
    ),
    "mib_in_denominator": Cause(
        "2^20 bytes in the denominator",
        1 / 1.048576,
        0.01,
        "Bytes overstated by 2^20/10^6 make a per-byte quantity 4.6 % low.",
    ),
    "precision_peak": Cause(
        "peak of another precision",
        None,
        0.02,
        "A datasheet peak of another precision than the work's (the T4's FP16 tensor-core "
        "65 TFLOP/s as the roof of FP32 inference) taken as the device's roof: the roof, and "
        "its ridge, are that many times too high, and a point under it looks memory-bound. "
        "Expected: the catalog's peak of the named precision ÷ its peak of the row's, ± 2 %.",
    ),
    "aggregation_join": Cause(
        "the report's join of kernels to times",
        1.0,
        0.001,
        "The report's script joins each kernel's percentage to the kernel times on the "
        "kernel's name, context, stream, block, grid, device and CC (not its launch ID), so "
        "n identical launches each take all n of their twins' times: a time-weighted mean "
        "with the repeated kernels weighted n times over. Expected: the same join applied "
        "to the raw export gives the published number (± 0.1 %).",
    ),
    "contradicts_own_rows": Cause(
        "contradicts its own rows",
        None,
        0.02,
        "The report prints, in one place (its summary), another value than its own rows "
        "give for the same quantity: one of the two is a slip; its rows are what it "
        "measured. Expected: published ÷ the value its rows give outside 1 ± (2 % and the "
        "printed digits).",
    ),
    "factor_1000": Cause(
        "factor-1000 slip",
        1000.0,
        0.02,
        "The arithmetic is off by 10^3 (e.g. 10^9 / 10^12 read as seconds, not ms).",
    ),
    "incomplete_profile": Cause(
        "work missing from the profile",
        None,
        0.3,
        "The profile holds less work than the step does, and the row names the missing part "
        "(`incomplete_profile:backward`: the backward pass ran on another thread, outside the "
        "NVTX range; `incomplete_profile:conv_backward`: the profiler has no FLOP formula for "
        "the convolutions' backward and counts only the linear layers'). Expected: the step "
        "less that part, ÷ the step, from the analytic count; ± 30 % for a hardware counter "
        "(it counts what the chosen kernels executed), ± 2 % for a profiler's formula.",
    ),
    "forward_macs_as_step": Cause(
        "forward MACs called step FLOPs",
        None,
        0.05,
        "A FLOP counter's forward multiply-accumulates (fvcore counts one MAC as one 'flop') "
        "taken as a whole training step: 2 FLOPs per MAC and the backward pass (about twice "
        "the forward) are both missing, about 6× low. Expected: the model's forward MACs ÷ "
        "our step FLOPs, ± 5 % (the report rounds to two figures).",
    ),
    "tensor_core_uncounted": Cause(
        "uncounted tensor-core work",
        None,
        0.0,
        "FFMA/FADD/FMUL instruction counters miss work done on tensor cores (TF32 "
        "convolutions, which PyTorch's cuDNN allows by default on Ampere and newer). Expected: "
        "below half of the ratio the same counters give for the same workload on a GPU "
        "without TF32 tensor cores (the row named after the colon); the difference is the "
        "uncounted work.",
    ),
    "clock_summed": Cause(
        "clock summed over kernels",
        None,
        0.02,
        "A per-kernel rate (cycles per second) summed over the n profiled kernels instead of "
        "averaged: the 'clock' is n times too high, a time from it n times too short, a rate "
        "n times too high. Expected: published ÷ n (× n for a time) is a clock between half "
        "the device's boost clock and the boost clock.",
    ),
    "below_peak": Cause(
        "slower than the peak",
        None,
        0.02,
        "A measured time or rate against the best the catalog device allows (its peak, or "
        "the analytic work at its peak): every real step is slower. Expected: published ÷ "
        "ours at most 1 for a rate, at least 1 for a time; its inverse is the efficiency.",
    ),
    "data_loading_in_epoch": Cause(
        "data loading inside the timed epoch",
        None,
        0.02,
        "The timed epoch includes reading and transforming every sample on the host, which "
        "the compute floor does not: expected at least 10× the floor of the epoch's steps, "
        "and an epoch time that hardly falls as the batch grows (see the row's note).",
    ),
    "intensity_definition": Cause(
        "different intensity definition",
        None,
        0.0,
        "The report divides by other bytes than ours (each weight and activation once, not a "
        "step's minimal traffic) or other FLOPs; the row's note gives the fit. Not a ratio "
        "check.",
    ),
    "other_datasheet": Cause(
        "different datasheet figure",
        None,
        0.0,
        "The report uses another figure than the catalog's source; see the catalog note.",
    ),
    "open_question": Cause(
        "open question",
        None,
        0.0,
        "No cause is established; the row's note states the numbers and the next check.",
    ),
    "recorded": Cause(
        "recorded",
        None,
        0.0,
        "A measurement this project cannot derive (the device or the raw data is not here); "
        "transcribed for the record and used by the rows named in its note.",
    ),
    "unexplained": Cause("unexplained", None, 0.0, "No explanation found yet."),
}
# Causes whose rows must say, in `note`, the numbers behind them or the next check.
NEEDS_NOTE = ("unexplained", "open_question", "recorded", "intensity_definition")
# Causes that take an argument after a colon, and what it is.
CAUSE_ARGUMENTS = {
    "clock_summed": "the number of kernels summed",
    "incomplete_profile": "the missing part: " + " or ".join(PROFILE_PARTS),
    "tensor_core_uncounted": "the id of the same workload's row on a GPU without TF32",
    "precision_peak": "the peak key the report used (" + ", ".join(PEAK_KEYS) + ")",
}
# Causes that can be multiplied with another (each predicts one expected ratio).
COMBINABLE = ("factor_1000", "forward_macs_as_step", "macs_as_flops", "mbyte_as_mib")


@dataclass(frozen=True)
class CauseUse:
    """One cause of a row's `cause` cell: its name and argument (empty when none)."""

    name: str
    argument: str = ""


def parse_causes(text: str, fail: Fail) -> tuple[CauseUse, ...]:
    """`name`, `name:argument`, or combinable causes joined by `+` (their ratios multiply)."""
    uses = []
    for part in text.split("+"):
        name, _, argument = part.partition(":")
        if name not in CAUSES:
            fail(unknown_name("cause", name, CAUSES), "cause")
        if name in CAUSE_ARGUMENTS and not argument:
            fail(f"cause {name!r} needs {CAUSE_ARGUMENTS[name]} after a colon", "cause")
        if name not in CAUSE_ARGUMENTS and argument:
            fail(f"cause {name!r} takes no argument", "cause")
        if name == "clock_summed" and not argument.isdigit():
            fail(f"{argument!r} is not a number of kernels", "cause")
        if name == "precision_peak" and argument not in PEAK_KEYS:
            fail(f"{argument!r} is not one of {', '.join(PEAK_KEYS)}", "cause")
        if name == "incomplete_profile" and argument not in PROFILE_PARTS:
            fail(f"{argument!r} is not one of {', '.join(PROFILE_PARTS)}", "cause")
        uses.append(CauseUse(name, argument))
    if len(uses) > 1 and any(u.name not in COMBINABLE for u in uses):
        fail(f"only {', '.join(COMBINABLE)} combine with '+'", "cause")
    return tuple(uses)
