"""Roofline charts of one page's points: an export's kernels under its device's roofs, an
experiment's modelled points under the ceilings measured on their devices (several devices:
`device_roofs`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import polars as pl

from generator.analysis.kernels import FAMILIES, with_families
from generator.analysis.roofline import Totals
from generator.analysis.roofs import Roof
from generator.charts.captions import STEP_MARK
from generator.charts.roof_names import roof_name, roof_name_marks, roof_name_rows
from generator.charts.roofs import (
    ai_x,
    point_labels,
    ridge_marks,
    ridge_row,
    roof_domain,
    roof_lines,
)
from generator.charts.scales import (
    DASHES,
    DIRECT_LABELS_MAX,
    GUIDE_COLOUR,
    PLAIN_3,
    PLAIN_4,
    bottom_legend,
    category_scales,
    ceiling_rows,
    device_scale,
    finish,
    fit_title,
    frame_data,
    inline,
    log_y,
    roof_polyline,
    short_name,
)
from generator.charts.vega import VegaSpec
from generator.formatting import plain, si
from generator.records.peaks import PEAK_LABELS

ROOFLINE_PX = 380  # a kernel roofline's height
MODELLED_PX = 320


def roofline_chart(
    kernels: pl.DataFrame,
    step: Totals,
    roofs: Sequence[Roof],
    title: str,
) -> VegaSpec:
    """Log-log roofline: the page's roofs (`MeasurementView.roofs`) with their ridges, one
    point per kernel sized by time and marked by family, the step."""
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
    ridges = [
        ridge_row(r.peak_flops_per_s, r.bandwidth_bytes_per_s, PEAK_LABELS[r.precision])
        for r in roofs
    ]
    domain = roof_domain(ais, [r["ai"] for r in ridges])
    x = ai_x(domain, "arithmetic intensity (FLOP/byte, DRAM)")
    layers: list[alt.Chart] = []
    names: list[dict[str, Any]] = []
    if roofs:
        ceilings = pl.DataFrame(ceiling_rows(roofs, *domain))
        ys = [*ceilings.get_column("flops_per_s", default=pl.Series([])).to_list(),
              *points["attained_flops_per_s"].to_list(), step.attained_flops_per_s]  # fmt: skip
        names = roof_name_rows(
            [{"roof_name": roof_name(r.device, PEAK_LABELS[r.precision], r.source),
              "peak": r.peak_flops_per_s, "bandwidth": r.bandwidth_bytes_per_s} for r in roofs],
            domain, ys, ROOFLINE_PX,
        )  # fmt: skip
        devices = ", ".join(dict.fromkeys(r.device for r in roofs))
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
                            ceilings["ceiling"].unique(maintain_order=True), f"{devices} roof"
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
                    alt.Tooltip("time_share_pct:Q", title="share of time (%)", format=PLAIN_3),
                    alt.Tooltip("time_us:Q", title="time (µs)", format=PLAIN_4),
                    alt.Tooltip("gflops_per_s:Q", title="GFLOP/s", format=PLAIN_4),
                    alt.Tooltip("ai:Q", title="FLOP/byte", format=PLAIN_4),
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
                    alt.Tooltip("ai:Q", title="FLOP/byte", format=PLAIN_4),
                    alt.Tooltip("attained_flops_per_s:Q", title="FLOP/s", format=".4~s"),
                ],
            )
        )
    if not layers:
        return {}
    layers.extend(ridge_marks(ridges, x))
    layers.extend(roof_name_marks(names, x))
    if kernel_points.height + len(labelled) <= DIRECT_LABELS_MAX:
        named = kernel_points.select("ai", "attained_flops_per_s", label="kernel").to_dicts()
        labelled = named + labelled
    layers.extend(point_labels(labelled, x, log_y("attained_flops_per_s"), domain))
    chart = alt.layer(*layers).properties(
        title=fit_title(title), width="container", height=ROOFLINE_PX
    )
    return finish(chart)


ON_ROOFS = "set by the GPU's work"
HOST_BOUND_STEP = "host-bound (launch): set by the host, not these roofs"


def modelled_roofline_chart(
    points: list[dict[str, Any]],
    roofs: list[dict[str, Any]],
    title: str,
) -> VegaSpec:
    """Modelled step points (analytic FLOPs and bytes over measured time) under the
    ceilings measured on their device, one roof per precision the points use (GEMM rate in
    that precision, the measured memory roof): each device in its hue, each roof named.

    points: {"label", "ai", "attained", "device", "precision", "host_bound" (optional: a
    host-bound (launch) step, drawn apart)}; roofs: {"device",
    "precision", "peak" (GEMM FLOP/s), "bandwidth" (the memory roof, byte/s)}, only the
    precisions of the device's points."""
    points = [p for p in points if p.get("ai") and p.get("attained")]
    if not points:
        return {}
    used = {(str(p.get("device")), str(p.get("precision"))) for p in points}
    roofs = [r for r in roofs if (r["device"], r["precision"]) in used]
    devices = {str(p.get("device")) for p in points}
    ridges = [
        ridge_row(r["peak"], r["bandwidth"], roof_name(r["device"], r["precision"], "measured"),
                  device=r["device"])
        for r in roofs
    ]  # fmt: skip
    domain = roof_domain([p["ai"] for p in points], [r["ai"] for r in ridges])
    x = ai_x(domain, "arithmetic intensity (FLOP/byte, modelled)")
    legend = bottom_legend(sorted(devices), "device")
    by_device = alt.Color("device:N", scale=device_scale(devices), legend=legend)
    layers = []
    rows: list[dict[str, Any]] = []
    named: list[dict[str, Any]] = []
    for roof in roofs:
        name = roof_name(roof["device"], roof["precision"], "measured")
        label = (
            f"{name}: GEMM {si(roof['peak'], 'FLOP/s')}, memory {si(roof['bandwidth'], 'B/s')}, "
            f"ridge {plain(roof['peak'] / roof['bandwidth'], 3)}"
        )
        fields = {"device": roof["device"], "precision": roof["precision"], "ceiling": label}
        rows.extend(roof_polyline(roof["peak"], roof["bandwidth"], *domain, **fields))
        named.append({"roof_name": name, **roof})
    if rows:
        ceilings = [r["ceiling"] for r in rows if r["order"] == 0]
        dashes = alt.Scale(
            domain=ceilings, range=[DASHES[i % len(DASHES)] for i in range(len(ceilings))]
        )
        legend = bottom_legend(ceilings, "roof")
        dash = alt.StrokeDash("ceiling:N", scale=dashes, legend=legend)
        layers.append(roof_lines(rows, x, "ceiling", color=by_device, strokeDash=dash))
    several = len(devices) > 1
    tooltip = [
        alt.Tooltip("label:N", title="run"),
        alt.Tooltip("precision:N"),
        alt.Tooltip("ai:Q", title="AI (FLOP/byte)", format=PLAIN_4),
        alt.Tooltip("attained:Q", title="modelled FLOP/s", format=".4~s"),
    ]
    # A host-bound (launch) step is drawn apart: the host sets its time, not these roofs.
    host = [bool(p.get("host_bound")) for p in points]
    apart = any(host)
    points = [{k: v for k, v in p.items() if k != "host_bound"} for p in points]
    encoding: VegaSpec = {
        "x": x,
        "y": log_y("attained"),
        "color": by_device,
        "tooltip": [alt.Tooltip("device:N"), *tooltip] if several else tooltip,
    }
    mark: VegaSpec = {"filled": True, "size": 80, "shape": "diamond"}
    if apart:
        steps = [ON_ROOFS, HOST_BOUND_STEP]
        points = [
            {**p, "step": HOST_BOUND_STEP if bound else ON_ROOFS}
            for p, bound in zip(points, host, strict=True)
        ]
        encoding["shape"] = alt.Shape(
            "step:N",
            scale=alt.Scale(domain=steps, range=["diamond", "triangle-down"]),
            legend=bottom_legend(steps, "step"),
        )
        encoding["tooltip"] = [*encoding["tooltip"], alt.Tooltip("step:N")]
        mark.pop("shape")
    layers.append(alt.Chart(inline(points)).mark_point(**mark).encode(**encoding))
    layers.extend(ridge_marks(ridges, x, by_device))
    ys = [*(r["flops_per_s"] for r in rows), *(p["attained"] for p in points)]
    layers.extend(roof_name_marks(roof_name_rows(named, domain, ys, MODELLED_PX), x, by_device))
    layers.extend(point_labels(points, x, log_y("attained"), domain))
    chart = alt.layer(*layers).properties(
        title=fit_title(title), width="container", height=MODELLED_PX
    )
    return finish(chart)
