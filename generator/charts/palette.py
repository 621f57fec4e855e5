"""One colour per device across the whole report, keyed by the catalog's device id: a
device has the same hue on every chart, and no two catalog devices share one.

The devices the report measures most take the Okabe–Ito hues (told apart by colour-blind
readers); the rest take colours picked from the sRGB grid, each as far as it could be (in
CIELAB) from the ones before it, between lightness 35 and 80 so that they read on the
light and the dark theme. tests/test_chart_legibility.py holds every pair at least
`MIN_DELTA_E` apart and every catalog device in the table."""

from __future__ import annotations

import hashlib
from functools import cache

from generator.catalog import lookup_device

MIN_DELTA_E = 25.0  # CIE76 distance between any two device colours

DEVICE_COLOURS: dict[str, str] = {
    # measured in the report: Okabe–Ito
    "h100-sxm": "#0072B2",  # blue
    "amd-epyc-zen5-vm-2vcpu": "#E69F00",  # orange
    "l4": "#009E73",  # bluish green
    "mi250-gcd": "#D55E00",  # vermillion
    "a100-40gb-sxm": "#CC79A7",  # reddish purple
    "rtx-2080-ti": "#F0E442",  # yellow
    "colab-xeon-2vcpu": "#999999",  # grey
    # the rest of the catalog, in its order
    "t4": "#5500FF",
    "v100-sxm2-16gb": "#00DD00",
    "v100-sxm2-32gb": "#FF11DD",
    "v100-pcie": "#FF0066",
    "a100-80gb-sxm": "#9977FF",
    "a100-40gb-pcie": "#666611",
    "a100-80gb-pcie": "#FFAA88",
    "h100-pcie": "#00CCEE",
    "h200-sxm": "#993333",
    "rtx-4080-laptop": "#008800",
    "rtx-5070": "#991188",
    "rtx-5090": "#BBCC88",
    "b200": "#FF0022",
    "rtx-3080": "#BBBBFF",
    "rtx-3090": "#00DD77",
    "a10": "#006666",
    "a40": "#9911CC",
    "rtx-a6000": "#664488",
    "rtx-4090": "#FF44AA",
    "l40s": "#0044EE",
    "jetson-agx-orin": "#FF88FF",
    "h100-nvl": "#88CC22",
    "gh200": "#FF7788",
    "tpu-v4": "#775544",
    "tpu7x": "#0088FF",
    "grace-cpu-superchip": "#AA0055",
    "mi350x": "#884400",
    "intel-core-i9-14900hx": "#88CCBB",
}
# Devices the catalog lacks (a CPU measured elsewhere): one of these by a hash of the name,
# the same on every page; their marker and dash tell two of them apart.
SPARE_COLOURS: tuple[str, ...] = ("#999900", "#226622", "#AA0000", "#BB9955", "#555566")


@cache  # a name per device: called for every device on every chart
def device_colour(name: str) -> str:
    """The colour of a device by its catalog id, name or alias; a device the catalog lacks
    takes a spare colour by its name."""
    device = lookup_device(name)
    if device is not None and device.id in DEVICE_COLOURS:
        return DEVICE_COLOURS[device.id]
    digest = hashlib.sha256(name.encode()).digest()
    return SPARE_COLOURS[digest[0] % len(SPARE_COLOURS)]
