"""Altair chart builders: frame in, chart spec (dict) out, nothing else."""

from __future__ import annotations

import math
from typing import Any

import altair as alt
import polars as pl

from generator import units_format
from generator.catalog import Device
from generator.kernels import FAMILIES, with_families
from generator.roofline import PEAK_FOR_PRECISION, Totals

TOOLTIP_NAME_CHARS = 160
PRECISION_LABELS: dict[str, str] = {
    "fp64": "FP64",
    "fp32": "FP32",
    "fp16": "FP16",
    "tensor_fp16": "FP16 tensor",
    "tensor_bf16": "BF16 tensor",
    "tensor_tf32": "TF32 tensor",
    "tensor_fp64": "FP64 tensor",
    "tensor_fp8": "FP8 tensor",
}


def device_scale(names: set[str]) -> alt.Scale:
    """One colour per device on every page: catalog order first, then other devices (CPUs
    measured here) by name."""
    from generator.catalog import load_catalog

    catalog = [d.name for d in load_catalog()]
    return alt.Scale(domain=catalog + sorted(names - set(catalog)), scheme="tableau20")


def model_scale() -> alt.Scale:
    """One colour per registry model on every page."""
    from generator.models import MODELS

    return alt.Scale(domain=list(MODELS), scheme="tableau20")


def short_name(name: str | None, limit: int = TOOLTIP_NAME_CHARS) -> str:
    return units_format.short_name(name, limit)


def _log_y(field: str) -> alt.Y:
    """The shared y axis of every roofline layer: attained FLOP/s, log scale, SI labels."""
    return alt.Y(
        f"{field}:Q",
        title="attained (FLOP/s)",
        scale=alt.Scale(type="log"),
        axis=alt.Axis(format="~s"),
    )


def roof_polyline(
    peak: float, bandwidth: float, ai_min: float, ai_max: float, **labels: Any
) -> list[dict[str, Any]]:
    """One roof as chart rows: the bandwidth slope up to the ridge, then the flat peak;
    `labels` (device, ceiling, ...) go on every row."""
    ridge = peak / bandwidth
    xs = [ai_min, *([ridge] if ai_min < ridge < ai_max else []), ai_max]
    return [
        {**labels, "order": i, "ai": x, "flops_per_s": min(peak, x * bandwidth)}
        for i, x in enumerate(xs)
    ]


def ceiling_rows(
    device: Device, precisions: list[str], ai_min: float, ai_max: float
) -> list[dict[str, Any]]:
    """Polyline points of each precision's roof: bandwidth slope, then flat peak."""
    rows: list[dict[str, Any]] = []
    bandwidth = device.bandwidth_bytes_per_s
    for precision in precisions:
        peak = device.peak(PEAK_FOR_PRECISION[precision])
        if peak is None:
            continue
        ridge = peak / bandwidth
        label = f"{PRECISION_LABELS[precision]} peak {peak / 1e12:.4g} TFLOP/s, ridge {ridge:.3g}"
        rows.extend(roof_polyline(peak, bandwidth, ai_min, ai_max, ceiling=label))
    return rows


def roofline_chart(
    kernels: pl.DataFrame,
    step: Totals,
    device: Device | None,
    title: str,
) -> dict[str, Any]:
    """Log-log roofline: the device's ceilings, one point per kernel sized by time, the step."""
    total_time = kernels["time_s"].sum() if "time_s" in kernels.columns else None
    points = (
        with_families(kernels)
        .filter((pl.col("arithmetic_intensity") > 0) & (pl.col("attained_flops_per_s") > 0))
        .with_columns(
            pl.col("kernel_name").map_elements(short_name, return_dtype=pl.String).alias("kernel"),
            pl.col("nvtx_range").fill_null("(no range)").alias("range"),
            (pl.col("time_s") * 1e6).alias("time_us"),
            (100 * pl.col("time_s") / (total_time or 1.0)).alias("time_share_pct"),
            (pl.col("attained_flops_per_s") / 1e9).alias("gflops_per_s"),
        )
        .select(
            "kernel_id",
            "kernel",
            "family",
            "time_share_pct",
            "range",
            "arithmetic_intensity",
            "attained_flops_per_s",
            "gflops_per_s",
            "time_us",
            "flops",
            "dram_total_bytes",
        )
    )
    step_ai = step.arithmetic_intensity
    step_attained = step.attained_flops_per_s
    ais = points["arithmetic_intensity"].to_list() + ([step_ai] if step_ai else [])
    precisions = [p for p, v in step.flops_by_precision.items() if v > 0] or ["fp32"]
    ridges = [
        device.peak(PEAK_FOR_PRECISION[p]) / device.bandwidth_bytes_per_s  # type: ignore[operator]
        for p in precisions
        if device and device.peak(PEAK_FOR_PRECISION[p])
    ]
    ai_min = min([*ais, *ridges, 1.0]) / 4
    ai_max = max([*ais, *ridges, 1.0]) * 4
    x = alt.X(
        "ai:Q",
        title="arithmetic intensity (FLOP/byte, DRAM)",
        scale=alt.Scale(type="log", domain=[ai_min, ai_max]),
        axis=alt.Axis(format="~g"),
    )
    layers: list[alt.Chart] = []
    if device is not None:
        ceilings = pl.DataFrame(ceiling_rows(device, precisions, ai_min, ai_max))
        if ceilings.height:
            layers.append(
                alt.Chart(ceilings)
                .mark_line(color="#888", strokeWidth=2)
                .encode(
                    x=x,
                    y=_log_y("flops_per_s"),
                    detail="ceiling:N",
                    strokeDash=alt.StrokeDash("ceiling:N", title=f"{device.name} roof"),
                    order="order:Q",
                    tooltip=[alt.Tooltip("ceiling:N", title="roof")],
                )
            )
    kernel_points = points.rename({"arithmetic_intensity": "ai"})
    if kernel_points.height:
        layers.append(
            alt.Chart(kernel_points)
            .mark_point(filled=True, opacity=0.7)
            .encode(
                x=x,
                y=_log_y("attained_flops_per_s"),
                size=alt.Size(
                    "time_share_pct:Q",
                    title="share of kernel time (%)",
                    scale=alt.Scale(range=[15, 600]),
                ),
                color=alt.Color(
                    "family:N",
                    title="kernel family",
                    scale=alt.Scale(domain=list(FAMILIES), scheme="tableau20"),
                ),
                shape=alt.Shape("range:N", title="NVTX range"),
                tooltip=[
                    alt.Tooltip("kernel:N", title="kernel"),
                    alt.Tooltip("kernel_id:Q", title="ncu ID"),
                    alt.Tooltip("family:N", title="family"),
                    alt.Tooltip("range:N", title="range"),
                    alt.Tooltip("time_share_pct:Q", title="share of time (%)", format=".3g"),
                    alt.Tooltip("time_us:Q", title="time (µs)", format=".4g"),
                    alt.Tooltip("gflops_per_s:Q", title="GFLOP/s", format=".4g"),
                    alt.Tooltip("ai:Q", title="FLOP/byte", format=".4g"),
                ],
            )
        )
    if step_ai and step_attained:
        layers.append(
            alt.Chart(
                pl.DataFrame(
                    {"ai": [step_ai], "attained_flops_per_s": [step_attained], "label": ["step"]}
                )
            )
            .mark_point(shape="diamond", size=260, filled=True, color="#d62728", stroke="black")
            .encode(
                x=x,
                y=_log_y("attained_flops_per_s"),
                tooltip=[
                    alt.Tooltip("label:N", title="point"),
                    alt.Tooltip("ai:Q", title="FLOP/byte", format=".4g"),
                    alt.Tooltip("attained_flops_per_s:Q", title="FLOP/s", format=".4g"),
                ],
            )
        )
    if not layers:
        return {}
    chart = alt.layer(*layers).properties(title=title, width="container", height=380)
    return chart.to_dict()


def sweep_chart(
    rows: list[dict[str, Any]], x_title: str, numeric: bool, title: str
) -> dict[str, Any]:
    """A metric against the swept variable, with its 95 % interval as error bars.

    rows: {"x": value, "label": str, "value": float, "low": float, "high": float, "unit": str}."""
    if not rows:
        return {}
    data = alt.Data(values=rows)  # type: ignore[no-untyped-call]
    x = (
        alt.X(
            "x:Q",
            title=x_title,
            scale=alt.Scale(type="log", base=2),
            axis=alt.Axis(values=[r["x"] for r in rows]),
        )
        if numeric
        else alt.X("label:N", title=x_title, sort=[r["label"] for r in rows])
    )
    unit = rows[0]["unit"]
    y = alt.Y("value:Q", title=unit, scale=alt.Scale(zero=False))
    tooltip = [
        alt.Tooltip("label:N", title=x_title),
        alt.Tooltip("value:Q", title=unit, format=".4~s"),
        alt.Tooltip("low:Q", title="95 % CI low", format=".4~s"),
        alt.Tooltip("high:Q", title="95 % CI high", format=".4~s"),
    ]
    points = alt.Chart(data).mark_point(filled=True, size=70).encode(x=x, y=y, tooltip=tooltip)
    bars = (
        alt.Chart(data)
        .mark_errorbar(ticks=True)
        .encode(x=x, y=alt.Y("low:Q", title=unit), y2="high:Q")
    )
    line = alt.Chart(data).mark_line(opacity=0.4).encode(x=x, y=y)
    chart = alt.layer(line, bars, points).properties(title=title, width="container", height=280)
    return dict(chart.to_dict())


def modelled_roofline_chart(
    points: list[dict[str, Any]],
    gemm_flops_per_s: float | None,
    bandwidth: float | None,
    title: str,
) -> dict[str, Any]:
    """Modelled step points (analytic FLOPs and bytes over measured time) under the
    device's measured ceilings: GEMM rate and triad bandwidth.

    points: {"label": str, "ai": float, "attained": float}."""
    points = [p for p in points if p.get("ai") and p.get("attained")]
    if not points:
        return {}
    ais = [p["ai"] for p in points]
    ai_min, ai_max = min(ais) / 4, max(ais) * 4
    x = alt.X(
        "ai:Q", scale=alt.Scale(type="log"), title="arithmetic intensity (FLOP/byte, modelled)"
    )
    layers = []
    if gemm_flops_per_s and bandwidth:
        ridge = gemm_flops_per_s / bandwidth
        label = (
            f"measured: GEMM {gemm_flops_per_s / 1e9:.4g} GFLOP/s, triad "
            f"{bandwidth / 1e9:.4g} GB/s, ridge {ridge:.3g}"
        )
        roof = roof_polyline(gemm_flops_per_s, bandwidth, ai_min, ai_max, ceiling=label)
        layers.append(
            alt.Chart(alt.Data(values=roof))  # type: ignore[no-untyped-call]
            .mark_line(strokeDash=[6, 3])
            .encode(
                x=x,
                y=_log_y("flops_per_s"),
                order="order:Q",
                color=alt.Color("ceiling:N", legend=alt.Legend(orient="bottom", title=None)),
            )
        )
    layers.append(
        alt.Chart(alt.Data(values=points))  # type: ignore[no-untyped-call]
        .mark_point(filled=True, size=80, shape="diamond")
        .encode(
            x=x,
            y=_log_y("attained"),
            tooltip=[
                alt.Tooltip("label:N", title="run"),
                alt.Tooltip("ai:Q", title="AI (FLOP/byte)", format=".4~g"),
                alt.Tooltip("attained:Q", title="modelled FLOP/s", format=".4~s"),
            ],
        )
    )
    chart = alt.layer(*layers).properties(title=title, width="container", height=320)
    return dict(chart.to_dict())


def multi_device_roofline(devices: list[Device], peak_key: str, title: str) -> dict[str, Any]:
    """Every catalog device's roof for one datasheet peak (as seed 003's Figure 1): memory
    slope up to the ridge, then flat; one colour per device, ridge points marked."""
    ai_min, ai_max = 0.1, 10_000.0
    rows: list[dict[str, Any]] = []
    ridges: list[dict[str, Any]] = []
    for device in devices:
        peak = device.peak(peak_key)
        if peak is None:
            continue
        bandwidth = device.bandwidth_bytes_per_s
        rows.extend(roof_polyline(peak, bandwidth, ai_min, ai_max, device=device.name))
        ridges.append(
            {"device": device.name, "ai": peak / bandwidth, "flops_per_s": peak,
             "bandwidth": bandwidth}
        )  # fmt: skip
    if not rows:
        return {}
    x = alt.X("ai:Q", scale=alt.Scale(type="log"), title="arithmetic intensity (FLOP/byte)")
    color = alt.Color(
        "device:N",
        scale=device_scale({d.name for d in devices}),
        legend=alt.Legend(
            orient="right", title=None, values=list(dict.fromkeys(r["device"] for r in rows))
        ),
    )
    lines = (
        alt.Chart(alt.Data(values=rows))  # type: ignore[no-untyped-call]
        .mark_line()
        .encode(x=x, y=_log_y("flops_per_s"), order="order:Q", color=color)
    )
    points = (
        alt.Chart(alt.Data(values=ridges))  # type: ignore[no-untyped-call]
        .mark_point(filled=True, size=50)
        .encode(
            x=x,
            y=_log_y("flops_per_s"),
            color=color,
            tooltip=[
                alt.Tooltip("device:N"),
                alt.Tooltip("flops_per_s:Q", title="peak (FLOP/s)", format=".4~s"),
                alt.Tooltip("bandwidth:Q", title="bandwidth (B/s)", format=".4~s"),
                alt.Tooltip("ai:Q", title="ridge (FLOP/byte)", format=".4~g"),
            ],
        )
    )
    chart = alt.layer(lines, points).properties(title=title, width="container", height=360)
    return dict(chart.to_dict())


def overview_roofline(points: list[dict[str, Any]], roofs: list[dict[str, Any]]) -> dict[str, Any]:
    """Every step point of every device on one log-log chart, each device's roof in its
    colour: catalog datasheet roofs for ncu-measured points, measured GEMM and triad roofs
    for CPU points (modelled).

    points: {"device", "label", "kind", "ai", "attained"}; roofs: {"device", "label", "peak",
    "bandwidth"}."""
    points = [p for p in points if p.get("ai") and p.get("attained")]
    if not points:
        return {}
    ais = [p["ai"] for p in points]
    ai_min, ai_max = min(ais) / 10, max(ais) * 30
    rows: list[dict[str, Any]] = []
    for roof in roofs:
        rows.extend(
            roof_polyline(
                roof["peak"], roof["bandwidth"], ai_min, ai_max,
                device=roof["device"], roof=roof["label"],
            )
        )  # fmt: skip
    devices = {p["device"] for p in points} | {r["device"] for r in roofs}
    x = alt.X("ai:Q", scale=alt.Scale(type="log"), title="arithmetic intensity (FLOP/byte)")
    color = alt.Color(
        "device:N",
        scale=device_scale(devices),
        legend=alt.Legend(orient="bottom", values=sorted(devices)),
    )
    lines = (
        alt.Chart(alt.Data(values=rows))  # type: ignore[no-untyped-call]
        .mark_line(strokeDash=[6, 3])
        .encode(
            x=x,
            y=_log_y("flops_per_s"),
            order="order:Q",
            color=color,
            detail="roof:N",
            tooltip=[alt.Tooltip("roof:N", title="roof")],
        )
    )
    dots = (
        alt.Chart(alt.Data(values=points))  # type: ignore[no-untyped-call]
        .mark_point(filled=True, size=90)
        .encode(
            x=x,
            y=_log_y("attained"),
            color=color,
            shape=alt.Shape("kind:N", legend=alt.Legend(orient="bottom", title=None)),
            tooltip=[
                alt.Tooltip("label:N", title="step"),
                alt.Tooltip("device:N"),
                alt.Tooltip("kind:N", title="how"),
                alt.Tooltip("ai:Q", title="AI (FLOP/byte)", format=".4~g"),
                alt.Tooltip("attained:Q", title="FLOP/s", format=".4~s"),
            ],
        )
    )
    chart = alt.layer(lines, dots).properties(
        title="Every step on its device's roofline", width="container", height=420
    )
    return dict(chart.to_dict())


def bound_heatmap(cells: list[dict[str, Any]]) -> dict[str, Any]:
    """Workload × device grid coloured by roofline-bound step time (log scale).

    cells: {"workload", "device", "bound_s", "limited_by"}."""
    if not cells:
        return {}
    base = alt.Chart(alt.Data(values=cells)).encode(  # type: ignore[no-untyped-call]
        x=alt.X("device:N", title=None, axis=alt.Axis(labelAngle=-40, labelLimit=180)),
        y=alt.Y("workload:N", title=None, axis=alt.Axis(labelLimit=320)),
    )
    rects = base.mark_rect().encode(
        color=alt.Color(
            "bound_s:Q",
            title="bound (s)",
            scale=alt.Scale(type="log", scheme="viridis"),
            legend=alt.Legend(format="~s"),
        ),
        tooltip=[
            alt.Tooltip("workload:N"),
            alt.Tooltip("device:N"),
            alt.Tooltip("bound_s:Q", title="roofline-bound step time (s)", format=".3~s"),
            alt.Tooltip("limited_by:N", title="limited by"),
        ],
    )
    # viridis runs dark to bright: dark text on the brighter upper half of the log range
    times = [c["bound_s"] for c in cells]
    middle = math.sqrt(min(times) * max(times))
    marks = base.mark_text(fontSize=9).encode(
        text=alt.Text("mark:N"),
        color=alt.condition(alt.datum.bound_s > middle, alt.value("black"), alt.value("white")),
    )
    rows = len({c["workload"] for c in cells})
    chart = alt.layer(rects, marks).properties(
        title="Roofline-bound step time on every catalog device (c = compute, m = memory)",
        width="container",
        height=max(200, 18 * rows),
    )
    return dict(chart.to_dict())


def model_bars(rows: list[dict[str, Any]], field: str, title: str, unit: str) -> dict[str, Any]:
    """One horizontal bar per model on a log axis (values span six orders of magnitude)."""
    rows = [r for r in rows if r.get(field)]
    if not rows:
        return {}
    order = [r["model"] for r in sorted(rows, key=lambda r: -r[field])]
    # A log axis has no zero: bars start at the decade below the smallest value.
    floor = 10 ** math.floor(math.log10(min(r[field] for r in rows)))
    chart = (
        alt.Chart(alt.Data(values=rows))  # type: ignore[no-untyped-call]
        .mark_bar()
        .encode(
            y=alt.Y("model:N", sort=order, title=None),
            x=alt.X(
                f"{field}:Q",
                title=unit,
                scale=alt.Scale(type="log", domainMin=floor),
                axis=alt.Axis(format="~s"),
            ),
            x2=alt.datum(floor),
            color=alt.Color("model:N", legend=None, scale=model_scale()),
            tooltip=[
                alt.Tooltip("model:N"),
                alt.Tooltip("dataset:N", title="input"),
                alt.Tooltip(f"{field}:Q", title=unit, format=".4~s"),
            ],
        )
        .properties(title=title, width="container", height=22 * len(rows))
    )
    return dict(chart.to_dict())


def model_intensity(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Analytic AI of a training step per model, one point per batch size."""
    rows = [r for r in rows if r.get("arithmetic_intensity")]
    if not rows:
        return {}
    chart = (
        alt.Chart(alt.Data(values=rows))  # type: ignore[no-untyped-call]
        .mark_point(filled=True, size=70)
        .encode(
            y=alt.Y("model:N", title=None),
            x=alt.X(
                "arithmetic_intensity:Q",
                title="analytic AI of a training step (FLOP/byte of minimal traffic)",
                scale=alt.Scale(type="log"),
            ),
            color=alt.Color("batch:O", legend=alt.Legend(title="batch", orient="bottom")),
            tooltip=[
                alt.Tooltip("model:N"),
                alt.Tooltip("batch:O"),
                alt.Tooltip("arithmetic_intensity:Q", title="AI (FLOP/byte)", format=".4~g"),
            ],
        )
        .properties(
            title="Analytic arithmetic intensity by batch size",
            width="container",
            height=22 * len({r["model"] for r in rows}),
        )
    )
    return dict(chart.to_dict())


def breakdown_chart(rows: list[dict[str, Any]], title: str) -> dict[str, Any]:
    """Share of each layer family in forward FLOPs, backward FLOPs, saved activations and
    parameters (seed 003's Figures 8 and 9, from the model instead of a profiler).

    rows: {"measure", "family", "value"}."""
    rows = [r for r in rows if r["value"] > 0]
    if not rows:
        return {}
    measures = list(dict.fromkeys(r["measure"] for r in rows))
    chart = (
        alt.Chart(alt.Data(values=rows))  # type: ignore[no-untyped-call]
        .mark_bar()
        .encode(
            y=alt.Y("measure:N", sort=measures, title=None),
            x=alt.X("value:Q", stack="normalize", title="share", axis=alt.Axis(format="%")),
            color=alt.Color("family:N", legend=alt.Legend(orient="bottom", title="layer family")),
            order=alt.Order("family:N"),
            tooltip=[
                alt.Tooltip("measure:N"),
                alt.Tooltip("family:N"),
                alt.Tooltip("value:Q", format=".4~s"),
            ],
        )
        .properties(title=title, width="container", height=40 * len(measures))
    )
    return dict(chart.to_dict())
