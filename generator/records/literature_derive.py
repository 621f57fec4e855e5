"""A literature row's `derive` key: how this project derives the same quantity as a seed's
number (catalog, ridge, at_peak, analytic, measured, imported, quotient, gain, mean,
floor, rate_from, cycles, clock, recorded), parsed and checked against the registry and catalog."""

from __future__ import annotations

from dataclasses import dataclass

from generator.models import DATASETS, MODELS, unknown_name
from generator.records.literature_causes import Fail
from generator.records.peaks import PEAK_KEYS

ANALYTIC_QUANTITIES: dict[str, str] = {
    "params": "count",
    "forward_flops": "flops",
    "backward_flops": "flops",
    "step_flops": "flops",
    "sample_forward_flops": "flops",  # forward / batch
    "sample_step_flops": "flops",  # (forward + loss + backward) / batch: no optimizer
    "arithmetic_intensity": "intensity",
    "backward_over_forward": "ratio",
    "min_traffic_bytes": "bytes",
    "linear_backward_flops": "flops",
}
FLOP_QUANTITIES = ("forward_flops", "backward_flops", "step_flops")
IMPORTED_QUANTITIES: dict[str, str] = {
    "flops": "flops",
    "dram_bytes": "bytes",
    "time": "time",
    "sm_pct": "percent",
    "dram_pct": "percent",
    "attained": "flop_rate",
    "ai": "intensity",
    # the report's own aggregation of the percentages (analysis/seed_join.py)
    "sm_pct_seed_matching": "percent",
    "dram_pct_seed_matching": "percent",
}


@dataclass(frozen=True)
class Derive:
    """A parsed `derive` key."""

    kind: str  # catalog, ridge, at_peak, analytic, imported
    dimension: str
    device: str = ""
    peak: str = ""  # a PEAK_KEYS entry, or "bandwidth"
    flops: float = 0.0  # at_peak
    model: str = ""
    dataset: str = ""
    batch: int = 0
    quantity: str = ""
    folder: str = ""
    rows: tuple[str, ...] = ()  # quotient, gain, mean, rate_from: the seed's own rows it uses
    cycles: float = 0.0  # cycles
    steps: int = 1  # floor: steps in the timed span (an epoch)


def parse_derive(text: str, fail: Fail, device_ids: set[str]) -> Derive:
    parts = text.split(":")
    kind = parts[0]

    def need(count: int, form: str) -> None:
        if len(parts) != count:
            fail(f"derive key {text!r} is not {form}", "derive")

    def device_and_peak(device: str, peak: str, allow_bandwidth: bool) -> None:
        if device not in device_ids:
            fail(unknown_name("catalog device", device, dict.fromkeys(device_ids)), "derive")
        keys = (*PEAK_KEYS, "bandwidth") if allow_bandwidth else PEAK_KEYS
        if peak not in keys:
            fail(f"{peak!r} is not one of {', '.join(keys)}", "derive")

    def configuration(model: str, data: str, batch: str) -> tuple[str, str, int]:
        """A registry model, a dataset and a positive batch, or the row's error."""
        if model not in MODELS:
            fail(unknown_name("model", model, MODELS), "derive")
        if data not in DATASETS:
            fail(unknown_name("dataset", data, DATASETS), "derive")
        if not batch.isdigit() or int(batch) < 1:
            fail(f"batch {batch!r} is not a positive integer", "derive")
        return model, data, int(batch)

    if kind == "catalog":
        need(3, "catalog:<device>:<peak key or bandwidth>")
        device_and_peak(parts[1], parts[2], True)
        dim = "bandwidth" if parts[2] == "bandwidth" else "flop_rate"
        return Derive("catalog", dim, device=parts[1], peak=parts[2])
    if kind == "ridge":
        need(3, "ridge:<device>:<peak key>")
        device_and_peak(parts[1], parts[2], False)
        return Derive("ridge", "intensity", device=parts[1], peak=parts[2])
    if kind == "at_peak":
        need(4, "at_peak:<FLOPs>:<device>:<peak key>")
        try:
            flops = float(parts[1])
        except ValueError:
            fail(f"{parts[1]!r} is not a FLOP count (write 270e9)", "derive")
        device_and_peak(parts[2], parts[3], False)
        return Derive("at_peak", "time", device=parts[2], peak=parts[3], flops=flops)
    if kind == "analytic":
        need(5, "analytic:<model>:<dataset>:<batch>:<quantity>")
        model, data, batch = configuration(parts[1], parts[2], parts[3])
        quantity = parts[4]
        if quantity not in ANALYTIC_QUANTITIES:
            fail(unknown_name("analytic quantity", quantity, ANALYTIC_QUANTITIES), "derive")
        return Derive(
            "analytic",
            ANALYTIC_QUANTITIES[quantity],
            model=model,
            dataset=data,
            batch=batch,
            quantity=quantity,
        )
    if kind == "measured":
        need(7, "measured:<model>:<dataset>:<batch>:<phase>:step_time:<cpu|cuda>")
        model, data, batch = configuration(parts[1], parts[2], parts[3])
        phase, quantity, kind_of_device = parts[4], parts[5], parts[6]
        if phase not in ("train_step", "inference") or quantity != "step_time":
            fail(f"{phase}:{quantity} is not train_step|inference:step_time", "derive")
        if kind_of_device not in ("cpu", "cuda"):
            fail(f"device {kind_of_device!r} is not cpu or cuda", "derive")
        # the device kind is part of the configuration: a GPU run never stands in for a
        # published CPU time
        return Derive(
            "measured",
            "time",
            device=kind_of_device,
            model=model,
            dataset=data,
            batch=batch,
            quantity=phase,
        )
    if kind in ("quotient", "gain"):  # a gain: the quotient less 1, e.g. +5.7 %
        need(3, f"{kind}:<row id>:<row id>")
        return Derive(kind, "", rows=(parts[1], parts[2]))
    if kind == "mean":
        need(2, "mean:<row id>,<row id>,...")
        return Derive("mean", "", rows=tuple(parts[1].split(",")))
    if kind == "floor":
        if len(parts) not in (7, 8) or (len(parts) == 8 and not parts[7].isdigit()):
            fail(
                f"derive key {text!r} is not "
                "floor:<model>:<dataset>:<batch>:<FLOP quantity>:<device>:<peak key>[:<steps>]",
                "derive",
            )
        model, data, batch = configuration(parts[1], parts[2], parts[3])
        if parts[4] not in FLOP_QUANTITIES:
            fail(unknown_name("FLOP quantity", parts[4], dict.fromkeys(FLOP_QUANTITIES)), "derive")
        device_and_peak(parts[5], parts[6], False)
        return Derive(
            "floor", "time", device=parts[5], peak=parts[6], model=model, dataset=data,
            batch=batch, quantity=parts[4], steps=int(parts[7]) if len(parts) == 8 else 1,
        )  # fmt: skip
    if kind == "rate_from":
        need(5, "rate_from:<model>:<dataset>:<batch>:<row id of the report's time or img/s>")
        model, data, batch = configuration(parts[1], parts[2], parts[3])
        return Derive(
            "rate_from", "flop_rate", model=model, dataset=data, batch=batch, rows=(parts[4],)
        )
    if kind in ("cycles", "clock"):
        if kind == "clock":
            need(2, "clock:<device>")
            device_and_peak(parts[1], "fp32", False)
            return Derive("clock", "frequency", device=parts[1])
        if len(parts) not in (3, 4):
            fail(f"derive key {text!r} is not cycles:<cycles>:<device>[:<FLOPs>]", "derive")
        try:
            cycles, flops = float(parts[1]), float(parts[3]) if len(parts) == 4 else 0.0
        except ValueError:
            fail(f"{text!r}: cycles and FLOPs must be numbers", "derive")
        device_and_peak(parts[2], "fp32", False)
        dimension = "flop_rate" if flops else "time"
        return Derive("cycles", dimension, device=parts[2], cycles=cycles, flops=flops)
    if kind == "recorded":
        need(1, "recorded")
        return Derive("recorded", "")
    if kind == "imported":
        need(3, "imported:<folder>:<quantity>")
        if parts[2] not in IMPORTED_QUANTITIES:
            fail(unknown_name("imported quantity", parts[2], IMPORTED_QUANTITIES), "derive")
        return Derive("imported", IMPORTED_QUANTITIES[parts[2]], folder=parts[1], quantity=parts[2])
    fail(f"derive key {text!r} has unknown kind {kind!r}", "derive")
