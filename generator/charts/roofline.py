"""Roofline charts: an export's kernels, a group's modelled points, the catalog's devices,
and every step of the report on one chart."""

from __future__ import annotations

from typing import Any

import altair as alt
import polars as pl

from generator.analysis.kernels import FAMILIES, with_families
from generator.analysis.roofline import PEAK_FOR_PRECISION, Totals
from generator.catalog import Device
from generator.charts.captions import STEP_MARK
from generator.charts.roofs import (
    ai_x,
    kind_shape,
    point_labels,
    ridge_marks,
    ridge_row,
    roof_domain,
    short_label,
)
from generator.charts.scales import (
    DIRECT_LABELS_MAX,
    GUIDE_COLOUR,
    PRECISION_LABELS,
    bottom_legend,
    category_scales,
    ceiling_rows,
    device_dash_scale,
    device_order,
    device_scale,
    device_shape_scale,
    finish,
    fit_title,
    frame_data,
    inline,
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
    """Log-log roofline: the device's ceilings with their ridges, one point per kernel
    sized by time and marked by family, the step."""
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
        ridge_row(peak, device.bandwidth_bytes_per_s, PRECISION_LABELS[p])
        for p in precisions
        if device and (peak := device.peak(PEAK_FOR_PRECISION[p]))
    ]
    domain = roof_domain(ais, [r["ai"] for r in ridges])
    x = ai_x(domain, "arithmetic intensity (FLOP/byte, DRAM)")
    layers: list[alt.Chart] = []
    if device is not None:
        ceilings = pl.DataFrame(ceiling_rows(device, precisions, *domain))
        if ceilings.height:
            layers.append(
                alt.Chart(frame_data(ceilings))
                .mark_line(color=GUIDE_COLOUR, strokeWidth=2)
                .encode(
                    x=x,
                    y=log_y("flops_per_s"),
                    detail="ceiling:N",
                    strokeDash=alt.StrokeDash(
                        "ceiling:N",
                        legend=bottom_legend(
                            ceilings["ceiling"].unique(maintain_order=True), f"{device.name} roof"
                        ),
                    ),
                    order="order:Q",
                    tooltip=[alt.Tooltip("ceiling:N", title="roof")],
                )
            )
    kernel_points = points.rename({"arithmetic_intensity": "ai"})
    if kernel_points.height:
        present = set(kernel_points["family"].to_list())
        families = [f for f in FAMILIES if f in present]
        # the families on this chart, in FAMILIES order: up to seven all differ in hue
        # (fifteen stable ones would give conv fprop and elementwise one grey)
        colours, shapes, _ = category_scales(families)
        # one legend for both channels: a family is a hue and a marker
        legend = bottom_legend(families, "kernel family")
        layers.append(
            alt.Chart(frame_data(kernel_points))
            .mark_point(filled=True, opacity=0.75)
            .encode(
                x=x,
                y=log_y("attained_flops_per_s"),
                size=alt.Size(
                    "time_share_pct:Q",
                    title="share of kernel time (%)",
                    scale=alt.Scale(range=[15, 600]),
                    legend=alt.Legend(orient="bottom"),
                ),
                color=alt.Color("family:N", scale=colours, legend=legend),
                shape=alt.Shape("family:N", scale=shapes, legend=legend),
                tooltip=[
                    alt.Tooltip("kernel:N", title="kernel"),
                    alt.Tooltip("kernel_id:Q", title="ncu ID"),
                    alt.Tooltip("family:N", title="family"),
                    alt.Tooltip("range:N", title="NVTX range"),
                    alt.Tooltip("time_share_pct:Q", title="share of time (%)", format=".3g"),
                    alt.Tooltip("time_us:Q", title="time (µs)", format=".4g"),
                    alt.Tooltip("gflops_per_s:Q", title="GFLOP/s", format=".4g"),
                    alt.Tooltip("ai:Q", title="FLOP/byte", format=".4g"),
                ],
            )
        )
    labelled: list[dict[str, Any]] = []
    if step_ai and step_attained:
        step_row = {"ai": step_ai, "attained_flops_per_s": step_attained, "label": "step"}
        labelled.append(step_row)
        layers.append(
            alt.Chart(inline([step_row]))
            .mark_point(**STEP_MARK)
            .encode(
                x=x,
                y=log_y("attained_flops_per_s"),
                tooltip=[
                    alt.Tooltip("label:N", title="point"),
                    alt.Tooltip("ai:Q", title="FLOP/byte", format=".4g"),
                    alt.Tooltip("attained_flops_per_s:Q", title="FLOP/s", format=".4~s"),
                ],
            )
        )
    if not layers:
        return {}
    layers.extend(ridge_marks(ridges, x))
    if kernel_points.height + len(labelled) <= DIRECT_LABELS_MAX:
        named = kernel_points.select("ai", "attained_flops_per_s", label="kernel").to_dicts()
        labelled = named + labelled
    layers.extend(point_labels(labelled, x, log_y("attained_flops_per_s"), domain))
    chart = alt.layer(*layers).properties(title=fit_title(title), width="container", height=380)
    return finish(chart)


def modelled_roofline_chart(
    points: list[dict[str, Any]],
    roofs: dict[str, tuple[float, float]],
    title: str,
) -> dict[str, Any]:
    """Modelled step points (analytic FLOPs and bytes over measured time) under the
    ceilings measured on their device: GEMM rate and triad bandwidth. Several devices: one
    colour and dash each, points and roof alike.

    points: {"label": str, "ai": float, "attained": float, "device": str};
    roofs: device -> (GEMM FLOP/s, triad byte/s)."""
    points = [p for p in points if p.get("ai") and p.get("attained")]
    if not points:
        return {}
    devices = {str(p.get("device")) for p in points} | set(roofs)
    several = len(devices) > 1
    ridges = [
        ridge_row(gemm, bandwidth, "measured", **({"device": device} if several else {}))
        for device, (gemm, bandwidth) in roofs.items()
    ]
    domain = roof_domain([p["ai"] for p in points], [r["ai"] for r in ridges])
    x = ai_x(domain, "arithmetic intensity (FLOP/byte, modelled)")
    legend = bottom_legend(sorted(devices), symbolType="stroke", symbolStrokeWidth=2.5)
    by_device = alt.Color("device:N", scale=device_scale(devices), legend=legend)
    layers = []
    if roofs:
        rows = []
        for device, (gemm, bandwidth) in roofs.items():
            label = (
                f"measured: GEMM {gemm / 1e9:.4g} GFLOP/s, triad {bandwidth / 1e9:.4g} GB/s, "
                f"ridge {gemm / bandwidth:.3g}"
            )
            named: dict[str, Any] = {"ceiling": f"{device} {label}", "device": device}
            rows.extend(
                roof_polyline(gemm, bandwidth, *domain, **named)
                if several
                else roof_polyline(gemm, bandwidth, *domain, ceiling=label)
            )
        encoding: dict[str, Any] = {"x": x, "y": log_y("flops_per_s"), "order": "order:Q"}
        if several:
            dash = alt.StrokeDash("device:N", scale=device_dash_scale(devices), legend=legend)
            encoding |= {
                "color": by_device,
                "strokeDash": dash,
                "tooltip": [alt.Tooltip("ceiling:N", title="roof")],
            }
        else:
            encoding["color"] = alt.Color(
                "ceiling:N",
                scale=alt.Scale(range=[GUIDE_COLOUR]),
                legend=bottom_legend([r["ceiling"] for r in rows[:1]]),
            )
            encoding["tooltip"] = [alt.Tooltip("ceiling:N", title="roof")]
        layers.append(alt.Chart(inline(rows)).mark_line().encode(**encoding))
    tooltip = [
        alt.Tooltip("label:N", title="run"),
        alt.Tooltip("ai:Q", title="AI (FLOP/byte)", format=".4~g"),
        alt.Tooltip("attained:Q", title="modelled FLOP/s", format=".4~s"),
    ]
    layers.append(
        alt.Chart(inline(points))
        .mark_point(filled=True, size=80, shape="diamond")
        .encode(
            x=x,
            y=log_y("attained"),
            tooltip=[alt.Tooltip("device:N"), *tooltip] if several else tooltip,
            **({"color": by_device} if several else {}),
        )
    )
    layers.extend(ridge_marks(ridges, x, by_device if several else None))
    layers.extend(point_labels(points, x, log_y("attained"), domain))
    chart = alt.layer(*layers).properties(title=fit_title(title), width="container", height=320)
    return finish(chart)


def multi_device_roofline(devices: list[Device], peak_key: str, title: str) -> dict[str, Any]:
    """Every catalog device's roof for one datasheet peak (as seed 003's Figure 1): memory
    slope up to the ridge, then flat; one hue and dash per device (a marker at its
    ridge), the x domain wide enough for every device's slope and flat part."""
    ridges: list[dict[str, Any]] = []
    for device in devices:
        peak = device.peak(peak_key)
        if peak is None:
            continue
        bandwidth = device.bandwidth_bytes_per_s
        ridges.append(
            {**ridge_row(peak, bandwidth, short_label(device.name)), "device": device.name,
             "bandwidth": bandwidth}
        )  # fmt: skip
    if not ridges:
        return {}
    domain = roof_domain([], [r["ai"] for r in ridges])
    rows = [
        row
        for r in ridges
        for row in roof_polyline(r["flops_per_s"], r["bandwidth"], *domain, device=r["device"])
    ]
    x = ai_x(domain, "arithmetic intensity (FLOP/byte)")
    names = {r["device"] for r in ridges}
    # catalog order, as the scale: a legend row per device, hue and dash and marker in one
    legend = bottom_legend([n for n in device_order(names) if n in names])
    color = alt.Color("device:N", scale=device_scale(names), legend=legend)
    lines = _device_roofs(rows, x, color, names, legend)
    points = (
        alt.Chart(inline(ridges))
        .mark_point(filled=True, size=70, stroke="black", strokeWidth=0.5)
        .encode(
            x=x,
            y=log_y("flops_per_s"),
            color=color,
            shape=alt.Shape("device:N", scale=device_shape_scale(names), legend=legend),
            tooltip=[
                alt.Tooltip("device:N"),
                alt.Tooltip("flops_per_s:Q", title="peak (FLOP/s)", format=".4~s"),
                alt.Tooltip("bandwidth:Q", title="bandwidth (B/s)", format=".4~s"),
                alt.Tooltip("ai:Q", title="ridge (FLOP/byte)", format=".4~g"),
            ],
        )
    )
    labels = point_labels(ridges, x, log_y("flops_per_s"), domain, field="device")
    chart = alt.layer(lines, points, *labels).properties(
        title=fit_title(title), width="container", height=360
    )
    return finish(chart)


def _device_roofs(
    rows: list[dict[str, Any]],
    x: alt.X,
    color: alt.Color,
    devices: set[str],
    legend: alt.Legend,
    **encoding: Any,
) -> alt.Chart:
    """Each device's roof polyline (`roof_polyline` rows) in its hue and dash."""
    chart: alt.Chart = (
        alt.Chart(inline(rows))
        .mark_line()
        .encode(
            x=x,
            y=log_y("flops_per_s"),
            order="order:Q",
            color=color,
            strokeDash=alt.StrokeDash("device:N", scale=device_dash_scale(devices), legend=legend),
            **encoding,
        )
    )
    return chart


def overview_roofline(points: list[dict[str, Any]], roofs: list[dict[str, Any]]) -> dict[str, Any]:
    """Every step point of every device on one log-log chart, each device's roof in its
    hue and dash: catalog datasheet roofs for ncu-measured points, measured GEMM and triad
    roofs for CPU points (modelled).

    points: {"device", "label", "kind", "ai", "attained"}; roofs: {"device", "label", "peak",
    "bandwidth"}."""
    points = [p for p in points if p.get("ai") and p.get("attained")]
    if not points:
        return {}
    ridges = [
        ridge_row(r["peak"], r["bandwidth"], r["label"], device=r["device"], roof=r["label"])
        for r in roofs
        if r.get("peak") and r.get("bandwidth")
    ]
    domain = roof_domain([p["ai"] for p in points], [r["ai"] for r in ridges])
    rows: list[dict[str, Any]] = []
    for roof in roofs:
        rows.extend(
            roof_polyline(
                roof["peak"], roof["bandwidth"], *domain, device=roof["device"], roof=roof["label"]
            )
        )
    devices = {p["device"] for p in points} | {r["device"] for r in roofs}
    x = ai_x(domain, "arithmetic intensity (FLOP/byte)")
    # a legend row per device drawn as its roof: hue and dash
    legend = bottom_legend(sorted(devices), symbolType="stroke", symbolStrokeWidth=2.5)
    color = alt.Color("device:N", scale=device_scale(devices), legend=legend)
    lines = _device_roofs(
        rows,
        x,
        color,
        devices,
        legend,
        detail="roof:N",
        tooltip=[alt.Tooltip("roof:N", title="roof")],
    )
    kinds = sorted({str(p["kind"]) for p in points})
    dots = (
        alt.Chart(inline(points))
        .mark_point(filled=True, size=90, stroke="black", strokeWidth=0.5)
        .encode(
            x=x,
            y=log_y("attained"),
            color=color,
            shape=alt.Shape(
                "kind:N",
                scale=alt.Scale(domain=kinds, range=[kind_shape(k) for k in kinds]),
                legend=bottom_legend(kinds),
            ),
            tooltip=[
                alt.Tooltip("label:N", title="step"),
                alt.Tooltip("device:N"),
                alt.Tooltip("kind:N", title="how"),
                alt.Tooltip("ai:Q", title="AI (FLOP/byte)", format=".4~g"),
                alt.Tooltip("attained:Q", title="FLOP/s", format=".4~s"),
            ],
        )
    )
    # a ridge rule per roof while they stay few enough to tell apart
    marks = ridge_marks(ridges, x, color)[:1] if len(ridges) <= DIRECT_LABELS_MAX // 2 else []
    chart = alt.layer(
        lines, dots, *marks, *point_labels(points, x, log_y("attained"), domain)
    ).properties(
        title=fit_title("Every step on its device's roofline"), width="container", height=420
    )
    return finish(chart)
