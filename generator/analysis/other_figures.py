"""Datasheet figures other than the catalog's that seed reports use for a device's peak or
bandwidth: the "different datasheet figure" cause holds only when one of them explains the
ratio."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OtherFigure:
    """A datasheet figure other than the catalog's for the same device, where it is printed."""

    value: float  # base units: FLOP/s or byte/s
    label: str  # a few words, shown beside the figure
    what: str  # the figure in words: where it comes from and why it differs
    source: str  # URL


# (catalog device id, peak key or "bandwidth") -> a figure some reports use instead of the
# catalog's. The "different datasheet figure" cause is accepted only when published ÷ ours
# matches the ratio of such a figure (or the report's own figure, from another of its rows)
# to the catalog's.
OTHER_FIGURES: dict[tuple[str, str], OtherFigure] = {
    ("rtx-4080-laptop", "fp32"): OtherFigure(
        48.7e12,
        "desktop RTX 4080",
        "the desktop GeForce RTX 4080's FP32 rate (9728 CUDA cores × 2 FLOP × 2.505 GHz)",
        "https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4080-family/",
    ),
    ("rtx-4080-laptop", "bandwidth"): OtherFigure(
        384e9,
        "16 Gbps memory",
        "the RTX 4080 Laptop GPU with 16 Gbps GDDR6 (192 bit × 16 Gbps ÷ 8; laptops ship "
        "16 or 20 Gbps memory, the catalog takes 18 Gbps)",
        "https://data-check.eu/en/nvidia-geforce-rtx-4080-laptop-gpu/",
    ),
    ("intel-core-i9-14900hx", "fp32"): OtherFigure(
        1.4848e12,
        "P-cores only",
        "the i9-14900HX's 8 performance cores alone at their 5.8 GHz turbo (8 × 2 FMA units "
        "× 8 lanes × 2 FLOP × 5.8 GHz), without the 16 efficient cores",
        "https://www.intel.com/content/www/us/en/products/sku/235995/intel-core-i9-processor-14900hx-36m-cache-up-to-5-80-ghz/specifications.html",
    ),
    ("colab-xeon-2vcpu", "fp32"): OtherFigure(
        102.4e9,
        "one core at 3.2 GHz turbo",
        "one Broadwell core at a 3.2 GHz turbo clock (1 × 2 FMA units × 8 lanes × 2 FLOP × "
        "3.2 GHz); Colab's vCPUs report 2.2 GHz",
        "https://www.intel.com/content/www/us/en/products/sku/91772/intel-xeon-processor-e52660-v4-35m-cache-2-00-ghz/specifications.html",
    ),
}
