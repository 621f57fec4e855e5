"""One colour per device across the whole report, keyed by the catalog's device id: a
device has the same hue on every chart, and no two catalog devices share one.

The devices the report measures most take the Okabe–Ito hues (told apart by colour-blind
readers); the rest take colours picked from the sRGB grid, each as far as it could be (in
CIELAB) from the ones before it, between lightness 38 and 68 so that a roof's name in
its colour reads on the light and the dark theme (the last three, up to 80: the grid had
no darker one far enough from the rest). tests/test_report_charts.py holds every
pair at least `MIN_DELTA_E` apart and every catalog device in the table."""

from __future__ import annotations

import hashlib
from functools import cache

from generator.catalog import lookup_device

MIN_DELTA_E = 24.0  # CIE76 distance between any two device colours (spares included)

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
    "t4": "#6611FF",
    "v100-sxm2-16gb": "#FF00CC",
    "v100-sxm2-32gb": "#00BB00",
    "v100-pcie": "#FF0066",
    "a100-80gb-sxm": "#9977FF",
    "a100-40gb-pcie": "#666611",
    "a100-80gb-pcie": "#994433",
    "h100-pcie": "#FF0022",
    "h200-sxm": "#BB0077",
    "rtx-4080-laptop": "#117700",
    "rtx-5070": "#00AABB",
    "rtx-5090": "#CC9966",
    "b200": "#9900BB",
    "rtx-3080": "#774499",
    "rtx-3090": "#FF7777",
    "a10": "#88AA11",
    "a40": "#336655",
    "rtx-a6000": "#AA99EE",
    "rtx-4090": "#EE77EE",
    "l40s": "#665577",
    "jetson-agx-orin": "#0044EE",
    "h100-nvl": "#0088FF",
    "gh200": "#88AA66",
    "tpu-v4": "#EE00FF",
    "tpu7x": "#BB1122",
    "grace-cpu-superchip": "#996600",
    "mi350x": "#33BB55",
    "intel-core-i9-14900hx": "#BB3355",
    # named by public traces (HTA, TraceLens): no darker colour on the grid stood
    # MIN_DELTA_E from all the others, so these three are lighter (L 78-80)
    "v100-dgxs-32gb": "#00DDCC",
    "h800-sxm": "#DDBBDD",
    "rtx-4090-d": "#99CCBB",
}
# Devices the catalog lacks (a CPU measured elsewhere): one of these by a hash of the name,
# the same on every page; their marker and dash tell two of them apart.
SPARE_COLOURS: tuple[str, ...] = ("#775544", "#FF66AA", "#CC8888", "#AA9922", "#77AADD")


@cache  # a name per device: called for every device on every chart
def device_colour(name: str) -> str:
    """The colour of a device by its catalog id, name or alias; a device the catalog lacks
    takes a spare colour by its name."""
    device = lookup_device(name)
    if device is not None and device.id in DEVICE_COLOURS:
        return DEVICE_COLOURS[device.id]
    digest = hashlib.sha256(name.encode()).digest()
    return SPARE_COLOURS[digest[0] % len(SPARE_COLOURS)]
