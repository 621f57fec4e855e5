"""Roofline charts: an export's kernels, a group's modelled points, the catalog's devices,
and every step of the report on one chart."""

from __future__ import annotations

from typing import Any

import altair as alt
import polars as pl

from generator.analysis.kernels import FAMILIES, with_families
from generator.analysis.roofline import PEAK_FOR_PRECISION, Totals
from generator.catalog import Device
from generator.charts.scales import (
    ceiling_rows,
    device_legend,
    device_scale,
    log_y,
    roof_polyline,
    short_name,
)


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
                    y=log_y("flops_per_s"),
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
                y=log_y("attained_flops_per_s"),
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
                y=log_y("attained_flops_per_s"),
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


def modelled_roofline_chart(
    points: list[dict[str, Any]],
    roofs: dict[str, tuple[float, float]],
    title: str,
) -> dict[str, Any]:
    """Modelled step points (analytic FLOPs and bytes over measured time) under the
    ceilings measured on their device: GEMM rate and triad bandwidth. Several devices: one
    colour each, points and roof alike.

    points: {"label": str, "ai": float, "attained": float, "device": str};
    roofs: device -> (GEMM FLOP/s, triad byte/s)."""
    points = [p for p in points if p.get("ai") and p.get("attained")]
    if not points:
        return {}
    ais = [p["ai"] for p in points]
    ai_min, ai_max = min(ais) / 4, max(ais) * 4
    x = alt.X(
        "ai:Q", scale=alt.Scale(type="log"), title="arithmetic intensity (FLOP/byte, modelled)"
    )
    devices = {str(p.get("device")) for p in points} | set(roofs)
    several = len(devices) > 1
    by_device = alt.Color("device:N", scale=device_scale(devices), legend=device_legend(devices))
    layers = []
    if roofs:
        rows = []
        for device, (gemm, bandwidth) in roofs.items():
            label = (
                f"measured: GEMM {gemm / 1e9:.4g} GFLOP/s, triad {bandwidth / 1e9:.4g} GB/s, "
                f"ridge {gemm / bandwidth:.3g}"
            )
            named = {"ceiling": f"{device} {label}", "device": device}
            rows.extend(
                roof_polyline(gemm, bandwidth, ai_min, ai_max, **named)
                if several
                else roof_polyline(gemm, bandwidth, ai_min, ai_max, ceiling=label)
            )
        encoding: dict[str, Any] = {"x": x, "y": log_y("flops_per_s"), "order": "order:Q"}
        if several:
            encoding |= {"color": by_device, "tooltip": [alt.Tooltip("ceiling:N", title="roof")]}
        else:
            encoding["color"] = alt.Color(
                "ceiling:N", legend=alt.Legend(orient="bottom", title=None)
            )
        layers.append(
            alt.Chart(alt.Data(values=rows))  # type: ignore[no-untyped-call]
            .mark_line(strokeDash=[6, 3])
            .encode(**encoding)
        )
    tooltip = [
        alt.Tooltip("label:N", title="run"),
        alt.Tooltip("ai:Q", title="AI (FLOP/byte)", format=".4~g"),
        alt.Tooltip("attained:Q", title="modelled FLOP/s", format=".4~s"),
    ]
    layers.append(
        alt.Chart(alt.Data(values=points))  # type: ignore[no-untyped-call]
        .mark_point(filled=True, size=80, shape="diamond")
        .encode(
            x=x,
            y=log_y("attained"),
            tooltip=[alt.Tooltip("device:N"), *tooltip] if several else tooltip,
            **({"color": by_device} if several else {}),
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
        .encode(x=x, y=log_y("flops_per_s"), order="order:Q", color=color)
    )
    points = (
        alt.Chart(alt.Data(values=ridges))  # type: ignore[no-untyped-call]
        .mark_point(filled=True, size=50)
        .encode(
            x=x,
            y=log_y("flops_per_s"),
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
        legend=device_legend(devices),
    )
    lines = (
        alt.Chart(alt.Data(values=rows))  # type: ignore[no-untyped-call]
        .mark_line(strokeDash=[6, 3])
        .encode(
            x=x,
            y=log_y("flops_per_s"),
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
            y=log_y("attained"),
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
