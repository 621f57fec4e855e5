"""Altair chart builders: rows or frames in, a Vega-Lite spec (dict) out, nothing else."""

from generator.charts.bars import (
    bound_heatmap,
    breakdown_chart,
    model_bars,
    model_intensity,
    sweep_chart,
)
from generator.charts.roofline import (
    modelled_roofline_chart,
    multi_device_roofline,
    overview_roofline,
    roofline_chart,
)
from generator.charts.scales import device_scale, model_scale, worth_drawing

__all__ = [
    "bound_heatmap",
    "breakdown_chart",
    "device_scale",
    "model_bars",
    "model_intensity",
    "model_scale",
    "modelled_roofline_chart",
    "multi_device_roofline",
    "overview_roofline",
    "roofline_chart",
    "sweep_chart",
    "worth_drawing",
]
