"""A device's roofs, by one rule and one device key, so that the same device shows the same
memory roof and the same compute roof for a precision on every page.

The key is the device's label (`catalog.device_label`: the catalog's name where it knows the
device, else the name the run recorded). Two sources, each labelled as such:

- MEASURED: the ceilings measured on the machine (`measure` writes them): the best GEMM rate
  of the precision, and the memory roof is the best of the STREAM copy and triad rates (a
  ceiling is the highest rate attained; one memory roof per device, whatever the precision);
- DATASHEET: the catalog's dense peak of the precision and its DRAM bandwidth.

`roof` prefers the measured roof of a device, and takes the datasheet where none (or no
memory rate) was measured: the one rule every run page, experiment page and device choice
follows. Precisions are the catalog's peak keys (`fp32`, `tf32_tensor`, `bf16_tensor`,
`fp16_tensor`); `PEAK_OF_RUN` maps a run's configured precision onto them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from generator.catalog import Device, device_label, lookup_device
from generator.records.ceilings import MeasuredCeilings

MEASURED, DATASHEET = "measured", "datasheet"
# A run's precision (experiments.toml) -> the catalog peak it runs against
PEAK_OF_RUN = {"fp32": "fp32", "tf32": "tf32_tensor", "bf16-amp": "bf16_tensor",
               "fp16-amp": "fp16_tensor"}  # fmt: skip
# A catalog peak -> the measured GEMM ceiling of that precision (records.ceilings keys)
GEMM_OF_PEAK = {"fp32": "fp32", "tf32_tensor": "tf32", "bf16_tensor": "bf16",
                "fp16_tensor": "fp16"}  # fmt: skip


@dataclass(frozen=True)
class Roof:
    label: str  # e.g. "NVIDIA H100 SXM fp32 datasheet", "AMD EPYC (2 threads) fp32 measured"
    peak_flops_per_s: float
    bandwidth_bytes_per_s: float
    source: str = DATASHEET  # MEASURED or DATASHEET

    @property
    def ridge_ai(self) -> float:
        return self.peak_flops_per_s / self.bandwidth_bytes_per_s

    def at(self, ai: float) -> float:
        return min(self.peak_flops_per_s, ai * self.bandwidth_bytes_per_s)


def measured_bandwidth(measured: MeasuredCeilings) -> float | None:
    """A device's one measured memory roof: the best of its copy and triad rates."""
    streams = [b for b in (measured.copy_bytes_per_s, measured.triad_bytes_per_s) if b]
    return max(streams) if streams else None


def roof_for(
    device: str,
    precision: str,
    kind: str,
    ceilings: Sequence[MeasuredCeilings] = (),
    catalog: tuple[Device, ...] | None = None,
) -> Roof | None:
    """The `kind` (MEASURED or DATASHEET) roof of `device` (a label, or any name the catalog
    knows) at `precision` (a catalog peak key); None where that source lacks it."""
    label = device_label(device)
    if kind == MEASURED:
        gemm_key = GEMM_OF_PEAK.get(precision, "")
        for measured in ceilings:
            if device_label(measured.device_name) != label:
                continue
            gemm = measured.gemm_flops_per_s.get(gemm_key)
            bandwidth = measured_bandwidth(measured)
            if gemm and bandwidth:
                return Roof(f"{label} {precision} measured", gemm, bandwidth, MEASURED)
        return None
    known = lookup_device(device, catalog)
    peak = known.peak(precision) if known else None
    if known is None or not peak:
        return None
    return Roof(f"{known.name} {precision} datasheet", peak, known.bandwidth_bytes_per_s)


def roof(
    device: str,
    precision: str,
    ceilings: Sequence[MeasuredCeilings] = (),
    catalog: tuple[Device, ...] | None = None,
) -> Roof | None:
    """The roof a point of `device` at `precision` sits under: measured, else datasheet."""
    return roof_for(device, precision, MEASURED, ceilings, catalog) or roof_for(
        device, precision, DATASHEET, ceilings, catalog
    )


# (device label, a run's precision) -> (the GEMM key of its precision, its measured FLOP/s)
CeilingOf = Callable[[str, str], tuple[str, float] | None]


def gemm_ceiling(
    device: str, run_precision: str, ceilings: Sequence[MeasuredCeilings] = ()
) -> tuple[str, float] | None:
    """The measured GEMM ceiling a step of `run_precision` (experiments.toml's name) is
    compared with: its own precision's (PEAK_OF_RUN, then GEMM_OF_PEAK: the peak of the
    measured roof `roof_for` draws for it), never another precision's, on the device of that
    label. (Its GEMM key, e.g. "bf16", and its FLOP/s), or None where not measured."""
    peak = PEAK_OF_RUN.get(run_precision, run_precision)
    key = GEMM_OF_PEAK.get(peak, peak)
    label = device_label(device)
    for measured in ceilings:
        if device_label(measured.device_name) == label and (
            gemm := measured.gemm_flops_per_s.get(key)
        ):
            return key, gemm
    return None


def ceiling_of(ceilings: Sequence[MeasuredCeilings]) -> CeilingOf:
    """`gemm_ceiling` over these ceilings: what a page or a verdict is handed."""
    return partial(_ceiling, tuple(ceilings))


def _ceiling(
    ceilings: tuple[MeasuredCeilings, ...], device: str, run_precision: str
) -> tuple[str, float] | None:
    return gemm_ceiling(device, run_precision, ceilings)
