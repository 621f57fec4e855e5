"""Every chart legible (issue 18): asserted on the Vega-Lite specs the builders return, so
no browser is needed. Colours apart, legends under the chart and never shortened, titles
that fit, SI tick labels, whole roofs with their ridges, no lines between categories."""

from __future__ import annotations

import colorsys
import itertools
import math
import re
from collections.abc import Iterator
from typing import Any

import altair as alt
import polars as pl
import pytest

from generator.analysis.roofline import Totals
from generator.catalog import load_catalog, lookup_device
from generator.charts import (
    bound_heatmap,
    breakdown_chart,
    model_bars,
    model_intensity,
    modelled_roofline_chart,
    multi_device_roofline,
    overview_roofline,
    roofline_chart,
    sweep_chart,
    worth_drawing,
)
from generator.charts.analyses import parts_chart, saturation_chart
from generator.charts.captions import STEP_MARK, roofline_caption, step_mark_words
from generator.charts.comparisons import latency_scatter, speedup_chart
from generator.charts.roof_names import roof_name_rows
from generator.charts.scales import (
    COLUMN_PX,
    DASHES,
    DIRECT_LABELS_MAX,
    LEGEND_CHAR_PX,
    LEGEND_SYMBOL_PX,
    PALETTE,
    SECONDS_LABEL,
    TITLE_CHARS,
    device_dash_scale,
    device_scale,
    device_shape_scale,
    finish,
    inline,
    seconds_axis,
    seconds_titles_with_unit,
    unit_title,
)
from generator.charts.trace import time_bars, trace_roofline
from tests.helpers import datasheet_roofs

EPYC = "AMD EPYC (2 threads)"
H100 = "NVIDIA H100 SXM"
MIN_LABEL_PX_PER_CHAR = 6  # a 10 px legend label needs at least this much per character
SI_TITLE = re.compile(r"FLOP/s|FLOPs?\b(?!/byte)|bytes|samples/s|parameters|\(s\)|time|latency")


# ---- the specs of every builder, from small inputs --------------------------------------


def _kernels(n: int) -> pl.DataFrame:
    names = ["implicit_convolve_sgemm", "elementwise_kernel", "gemm_xmma", "bn_fw_tr", "copy"]
    return pl.DataFrame(
        {
            "kernel_id": list(range(n)),
            "kernel_name": [names[i % len(names)] + f"_{i}" for i in range(n)],
            "nvtx_range": ["forward" if i % 2 else "backward" for i in range(n)],
            "time_s": [1e-5 * (i + 1) for i in range(n)],
            "arithmetic_intensity": [0.5 * (i + 1) for i in range(n)],
            "attained_flops_per_s": [1e11 * (i + 1) for i in range(n)],
            "flops": [1e6 * (i + 1) for i in range(n)],
            "dram_total_bytes": [2e6 for _ in range(n)],
        }
    )


def _step(flops: float = 8e6, dram: float = 1e6) -> Totals:
    return Totals(
        kernels=3, flops=flops, flops_by_precision={"fp32": flops}, dram_bytes=dram,
        l2_bytes=None, l1_bytes=None, time_s=1e-4, sm_pct=None, dram_pct=None,
        tensor_pipe_inst=None,
    )  # fmt: skip


def _l4() -> Any:
    device = lookup_device("l4")
    assert device is not None
    return device


def _modelled(n: int) -> list[dict[str, Any]]:
    return [
        {"label": f"batch {2**i}", "ai": 0.05 * (i + 1), "attained": 1e9 * (i + 1), "device": EPYC,
         "precision": "FP32"}
        for i in range(n)
    ]  # fmt: skip


def _measured_roof(device: str, peak: float, bandwidth: float, precision: str = "FP32") -> Any:
    return {"device": device, "precision": precision, "peak": peak, "bandwidth": bandwidth}


def _sweep(numeric: bool, unit: str = "samples/s") -> list[dict[str, Any]]:
    return [
        {
            "x": b if numeric else m,
            "label": m if not numeric else str(b),
            "value": 100.0 * b,
            "low": 90.0 * b,
            "high": 110.0 * b,
            "unit": unit,
            "series": s,
        }
        for b, m in ((32, "resnet18"), (64, "vgg16"), (128, "alexnet"))
        for s in (EPYC, H100)
    ]


def all_specs() -> dict[str, dict[str, Any]]:
    catalog = list(load_catalog())
    trace_points = [
        {
            "label": f"aten::op{i}",
            "phase": "forward",
            "ai": 0.1 * (i + 1),
            "attained": 1e9,
            "time_s": 1e-3,
        }
        for i in range(4)
    ]
    return {
        "kernel roofline": roofline_chart(
            _kernels(30), _step(), datasheet_roofs(_l4()), "L4 kernels " * 9
        ),
        "kernel roofline, few": roofline_chart(_kernels(3), _step(), datasheet_roofs(_l4()), "L4"),
        "modelled roofline": modelled_roofline_chart(
            _modelled(3), [_measured_roof(EPYC, 1.7e11, 2.5e10)], "A: modelled"
        ),
        "modelled roofline, two devices": modelled_roofline_chart(
            [
                *_modelled(2),
                {"label": "h", "ai": 30.0, "attained": 5e13, "device": H100, "precision": "FP32"},
            ],
            [_measured_roof(EPYC, 1.7e11, 2.5e10), _measured_roof(H100, 5e13, 3e12)],
            "F",
        ),
        "modelled roofline, two precisions": modelled_roofline_chart(
            [
                {
                    "label": "fp32",
                    "ai": 30.0,
                    "attained": 2e13,
                    "device": H100,
                    "precision": "FP32",
                },
                {
                    "label": "bf16",
                    "ai": 30.0,
                    "attained": 9e13,
                    "device": H100,
                    "precision": "BF16 AMP",
                },
            ],
            [
                _measured_roof(H100, 5.1e13, 3e12),
                _measured_roof(H100, 7.9e14, 3e12, "BF16 AMP"),
                _measured_roof(H100, 4.1e14, 3e12, "TF32"),
            ],  # no point runs TF32: not drawn
            "E",
        ),
        "catalog fp32": multi_device_roofline(catalog, "fp32", "FP32"),
        "catalog fp16 tensor": multi_device_roofline(catalog, "fp16_tensor", "FP16 tensor"),
        "overview": overview_roofline(
            [
                {
                    "device": EPYC,
                    "label": "r1",
                    "kind": "modelled (analytic FLOPs and bytes, measured time)",
                    "ai": 0.02,
                    "attained": 1e9,
                },
                {
                    "device": "NVIDIA L4",
                    "label": "l4",
                    "kind": "measured (ncu)",
                    "ai": 7.0,
                    "attained": 7e11,
                },
            ],
            [
                {
                    "device": EPYC,
                    "label": "EPYC measured",
                    "precision": "FP32",
                    "source": "measured",
                    "peak": 1.7e11,
                    "bandwidth": 2.5e10,
                },
                {
                    "device": "NVIDIA L4",
                    "label": "L4 fp32",
                    "precision": "FP32",
                    "source": "datasheet",
                    "peak": 3.03e13,
                    "bandwidth": 3e11,
                },
            ],
        ),
        "trace roofline": trace_roofline(
            trace_points,
            [
                {
                    "label": "fp32 datasheet",
                    "device": "NVIDIA L4",
                    "precision": "FP32",
                    "source": "datasheet",
                    "peak": 3.03e13,
                    "bandwidth": 3e11,
                }
            ],
            "phase",
            "ops",
        ),
        "sweep by batch": sweep_chart(_sweep(True), "batch", True, "throughput"),
        "sweep by model": sweep_chart(_sweep(False), "model", False, "throughput"),
        "sweep of times": sweep_chart(
            _sweep(True, "median step time (s) with 95 % CI"), "batch", True, "time"
        ),
        "heatmap": bound_heatmap(
            [
                {
                    "workload": "w",
                    "device": d.name,
                    "bound_s": 1e-3 * (i + 1),
                    "limited_by": "m",
                    "mark": "m",
                }
                for i, d in enumerate(catalog)
            ]
        ),
        "model bars": model_bars(
            [
                {"model": "resnet18", "dataset": "x", "flops": 1.8e9},
                {"model": "vgg16", "dataset": "x", "flops": 1.5e10},
            ],
            "flops",
            "FLOPs",
            "FLOP",
        ),
        "model intensity": model_intensity(
            [{"model": "resnet18", "batch": b, "arithmetic_intensity": 10.0 * b} for b in (1, 8)]
        ),
        "breakdown": breakdown_chart(
            [
                {"measure": "forward FLOPs", "family": f, "value": 1.0}
                for f in ("conv", "linear", "norm", "activation", "pool", "elementwise")
            ],
            "resnet18",
        ),
        "saturation": saturation_chart(
            [
                {
                    "series": f"{m} train",
                    "model": m,
                    "variant": "train",
                    "batch": b,
                    "throughput": 10.0 * b,
                    "low": 9.0 * b,
                    "high": 11.0 * b,
                    "saturation": b == 64,
                }
                for m in ("resnet18", "vgg16")
                for b in (8, 64)
            ],
            "throughput",
        ),
        "parts": parts_chart(
            [
                {
                    "label": "resnet18 b64",
                    "part": p,
                    "median_s": 0.01,
                    "low_s": 0.009,
                    "high_s": 0.011,
                }
                for p in ("forward", "backward", "optimizer step")
            ],
            "parts",
        ),
        "latency": latency_scatter(
            [
                {
                    "label": m,
                    "model": m,
                    "median_s": 0.01 * (i + 1),
                    "ci_low_s": 0.009,
                    "ci_high_s": 0.05,
                    "modelled_flops": 1e9 * (i + 1),
                    "params": 1e6 * (i + 1),
                }
                for i, m in enumerate(("resnet18", "vgg16", "alexnet"))
            ],
            "latency",
        ),
        "speedup": speedup_chart(
            [{"label": "resnet18 b64", "phase": "train", "speedup": 3.0, "low": 2.5, "high": 3.5}],
            "speedup",
            "× faster",
        ),
        "time bars": time_bars([{"phase": "forward", "time_s": 0.1}], "phase", "time"),
    }


@pytest.fixture(scope="module")
def specs() -> dict[str, dict[str, Any]]:
    built = all_specs()
    assert all(built.values()), [name for name, spec in built.items() if not spec]
    return built


def units(spec: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every single-mark view in a spec (layers and concatenations opened)."""
    if "mark" in spec:
        yield spec
    for key in ("layer", "hconcat", "vconcat", "concat"):
        for child in spec.get(key, []):
            yield from units(child)


def mark_type(unit: dict[str, Any]) -> str:
    mark = unit["mark"]
    return str(mark["type"] if isinstance(mark, dict) else mark)


def channels(spec: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for unit in units(spec):
        for name, channel in unit.get("encoding", {}).items():
            if isinstance(channel, dict):
                yield name, channel


def legends(spec: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    for _, channel in channels(spec):
        if isinstance(channel.get("legend"), dict):
            yield channel, channel["legend"]


def rows(unit: dict[str, Any], spec: dict[str, Any]) -> list[dict[str, Any]]:
    data = unit.get("data") or spec.get("data") or {}
    # inline, or a named dataset of the spec (charts/scales.py: inline)
    values: list[dict[str, Any]] = data.get("values") or spec.get("datasets", {}).get(
        data.get("name"), []
    )
    return values


# ---- the tests ------------------------------------------------------------------------


def test_no_line_joins_categories(specs: dict[str, dict[str, Any]]) -> None:
    for name, spec in specs.items():
        for unit in units(spec):
            if mark_type(unit) == "line":
                x = unit["encoding"]["x"]
                assert x["type"] == "quantitative", f"{name}: a line along a {x['type']} x"
    assert "line" not in {mark_type(u) for u in units(specs["sweep by model"])}
    assert "line" in {mark_type(u) for u in units(specs["sweep by batch"])}  # along batch


def test_quantities_have_si_tick_labels(specs: dict[str, dict[str, Any]]) -> None:
    checked = 0
    for name, spec in specs.items():
        for channel_name, channel in channels(spec):
            title = str(channel.get("title", ""))
            if channel_name not in ("x", "y") or channel.get("type") != "quantitative":
                continue
            if "FLOP/byte" in title or not SI_TITLE.search(title) or "axis" not in channel:
                continue
            checked += 1
            axis_format = str(channel["axis"].get("format", ""))
            assert axis_format.endswith("s"), f"{name}: {title!r} axis format {axis_format!r}"
            if "(s)" in title or "time" in title or "latency" in title:  # 12ms, never 12m
                assert "'s'" in channel["axis"].get("labelExpr", ""), f"{name}: {title}"
    assert checked >= 15


def test_every_roofline_shows_its_whole_roof_and_marks_the_ridge(
    specs: dict[str, dict[str, Any]],
) -> None:
    l4 = _l4()
    cases = {  # chart -> the ridges it must show
        "kernel roofline": [l4.peak("fp32") / l4.bandwidth_bytes_per_s],
        "modelled roofline": [1.7e11 / 2.5e10],  # the points sit far left of it
        "modelled roofline, two devices": [1.7e11 / 2.5e10, 5e13 / 3e12],
        "overview": [1.7e11 / 2.5e10, 3.03e13 / 3e11],
        "trace roofline": [3.03e13 / 3e11],
        "catalog fp32": [
            d.peak("fp32") / d.bandwidth_bytes_per_s  # type: ignore[operator]
            for d in load_catalog()
            if d.peak("fp32")
        ],
    }
    for name, ridges in cases.items():
        spec = specs[name]
        x_scales = [c["scale"] for n, c in channels(spec) if n == "x" and "scale" in c]
        low, high = x_scales[0]["domain"]
        for ridge in ridges:  # slope left of the ridge and flat part right of it, visible
            assert low <= ridge / 4 and high >= ridge * 4, f"{name}: ridge {ridge} in {low, high}"
        marked = {
            round(row["ai"], 6)
            for unit in units(spec)
            if mark_type(unit) in ("rule", "point")
            for row in rows(unit, spec)
            if "ridge" in row
        }
        for ridge in ridges:
            assert round(ridge, 6) in marked, f"{name}: ridge {ridge} not marked"


def _hue(colour: str) -> tuple[float, float, float]:
    red, green, blue = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    hue, lightness, saturation = colorsys.rgb_to_hls(red, green, blue)
    return 360 * hue, lightness, saturation


def test_palette_has_no_look_alike_pairs() -> None:
    tableau_pair = ("#1f77b4", "#aec7e8")  # what readers could not tell apart
    for a, b in [(PALETTE[i], PALETTE[j]) for i in range(len(PALETTE)) for j in range(i)]:
        (hue_a, _, sat_a), (hue_b, _, sat_b) = _hue(a), _hue(b)
        if min(sat_a, sat_b) < 0.15:  # a grey: at most one, checked below
            continue
        gap = min(abs(hue_a - hue_b), 360 - abs(hue_a - hue_b))
        assert gap >= 12, f"{a} and {b} are one hue family ({gap:.0f}° apart)"
    assert sum(_hue(c)[2] < 0.15 for c in PALETTE) <= 1
    hues = [_hue(c)[0] for c in tableau_pair]
    assert abs(hues[0] - hues[1]) < 12  # the check above would catch tableau20's pairs


def test_devices_keep_one_identity_everywhere_and_never_two_alike() -> None:
    catalog = [d.name for d in load_catalog()]
    names = {*catalog, EPYC}
    colours, shapes, dashes = (
        s.to_dict()
        for s in (device_scale(names), device_shape_scale(names), device_dash_scale(names))
    )
    domain = colours["domain"]
    assert domain[: len(catalog)] == catalog  # catalog order: the same place on every page
    assert device_scale({H100}).to_dict()["domain"] == domain[: len(catalog)]
    first = colours["range"][: len(PALETTE)]
    assert len(set(first)) == len(PALETTE)  # a few devices: all different hues
    pairs = list(zip(colours["range"], shapes["range"], strict=True))
    assert len(set(pairs)) == len(domain)  # many devices: hue and marker never both alike
    lines = list(zip(colours["range"], map(tuple, dashes["range"]), strict=True))
    assert len(set(lines)) == len(domain) and dashes["range"][0] == DASHES[0]


def test_kernel_families_on_a_chart_differ_in_hue(specs: dict[str, dict[str, Any]]) -> None:
    colour = next(c for n, c in channels(specs["kernel roofline"]) if n == "color")
    domain, hues = colour["scale"]["domain"], colour["scale"]["range"]
    assert len(domain) == 5 and len(set(hues)) == 5  # conv, elementwise, gemm, norm, copy


def test_legends_sit_below_and_show_whole_labels(specs: dict[str, dict[str, Any]]) -> None:
    longest = max(load_catalog(), key=lambda d: len(d.name)).name
    seen_longest = False
    for name, spec in specs.items():
        for channel, legend in legends(spec):
            assert legend.get("orient") == "bottom", f"{name}: legend {legend.get('orient')}"
            labels = legend.get("values") or channel.get("scale", {}).get("domain") or []
            if channel.get("type") != "nominal" or not labels:
                continue  # a size or colour gradient: numbers, never shortened
            need = MIN_LABEL_PX_PER_CHAR * max(len(str(v)) for v in labels)
            assert legend.get("labelLimit", 160) >= need, f"{name}: {legend.get('labelLimit')}"
            seen_longest |= longest in labels
            columns = legend.get("columns", 1)
            widths = [LEGEND_CHAR_PX * len(str(v)) + LEGEND_SYMBOL_PX for v in labels]
            width = sum(max(widths[c::columns]) for c in range(columns))
            assert width <= COLUMN_PX or columns == 1, f"{name}: legend {width} px wide"
        layout = spec["config"]["legend"]["layout"]["bottom"]
        assert layout["direction"] == "vertical", name  # two legends stack, not overflow
    assert seen_longest, "the catalog's longest name is in a legend"


def test_titles_fit_the_column(specs: dict[str, dict[str, Any]]) -> None:
    for name, spec in specs.items():
        title = spec.get("title")
        if title is None:
            continue
        text = title["text"] if isinstance(title, dict) else title
        for line in [text] if isinstance(text, str) else text:
            assert len(line) <= TITLE_CHARS, f"{name}: {line!r}"
    assert isinstance(specs["kernel roofline"]["title"]["text"], list)  # the long one wraps


def test_few_points_are_named_beside_them_many_are_not(specs: dict[str, dict[str, Any]]) -> None:
    def named(spec: dict[str, Any]) -> set[str]:
        return {
            str(row["point_label"])
            for unit in units(spec)
            if mark_type(unit) == "text"
            for row in rows(unit, spec)
            if "point_label" in row
        }

    assert named(specs["modelled roofline"]) == {"batch 1", "batch 2", "batch 4"}
    assert named(specs["kernel roofline"]) == {"step"}  # 30 kernels: tooltips only
    assert len(named(specs["kernel roofline, few"])) == 4  # 3 kernels and the step
    many = modelled_roofline_chart(_modelled(DIRECT_LABELS_MAX + 1), {}, "many")
    assert named(many) == set()
    for name, spec in specs.items():  # every point says what it is on hover
        for unit in units(spec):
            if mark_type(unit) == "point":
                assert unit["encoding"].get("tooltip"), f"{name}: a point without a tooltip"


def test_kinds_of_point_keep_their_markers(specs: dict[str, dict[str, Any]]) -> None:
    shape = next(c for n, c in channels(specs["overview"]) if n == "shape")
    marker = dict(zip(shape["scale"]["domain"], shape["scale"]["range"], strict=True))
    assert marker["measured (ncu)"] == "circle"
    assert marker["modelled (analytic FLOPs and bytes, measured time)"] == "diamond"


def test_worth_drawing_says_when_a_table_row_is_better() -> None:
    assert not worth_drawing([{"x": 1, "value": 2.0}])
    assert not worth_drawing([{"x": 1, "value": 2.0}, {"x": 1, "value": 3.0}], "x")
    assert worth_drawing([{"x": 1, "value": 2.0}, {"x": 2, "value": 3.0}], "x")
    assert not worth_drawing([])
    frame = pl.DataFrame({"batch": [32, 32, None], "value": [1.0, 2.0, 3.0]})
    assert worth_drawing(frame) and not worth_drawing(frame, "batch")
    assert not worth_drawing(frame, "missing")
    assert worth_drawing(frame.with_columns(pl.Series("batch", [32, 64, None])), "batch")


def test_names_stay_inside_the_plot() -> None:
    """A name beside a point near the right edge sits to its left; the ridge's text is
    short (the roof's full name is in the rule's tooltip), so neither runs past the plot."""
    points = [
        {"label": "aten::left", "phase": "forward", "ai": 0.5, "attained": 1e9, "time_s": 1e-3},
        {"label": "aten::right", "phase": "forward", "ai": 5e3, "attained": 1e9, "time_s": 1e-3},
    ]
    roof = {
        "label": "tf32_tensor 156 TFLOP/s (catalog datasheet)",
        "peak": 1.56e14,
        "device": "NVIDIA A100 40GB SXM",
        "precision": "TF32 tensor",
        "source": "datasheet",
    }
    spec = trace_roofline(points, [{**roof, "bandwidth": 1.6e12}], "phase", "ops")
    texts = [u for u in units(spec) if mark_type(u) == "text"]
    side = {
        row["point_label"]: u["mark"]["align"]
        for u in texts
        for row in rows(u, spec)
        if "point_label" in row
    }
    assert side == {"aten::left": "left", "aten::right": "right"}
    ridge_text = next(u for u in texts if u["encoding"]["text"]["field"] == "ridge_at")
    assert [r["ridge_at"] for r in rows(ridge_text, spec)] == ["ridge 97.5"]


def test_seconds_axes_tick_in_the_unit_their_title_names(specs: dict[str, dict[str, Any]]) -> None:
    """Ticks that carry their unit ("500µs", "12ms") under a title that names none: "time
    (s)" above "12ms" reads as twelve seconds."""
    seconds_guides = 0
    for name, spec in specs.items():
        assert seconds_titles_with_unit(spec) == [], name
        for _, channel in channels(spec):
            for guide in (channel.get("axis"), channel.get("legend")):
                if isinstance(guide, dict) and guide.get("labelExpr") == SECONDS_LABEL:
                    seconds_guides += 1
                    assert "(s)" not in str(channel.get("title", "")), f"{name}: {channel}"
    assert seconds_guides >= 5  # time bars, sweep of times, latency, heatmap, step parts
    wrong = (
        alt.Chart(inline([{"t": 0.01}]))
        .mark_bar()
        .encode(x=alt.X("t:Q", title="time (s)", axis=seconds_axis()))
    )
    with pytest.raises(ValueError, match="time"):
        finish(wrong)
    assert unit_title("median step time (s) with 95 % CI") == "median step time with 95 % CI"
    assert unit_title("samples/s") == "samples/s"


def test_roofline_caption_is_written_from_the_marks_it_describes(
    specs: dict[str, dict[str, Any]],
) -> None:
    """The kernel page's caption once said "red diamond" for a white one: its words now come
    from the mark the chart draws."""
    step_marks = [
        u["mark"] for u in units(specs["kernel roofline"]) if u["mark"].get("shape") == "diamond"
    ]
    assert step_marks == [{"type": "point", **STEP_MARK}]
    caption = roofline_caption(12, 3, "NVIDIA L4")
    assert f"the step as {step_mark_words()};" in caption
    assert step_mark_words() == "a white diamond with a black edge"
    assert step_mark_words({**STEP_MARK, "fill": "red", "stroke": None}) == "a red diamond"
    assert caption.startswith("Log-log roofline: 12 kernels as points sized by their share")
    assert caption.endswith("3 kernels with zero or unknown FLOPs or bytes cannot be drawn on "
                            "log axes and are not shown.")  # fmt: skip
    assert "roofs of the NVIDIA L4" in caption and "red" not in caption
    assert roofline_caption(1, 0, None) == (
        "Log-log roofline: 1 kernel as a point sized by its share of kernel time, one colour "
        "and marker per kernel family; the step as a white diamond with a black edge."
    )


def test_a_roof_per_precision_the_points_use(specs: dict[str, dict[str, Any]]) -> None:
    """E's bf16 run sat under the fp32 roof in its chart (issue 49): each point's precision
    has its roof, and a precision no point uses has none."""
    spec = specs["modelled roofline, two precisions"]
    drawn = {
        (row["device"], row["precision"])
        for unit in units(spec)
        if mark_type(unit) == "line"
        for row in rows(unit, spec)
    }
    assert drawn == {(H100, "FP32"), (H100, "BF16 AMP")}
    names = {
        row["roof_name"]
        for unit in units(spec)
        if mark_type(unit) == "text"
        for row in rows(unit, spec)
        if "roof_name" in row
    }
    assert names == {"H100 SXM · FP32 (measured)", "H100 SXM · BF16 AMP (measured)"}


def test_roof_names_never_sit_on_each_other() -> None:
    """Peaks a few percent apart (H100 datasheet and measured FP32, L4, MI250, an A100):
    each name on its own line of text; roofs sharing a flat part named once."""
    roofs = [
        {"roof_name": f"{device} · FP32 (datasheet)", "peak": peak, "bandwidth": bandwidth}
        for device, peak, bandwidth in (
            ("H100 SXM", 6.7e13, 3.35e12),
            ("L4", 3.03e13, 3e11),
            ("MI250", 2.26e13, 1.6e12),
            ("A100 PCIe", 1.95e13, 1.935e12),
            ("A100 SXM", 1.95e13, 2.039e12),
        )
    ] + [{"roof_name": "H100 SXM · FP32 (measured)", "peak": 5.15e13, "bandwidth": 3e12}]
    placed = roof_name_rows(roofs, (0.1, 800.0), [1e9, 1.6e14], 420)
    assert len(placed) == 5  # the two A100s share one flat part: one name
    shared = next(r for r in placed if r.get("shared"))
    assert shared["roof_name"] == "A100 PCIe, A100 SXM · FP32 (datasheet)"
    px = sorted(
        (420 * (math.log10(r["name_at"]) - 9) / 6, r["align"])
        for r in placed
        if r["align"] == "right"
    )
    for (low, _), (high, _) in itertools.pairwise(px):  # one line of text (10 px) apart at least
        assert high - low >= 10 - 1e-6, px


def test_an_si_axis_labels_zero_0_not_0k() -> None:
    """Issue 66: throughput axes read "0k, 5k, 10k": Vega gives every tick one SI prefix."""
    from generator.charts.scales import SI_LABEL, si_axis

    axis = si_axis().to_dict()
    assert axis["format"] == "~s" and axis["labelExpr"] == SI_LABEL
    assert SI_LABEL.startswith("datum.value == 0 ? '0'")
    assert si_axis(labelExpr="datum.label").to_dict()["labelExpr"] == "datum.label"
