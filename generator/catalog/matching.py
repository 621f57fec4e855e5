"""Which catalog device a file's numbers ran on, and how we know: the user's `--device`, the
device name the file recorded, else the compute capability (or the architecture a trace's
kernels were built for), which only narrows the candidates. The name the file recorded is
kept beside the match so that a reader can check it."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from generator.catalog import (
    PRODUCTS_WITH_CC,
    Device,
    devices_with_cc,
    find_device,
    load_catalog,
    lookup_device,
)
from generator.errors import UserError

# sm80_xmma..., cutlass_80_tensorop..., sm90_gemm...: the architecture a kernel was built for.
ARCH_TAG = re.compile(r"(?:sm|cutlass)_?(\d{2,3})a?_")
AMD_WARP = 64  # NVIDIA warps are 32 threads; AMD CDNA wavefronts 64


@dataclass(frozen=True)
class DeviceMatch:
    device: Device | None
    how: str  # "named", "device name in the export", ... ; "" when unmatched
    candidates: tuple[str, ...]
    note: str
    recorded: str | None = None  # the device name the file itself recorded, verbatim

    def names(self) -> dict[str, str | None]:
        """The recorded name and the catalog entry it was matched to, side by side."""
        return {"recorded": self.recorded, "catalog": self.device.id if self.device else None}


def match_device(kernels: pl.DataFrame, requested: str | None) -> DeviceMatch:
    """An ncu export's device: the user's if named, else the export's device name. A compute
    capability alone only narrows the candidates: several products share each one
    (PRODUCTS_WITH_CC)."""
    device_names = sorted({n for n in kernels["device_name"].drop_nulls().to_list() if n})
    recorded = ", ".join(device_names) or None
    if requested:
        return DeviceMatch(find_device(requested), "named", (), "", recorded)
    if len(device_names) == 1:
        try:
            device = find_device(device_names[0])
            return DeviceMatch(device, "device name in the export", (), "", recorded)
        except UserError:
            pass  # a GPU the catalog lacks: fall back to the compute capability
    ccs = sorted({c for c in kernels["cc"].drop_nulls().to_list() if c})
    if not ccs:
        note = "the export records no compute capability: pass --device"
        return DeviceMatch(None, "", (), note, recorded)
    if len(ccs) > 1:
        note = f"kernels ran on several compute capabilities ({', '.join(ccs)}): pass --device"
        return DeviceMatch(None, "", (), note, recorded)
    names = tuple(d.id for d in devices_with_cc(ccs[0]))
    products = PRODUCTS_WITH_CC.get(ccs[0])
    shared = f" (compute capability {ccs[0]} is {products})" if products else ""
    if not names:
        note = f"no catalog device has compute capability {ccs[0]}{shared}: pass --device"
        return DeviceMatch(None, "", (), note, recorded)
    return DeviceMatch(
        None,
        "",
        names,
        f"{_what_it_records(device_names, ccs[0])}{shared}; "
        f"catalog devices with it: {', '.join(names)}: pass --device with the one it ran on",
        recorded,
    )


def _main_properties(
    device_properties: Sequence[dict[str, Any]], kernel_devices: Sequence[int | None]
) -> dict[str, Any] | None:
    """The deviceProperties entry of the GPU most kernels ran on."""
    if not device_properties:
        return None
    used = Counter(d for d in kernel_devices if d is not None)
    wanted = used.most_common(1)[0][0] if used else 0
    for entry in device_properties:
        if entry.get("id") == wanted:
            return entry
    return device_properties[0]


def _amd(entry: dict[str, Any], recorded: str | None) -> DeviceMatch:
    units = entry.get("numSms")
    matches = [d for d in load_catalog() if d.vendor == "AMD" and d.sm_count == units]
    if len(matches) == 1:
        how = "AMD compute-unit count in deviceProperties"
        return DeviceMatch(matches[0], how, (), "", recorded)
    return DeviceMatch(
        None,
        "",
        (),
        f"an AMD GPU with {units} compute units ({entry.get('name')!r}) that the catalog "
        "lacks: pass --device",
        recorded,
    )


def match_trace_device(
    device_properties: Sequence[dict[str, Any]],
    kernel_devices: Sequence[int | None],
    kernel_names: Sequence[str],
    requested: str | None,
) -> DeviceMatch:
    """A torch.profiler trace's device: `--device`, else `deviceProperties`, else the
    architecture tags of its kernels' names. A trace without kernels ran on the CPU."""
    entry = _main_properties(device_properties, kernel_devices)
    recorded = str(entry["name"]) if entry is not None and entry.get("name") else None
    if requested:
        return DeviceMatch(find_device(requested), "named", (), "", recorded)
    if not len(kernel_names):
        note = "CPU trace (no GPU kernels): the CPU's measured ceilings"
        return DeviceMatch(None, "", (), note, recorded)
    if entry is not None:
        if entry.get("warpSize") == AMD_WARP:
            return _amd(entry, recorded)
        device = lookup_device(str(entry.get("name", "")))
        if device is not None:
            return DeviceMatch(device, "device name in deviceProperties", (), "", recorded)
        cc = f"{entry.get('computeMajor')}.{entry.get('computeMinor')}"
        why = f"deviceProperties names {entry.get('name')!r}, not in the catalog"
        return _by_cc(cc, why, recorded)
    tags = Counter(
        f"{m.group(1)[:-1]}.{m.group(1)[-1]}"
        for name in kernel_names
        for m in ARCH_TAG.finditer(name)
    )
    if tags:
        cc = tags.most_common(1)[0][0]
        why = "no deviceProperties; kernel names are built for this architecture"
        return _by_cc(cc, why, recorded)
    note = "no deviceProperties and no architecture in kernel names: pass --device"
    return DeviceMatch(None, "", (), note, recorded)


def _by_cc(cc: str, why: str, recorded: str | None) -> DeviceMatch:
    names = tuple(d.id for d in devices_with_cc(cc))
    products = PRODUCTS_WITH_CC.get(cc, "")
    shared = f" ({products})" if products else ""
    return DeviceMatch(
        None,
        "",
        names,
        f"{why}: compute capability {cc}{shared}; pass --device "
        + (f"(catalog devices with it: {', '.join(names)})" if names else "with the GPU it ran on"),
        recorded,
    )


def _what_it_records(device_names: list[str], cc: str) -> str:
    """The start of the note: a name the catalog lacks (an H800, an A10G) is said as such,
    never as a file without a name."""
    if len(device_names) == 1:
        return (
            f"the export names {device_names[0]!r}, which the catalog lacks, and records "
            f"compute capability {cc}"
        )
    return f"the export records compute capability {cc}, not the GPU's name"
