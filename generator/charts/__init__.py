"""Altair chart builders: rows or frames in, a Vega-Lite spec (dict) out, nothing else."""

import sys

# Altair imports jsonschema, which imports rfc3987_syntax when it is installed (jupyter-events,
# under mkdocs-jupyter, pulls it in), compiling 38 Lark grammars: 1.6 s of every process that
# draws a chart (a cold build starts one per core), for an "iri" format check that no
# Vega-Lite schema uses. Marked absent (unless already imported), jsonschema skips that check.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]


from generator.charts.bars import (  # noqa: E402 (after the line above)
    bound_heatmap,
    breakdown_chart,
    model_bars,
    model_intensity,
    sweep_chart,
)
from generator.charts.device_roofs import (  # noqa: E402
    multi_device_roofline,
    overview_roofline,
)
from generator.charts.roofline import modelled_roofline_chart, roofline_chart  # noqa: E402
from generator.charts.scales import device_scale, model_scale, worth_drawing  # noqa: E402

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
