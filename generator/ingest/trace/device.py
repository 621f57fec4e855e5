"""Which device a trace ran on: `deviceProperties`, else the kernels' architecture tags,
else the user's `--device`. A trace without kernels ran on the CPU."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from generator.analysis.roofline import DeviceMatch
from generator.catalog import (
    PRODUCTS_WITH_CC,
    devices_with_cc,
    find_device,
    load_catalog,
    lookup_device,
)
from generator.ingest.trace.read import RawTrace

# sm80_xmma..., cutlass_80_tensorop..., sm90_gemm...: the architecture a kernel was built for.
ARCH_TAG = re.compile(r"(?:sm|cutlass)_?(\d{2,3})a?_")
AMD_WARP = 64  # NVIDIA warps are 32 threads; AMD CDNA wavefronts 64


def _properties(trace: RawTrace) -> dict[str, Any] | None:
    """The deviceProperties entry of the GPU most kernels ran on."""
    if not trace.device_properties:
        return None
    used = Counter(d for d in trace.kernels.device if d is not None)
    wanted = used.most_common(1)[0][0] if used else 0
    for entry in trace.device_properties:
        if entry.get("id") == wanted:
            return entry
    return trace.device_properties[0]


def _amd(entry: dict[str, Any]) -> DeviceMatch:
    units = entry.get("numSms")
    matches = [d for d in load_catalog() if d.vendor == "AMD" and d.sm_count == units]
    if len(matches) == 1:
        return DeviceMatch(matches[0], "AMD compute-unit count in deviceProperties", (), "")
    return DeviceMatch(
        None,
        "",
        (),
        f"an AMD GPU with {units} compute units ({entry.get('name')!r}) that the catalog "
        "lacks: pass --device",
    )


def match_trace_device(trace: RawTrace, requested: str | None) -> DeviceMatch:
    if requested:
        return DeviceMatch(find_device(requested), "named", (), "")
    if not len(trace.kernels):
        return DeviceMatch(None, "", (), "CPU trace (no GPU kernels): the CPU's measured ceilings")
    entry = _properties(trace)
    if entry is not None:
        if entry.get("warpSize") == AMD_WARP:
            return _amd(entry)
        device = lookup_device(str(entry.get("name", "")))
        if device is not None:
            return DeviceMatch(device, "device name in deviceProperties", (), "")
        cc = f"{entry.get('computeMajor')}.{entry.get('computeMinor')}"
        return _by_cc(cc, f"deviceProperties names {entry.get('name')!r}, not in the catalog")
    tags = Counter(
        f"{m.group(1)[:-1]}.{m.group(1)[-1]}"
        for name in trace.kernels.name
        for m in ARCH_TAG.finditer(name)
    )
    if tags:
        cc = tags.most_common(1)[0][0]
        return _by_cc(cc, "no deviceProperties; kernel names are built for this architecture")
    return DeviceMatch(
        None, "", (), "no deviceProperties and no architecture in kernel names: pass --device"
    )


def _by_cc(cc: str, why: str) -> DeviceMatch:
    names = tuple(d.id for d in devices_with_cc(cc))
    products = PRODUCTS_WITH_CC.get(cc, "")
    shared = f" ({products})" if products else ""
    return DeviceMatch(
        None,
        "",
        names,
        f"{why}: compute capability {cc}{shared}; pass --device "
        + (f"(catalog devices with it: {', '.join(names)})" if names else "with the GPU it ran on"),
    )
