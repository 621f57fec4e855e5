"""The roof: one type, chosen by one function, so that a device shows the same memory roof
and the same compute roof for a precision on every page, and every chart draws the roof its
page's verdict names.

`roof_for(device, precision, kind)` is the only place a roof is chosen (docs/architecture.md,
"The roof"):

- the device key is the device's label (`catalog.device_label`: the catalog's name where it
  knows the device, else the name the run recorded); a ceilings file's id names it too;
- the precision is any name a run, a counter or a GEMM gives it, mapped by the one map
  `PEAK_OF` onto the catalog's peak keys (`fp32`, `tf32_tensor`, `bf16_tensor`, ...);
- two sources, each labelled as such: MEASURED, the ceilings measured on the machine
  (`measure` writes them: the best GEMM rate of the precision, and one memory roof per
  device, the best of its STREAM copy and triad rates); DATASHEET, the catalog's dense
  peak of the precision and its DRAM bandwidth;
- PREFERRED (the default) takes the measured roof, and the datasheet where none was
  measured: imported captures of devices we have no ceilings for get the datasheet's.

A device without a datasheet (a CPU) has one GEMM path: a precision it did not measure runs
against its measured fp32 GEMM."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from generator.catalog import Device, device_label, lookup_device
from generator.records.ceilings import MeasuredCeilings

MEASURED, DATASHEET = "measured", "datasheet"
PREFERRED = "measured, else datasheet"
# How a page names a roof's source beside the device
SOURCE_WORDS = {MEASURED: "measured ceilings", DATASHEET: "catalog datasheet"}
# The one precision map: a precision as a run (experiments.toml) or a counter (ncu's FLOP
# terms, analysis/roofline.py) names it -> the catalog peak it runs against. A catalog peak
# key maps to itself (absent here).
PEAK_OF: dict[str, str] = {
    # a run's configured precision
    "tf32": "tf32_tensor", "bf16-amp": "bf16_tensor", "fp16-amp": "fp16_tensor",
    # a counted precision (ncu): CUDA-core fp64/fp32/fp16 are catalog keys themselves
    "tensor_fp16": "fp16_tensor", "tensor_bf16": "bf16_tensor", "tensor_tf32": "tf32_tensor",
    "tensor_fp64": "fp64_tensor", "tensor_fp8": "fp8_tensor",
}  # fmt: skip
# A catalog peak -> the measured GEMM ceiling of that precision (records.ceilings keys)
GEMM_OF_PEAK = {"fp32": "fp32", "tf32_tensor": "tf32", "bf16_tensor": "bf16",
                "fp16_tensor": "fp16"}  # fmt: skip


@dataclass(frozen=True)
class Roof:
    """One device's roof for one precision: a flat compute peak and a memory slope."""

    device: str  # the device's label (catalog name, else the recorded name)
    precision: str  # a catalog peak key
    peak_flops_per_s: float
    bandwidth_bytes_per_s: float
    source: str = DATASHEET  # MEASURED or DATASHEET

    @property
    def label(self) -> str:
        """e.g. "NVIDIA H100 SXM fp32 datasheet", "AMD EPYC (2 threads) fp32 measured"."""
        return f"{self.device} {self.precision} {self.source}"

    @property
    def ridge_ai(self) -> float:
        return self.peak_flops_per_s / self.bandwidth_bytes_per_s

    def at(self, ai: float) -> float:
        return min(self.peak_flops_per_s, ai * self.bandwidth_bytes_per_s)


def peak_key(precision: str) -> str:
    """The catalog peak key of a precision as a run, a counter or the catalog names it."""
    return PEAK_OF.get(precision, precision)


def measured_bandwidth(measured: MeasuredCeilings) -> float | None:
    """A device's one measured memory roof: the best of its copy and triad rates."""
    streams = [b for b in (measured.copy_bytes_per_s, measured.triad_bytes_per_s) if b]
    return max(streams) if streams else None


def measured_of(device: str, ceilings: Sequence[MeasuredCeilings]) -> MeasuredCeilings | None:
    """The ceilings measured on `device` (its label, any name of it, or its file's id)."""
    label = device_label(device)
    for measured in ceilings:
        if device == measured.device_id or device_label(measured.device_name) == label:
            return measured
    return None


def roof_for(
    device: str,
    precision: str,
    kind: str = PREFERRED,
    ceilings: Sequence[MeasuredCeilings] = (),
    catalog: tuple[Device, ...] | None = None,
) -> Roof | None:
    """The `kind` (PREFERRED, MEASURED or DATASHEET) roof of `device` at `precision`; None
    where no source of that kind has it."""
    key = peak_key(precision)
    if kind == PREFERRED:
        return roof_for(device, key, MEASURED, ceilings, catalog) or roof_for(
            device, key, DATASHEET, ceilings, catalog
        )
    known = lookup_device(device, catalog)
    if kind == MEASURED:
        measured = measured_of(device, ceilings)
        if measured is None:
            return None
        rates = measured.gemm_flops_per_s
        gemm = rates.get(GEMM_OF_PEAK.get(key, ""))
        if gemm is None and known is None and lookup_device(measured.device_name, catalog) is None:
            gemm = rates.get("fp32")  # no datasheet (a CPU): one GEMM path
        bandwidth = measured_bandwidth(measured)
        if not gemm or not bandwidth:
            return None
        return Roof(device_label(measured.device_name), key, gemm, bandwidth, MEASURED)
    peak = known.peak(key) if known else None
    if known is None or not peak:
        return None
    return Roof(known.name, key, peak, known.bandwidth_bytes_per_s, DATASHEET)


def path_roofs(
    device: str | None,
    paths: Iterable[str],
    ceilings: Sequence[MeasuredCeilings] = (),
    catalog: tuple[Device, ...] | None = None,
) -> dict[str, Roof]:
    """The roof of each precision path (catalog peak key) of one device's work, by
    `roof_for`: a trace's ops and a capture's steps each sit under their path's."""
    if device is None:
        return {}
    found = {p: roof_for(device, p, PREFERRED, ceilings, catalog) for p in dict.fromkeys(paths)}
    return {p: r for p, r in found.items() if r is not None}


def roofs_named(roofs: Mapping[str, Roof]) -> tuple[str, str] | None:
    """The device and the source words of a set of path roofs, e.g. ("NVIDIA H100 SXM",
    "measured ceilings; catalog datasheet for fp64"); None without any."""
    if not roofs:
        return None
    devices = ", ".join(dict.fromkeys(r.device for r in roofs.values()))
    first = next(iter(roofs.values())).source
    others = [p for p, r in roofs.items() if r.source != first]
    other = DATASHEET if first == MEASURED else MEASURED
    words = SOURCE_WORDS[first] + (
        f"; {SOURCE_WORDS[other]} for {', '.join(others)}" if others else ""
    )
    return devices, words


def roofs_text(roofs: Mapping[str, Roof]) -> str:
    """`roofs_named` as a page writes it: "NVIDIA A100 SXM (catalog datasheet)", or "none"."""
    named = roofs_named(roofs)
    return f"{named[0]} ({named[1]})" if named else "none"


def roof_json(roofs: Mapping[str, Roof]) -> dict[str, str] | None:
    """`roofs_named` as a summary's JSON holds it: {"name", "source"}, or None."""
    named = roofs_named(roofs)
    return {"name": named[0], "source": named[1]} if named else None


# (device label, a run's precision) -> (the GEMM key of its precision, its measured FLOP/s)
CeilingOf = Callable[[str, str], tuple[str, float] | None]


def gemm_ceiling(
    device: str, run_precision: str, ceilings: Sequence[MeasuredCeilings] = ()
) -> tuple[str, float] | None:
    """The measured GEMM ceiling a step of `run_precision` is compared with: the peak of its
    measured roof (`roof_for`), never another precision's (nor a CPU's fp32 stand-in). (Its
    GEMM key, e.g. "bf16", and its FLOP/s), or None where not measured."""
    key = GEMM_OF_PEAK.get(peak_key(run_precision), "")
    measured = measured_of(device, ceilings)  # the device key and precision map roof_for uses
    gemm = measured.gemm_flops_per_s.get(key) if measured else None
    return (key, gemm) if gemm else None


def ceiling_of(ceilings: Sequence[MeasuredCeilings]) -> CeilingOf:
    """`gemm_ceiling` over these ceilings: what a page or a verdict is handed."""
    return partial(_ceiling, tuple(ceilings))


def _ceiling(
    ceilings: tuple[MeasuredCeilings, ...], device: str, run_precision: str
) -> tuple[str, float] | None:
    return gemm_ceiling(device, run_precision, ceilings)
