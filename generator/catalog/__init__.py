"""Device datasheet catalog: peaks per precision, bandwidth, memory, sources.

All rates are converted to base units on load (FLOP/s, byte/s) so nothing downstream scales.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from generator.errors import UserError
from generator.records.peaks import PEAK_KEYS
from generator.records.versioned import upgrade

CATALOG_PATH = Path(__file__).with_name("hardware.toml")
SCHEMA_VERSION = 1

_REQUIRED = {
    "id": str,
    "name": str,
    "aliases": list,
    "vendor": str,
    "kind": str,
    "architecture": str,
    "compute_capability": str,
    "memory_gb": (int, float),
    "memory_bandwidth_gbs": (int, float),
    "tdp_w": (int, float),
    "sm_count": int,
    "boost_clock_mhz": (int, float),
    "source": str,
    "derived": list,
    "notes": str,
    "peak_tflops": dict,
}


@dataclass(frozen=True)
class Device:
    id: str
    name: str
    aliases: tuple[str, ...]
    vendor: str
    kind: str
    architecture: str
    compute_capability: str
    memory_bytes: float
    bandwidth_bytes_per_s: float
    tdp_w: float
    sm_count: int
    boost_clock_hz: float
    source: str
    derived: tuple[str, ...]
    notes: str
    peaks_flops_per_s: dict[str, float] = field(default_factory=dict)
    # On-demand rental price range per device-hour across providers, where one is cited.
    price_usd_per_hour: tuple[float, float] | None = None
    price_source: str = ""
    # L1 and L2 bandwidths for the hierarchical roofline, only where a public source gives
    # them (cache_source, the derivation in cache_notes); None draws no roof for the level.
    l1_bandwidth_bytes_per_s: float | None = None
    l2_bandwidth_bytes_per_s: float | None = None
    cache_source: str = ""
    cache_notes: str = ""
    # The memory technology (HBM2e, GDDR6, ...) where the datasheet states it, else "".
    memory_type: str = ""
    # FP32 CUDA cores per SM where the vendor states it: the FP32 peak's derivation
    # (catalog/derivation.py) multiplies it out.
    fp32_cores_per_sm: int | None = None

    def peak(self, key: str) -> float | None:
        return self.peaks_flops_per_s.get(key)


def _normalise(name: str) -> str:
    name = name.lower().replace("nvidia", "").replace("geforce", "").replace("tesla", "")
    return re.sub(r"[\s_\-]+", " ", name).strip()


_OPTIONAL = (
    "price_usd_per_hour",
    "price_source",
    "l1_bandwidth_gbs",
    "l2_bandwidth_gbs",
    "cache_source",
    "cache_notes",
    "memory_type",
    "fp32_cores_per_sm",
)
_CACHE_KEYS = ("l1_bandwidth_gbs", "l2_bandwidth_gbs")


def _price(entry: dict[str, object], path: Path, where: str) -> tuple[float, float] | None:
    """[low, high] US$ per device-hour with the page it was read from, or None."""
    price, source = entry.get("price_usd_per_hour"), entry.get("price_source")
    if price is None and source is None:
        return None
    key = f"{where}.price_usd_per_hour"
    if (
        not isinstance(price, list)
        or len(price) != 2
        or not all(isinstance(v, int | float) and v > 0 for v in price)
        or price[0] > price[1]
    ):
        raise UserError(
            f"{key} must be [low, high], two positive numbers with low <= high",
            file=path,
            key=key,
            fix="write e.g. price_usd_per_hour = [1.99, 5.00] (one price: [2.5, 2.5])",
        )
    if not isinstance(source, str) or not source.startswith("http"):
        raise UserError(
            f"{where} has a price without a price_source URL",
            file=path,
            key=f"{where}.price_source",
            fix="cite the page the prices were read from (and its date) in price_source",
        )
    return (float(price[0]), float(price[1]))


def _cache_bandwidths(
    entry: dict[str, object], path: Path, where: str
) -> tuple[float | None, float | None]:
    """(L1, L2) in byte/s, each None where the entry states none; a stated one must be
    positive and cite its source, since a guessed cache ceiling would misjudge kernels."""
    values: list[float | None] = []
    for key in _CACHE_KEYS:
        value = entry.get(key)
        if value is not None and (not isinstance(value, int | float) or value <= 0):
            raise UserError(
                f"{where}.{key} must be a positive number (GB/s)",
                file=path,
                key=f"{where}.{key}",
            )
        values.append(None if value is None else float(value) * 1e9)
    source = entry.get("cache_source")
    if any(v is not None for v in values) and (
        not isinstance(source, str) or not source.startswith("http")
    ):
        raise UserError(
            f"{where} has an L1/L2 bandwidth without a cache_source URL",
            file=path,
            key=f"{where}.cache_source",
            fix="cite the page the cache bandwidth was read from in cache_source, "
            "or leave the bandwidth out",
        )
    for key in ("cache_source", "cache_notes"):
        if key in entry and not isinstance(entry[key], str):
            raise UserError(
                f"{where}.{key} has the wrong type ({type(entry[key]).__name__})",
                file=path,
                key=f"{where}.{key}",
            )
    return values[0], values[1]


def _board(entry: dict[str, object], path: Path, where: str) -> tuple[str, int | None]:
    """(memory type, FP32 cores per SM), each optional: a type is a word such as HBM2e, a
    core count a positive integer (it multiplies out to the FP32 peak)."""
    memory_type = entry.get("memory_type", "")
    if not isinstance(memory_type, str) or ("memory_type" in entry and not memory_type.strip()):
        raise UserError(
            f"{where}.memory_type must be the datasheet's memory technology as text",
            file=path,
            key=f"{where}.memory_type",
            fix='write e.g. memory_type = "HBM2e", or leave the key out',
        )
    cores = entry.get("fp32_cores_per_sm")
    if cores is not None and (isinstance(cores, bool) or not isinstance(cores, int) or cores < 1):
        raise UserError(
            f"{where}.fp32_cores_per_sm must be a positive integer",
            file=path,
            key=f"{where}.fp32_cores_per_sm",
            fix="write e.g. fp32_cores_per_sm = 64 (the vendor's FP32 CUDA cores per SM)",
        )
    return memory_type.strip(), cores


def _device(entry: dict[str, object], path: Path, index: int) -> Device:
    where = f"device[{index}]"
    for key, kind in _REQUIRED.items():
        if key not in entry:
            raise UserError(f"{where} lacks '{key}'", file=path, key=f"{where}.{key}")
        if not isinstance(entry[key], kind):  # type: ignore[arg-type]
            raise UserError(
                f"{where}.{key} has the wrong type ({type(entry[key]).__name__})",
                file=path,
                key=f"{where}.{key}",
            )
    unknown = set(entry) - set(_REQUIRED) - set(_OPTIONAL)
    if unknown:
        raise UserError(
            f"{where} has unknown key(s): {', '.join(sorted(unknown))}",
            file=path,
            key=f"{where}.{sorted(unknown)[0]}",
            fix=f"known keys: {', '.join((*_REQUIRED, *_OPTIONAL))}",
        )
    peaks = entry["peak_tflops"]
    assert isinstance(peaks, dict)
    for key, value in peaks.items():
        if key not in PEAK_KEYS:
            raise UserError(
                f"{where}.peak_tflops.{key} is not a known precision",
                file=path,
                key=f"{where}.peak_tflops.{key}",
                fix=f"use one of {', '.join(PEAK_KEYS)}",
            )
        if not isinstance(value, int | float) or value <= 0:
            raise UserError(
                f"{where}.peak_tflops.{key} must be a positive number",
                file=path,
                key=f"{where}.peak_tflops.{key}",
            )
    l1_bandwidth, l2_bandwidth = _cache_bandwidths(entry, path, where)
    memory_type, fp32_cores_per_sm = _board(entry, path, where)
    return Device(
        id=str(entry["id"]),
        name=str(entry["name"]),
        aliases=tuple(str(a) for a in entry["aliases"]),  # type: ignore[attr-defined]
        vendor=str(entry["vendor"]),
        kind=str(entry["kind"]),
        architecture=str(entry["architecture"]),
        compute_capability=str(entry["compute_capability"]),
        memory_bytes=float(entry["memory_gb"]) * 1e9,  # type: ignore[arg-type]
        bandwidth_bytes_per_s=float(entry["memory_bandwidth_gbs"]) * 1e9,  # type: ignore[arg-type]
        tdp_w=float(entry["tdp_w"]),  # type: ignore[arg-type]
        sm_count=int(entry["sm_count"]),  # type: ignore[call-overload]
        boost_clock_hz=float(entry["boost_clock_mhz"]) * 1e6,  # type: ignore[arg-type]
        source=str(entry["source"]),
        derived=tuple(str(d) for d in entry["derived"]),  # type: ignore[attr-defined]
        notes=str(entry["notes"]),
        peaks_flops_per_s={k: float(v) * 1e12 for k, v in peaks.items()},
        price_usd_per_hour=_price(entry, path, where),
        price_source=str(entry.get("price_source", "")),
        l1_bandwidth_bytes_per_s=l1_bandwidth,
        l2_bandwidth_bytes_per_s=l2_bandwidth,
        cache_source=str(entry.get("cache_source", "")),
        cache_notes=str(entry.get("cache_notes", "")),
        memory_type=memory_type,
        fp32_cores_per_sm=fp32_cores_per_sm,
    )


@cache
def load_catalog(path: Path = CATALOG_PATH) -> tuple[Device, ...]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise UserError(f"invalid TOML: {err}", file=path) from err
    data = upgrade(data, path, SCHEMA_VERSION)
    devices = tuple(_device(e, path, i) for i, e in enumerate(data.get("device", [])))
    ids = [d.id for d in devices]
    duplicated = {i for i in ids if ids.count(i) > 1}
    if duplicated:
        raise UserError(f"duplicate device id(s): {', '.join(sorted(duplicated))}", file=path)
    return devices


def lookup_device(name: str, catalog: tuple[Device, ...] | None = None) -> Device | None:
    """A device by id, name or alias (case and 'NVIDIA'/'GeForce' insensitive), or None."""
    catalog = catalog if catalog is not None else load_catalog()
    wanted = _normalise(name)
    for device in catalog:
        if wanted in {_normalise(n) for n in (device.id, device.name, *device.aliases)}:
            return device
    return None


@cache  # one name per run: thousands of calls at scale, each a walk of the catalog
def device_label(name: str) -> str:
    """One name per physical device: a run records what the driver says ("NVIDIA H100 80GB
    HBM3"), an export's match the catalog's ("NVIDIA H100 SXM"); the catalog's wins."""
    device = lookup_device(name)
    return device.name if device else name  # else a CPU, or a GPU the catalog lacks


def find_device(name: str, catalog: tuple[Device, ...] | None = None) -> Device:
    """lookup_device, where a name the catalog lacks is the user's error."""
    catalog = catalog if catalog is not None else load_catalog()
    device = lookup_device(name, catalog)
    if device is not None:
        return device
    raise UserError(
        f"unknown device {name!r}",
        key="--device",
        fix="use one of: " + ", ".join(d.id for d in catalog),
    )


# Products that share a compute capability, the catalog's and others: an export records the
# CC, not the product, so a CC alone never names a device (a Jetson Orin Nano and an AGX Orin
# are both 8.7, a B200 and a GB200 both 10.0).
PRODUCTS_WITH_CC: dict[str, str] = {
    "6.0": "P100",
    "6.1": "GTX 10xx, P4, P40",
    "7.0": "V100 SXM2 and PCIe, Titan V",
    "7.2": "Jetson AGX Xavier, Xavier NX",
    "7.5": "T4, RTX 20xx, Quadro RTX, GTX 16xx",
    "8.0": "A100 SXM and PCIe, A30",
    "8.6": "RTX 30xx, A10, A40, RTX A6000, A2, A16",
    "8.7": "Jetson AGX Orin, Orin NX, Orin Nano",
    "8.9": "L4, L40, L40S, RTX 40xx, RTX 6000 Ada",
    "9.0": "H100 SXM, PCIe and NVL, H200, GH200",
    "10.0": "B200, B100, GB200",
    "12.0": "RTX 50xx, RTX PRO 6000 Blackwell",
}


def devices_with_cc(cc: str, catalog: tuple[Device, ...] | None = None) -> list[Device]:
    catalog = catalog if catalog is not None else load_catalog()
    return [d for d in catalog if cc and d.compute_capability == cc]
