"""The trace page's charts are written without Altair (charts/trace.py): they must keep
what Altair writes at the top of every spec, or the trace pages would drift from the rest."""

from __future__ import annotations

import altair as alt

from generator.charts.scales import finish
from generator.charts.trace import time_bars, trace_roofline


def test_top_level_as_altair_writes_it() -> None:
    altair = finish(alt.Chart(alt.Data(values=[{"a": 1}])).mark_bar().encode(x="a:Q"))
    bars = time_bars([{"phase": "forward", "time_s": 1.0}], "phase", "Time by phase")
    roofline = trace_roofline(
        [{"label": "aten::mm", "family": "matmul", "ai": 10.0, "attained": 1e12, "time_s": 1.0}],
        [
            {
                "label": "fp32",
                "device": "NVIDIA H100 SXM",
                "precision": "FP32",
                "source": "datasheet",
                "peak": 5e13,
                "bandwidth": 2e12,
            }
        ],
        "family",
        "Per-op roofline",
    )
    for spec in (bars, roofline):
        assert spec["$schema"] == altair["$schema"]
        assert spec["config"] == altair["config"]
        assert set(spec["datasets"]) == {
            layer["data"]["name"] for layer in spec.get("layer", [spec])
        }


def test_nothing_to_draw_is_no_chart() -> None:
    assert time_bars([{"phase": "forward", "time_s": 0.0}], "phase", "t") == {}
    assert trace_roofline([{"label": "x", "ai": None, "attained": 1.0}], [], "family", "t") == {}
