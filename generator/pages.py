"""Markdown pages from frames and chart specs.

Everything that came from data is HTML-escaped (Jinja autoescape): kernel names hold `<`, `>`,
`&` and quotes. Tables are HTML so no Markdown syntax inside a name can break them, and chart
specs are embedded as JSON with `<`, `>`, `&` written as \\u escapes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import polars as pl
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from generator.catalog import PEAK_KEYS, Device
from generator.finding_html import admonitions
from generator.findings import Finding
from generator.ingest.runs import MeasuredCeilings
from generator.kernels import family_shares
from generator.roofline import Bound, DeviceMatch, Totals
from generator.tensor_work import TensorEvidence
from generator.units_format import number, percent, seconds, short_name, si

TOP_KERNELS = 15
_ENV = Environment(
    loader=PackageLoader("generator", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    keep_trailing_newline=True,
    trim_blocks=False,
)


def one_line(text: str) -> str:
    """Collapse whitespace so text fits inside an indented admonition."""
    return re.sub(r"\s+", " ", text).strip()


def embed_chart(spec: dict[str, Any], chart_id: str) -> Markup:
    """A chart div and its spec as inert JSON; charts.js renders it with vega-embed."""
    if not spec:
        return Markup('<p class="ra-no-chart">No point can be drawn: see the totals above.</p>')
    payload = (
        json.dumps(spec, separators=(",", ":"), sort_keys=True, allow_nan=False)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )
    return Markup(
        f'<script type="application/json" id="{chart_id}-spec">{payload}</script>\n'
        f'<div class="ra-chart" id="{chart_id}" data-spec="{chart_id}-spec"></div>'
    )


def html_title(title: str) -> str:
    """A title from data, on one line and HTML-escaped: MkDocs themes print page and nav
    titles without escaping them."""
    return str(escape(one_line(title)))


def front_matter_title(title: str) -> Markup:
    """The page title for the front matter (JSON strings are valid YAML)."""
    return Markup(json.dumps(html_title(title)))


@dataclass(frozen=True)
class MeasurementView:
    """Everything a measurement page shows."""

    slug: str
    title: str
    origin: str
    citation: str
    model: str
    workload: str
    batch: int | None
    phase: str
    precision: str
    notes: str
    license: str
    csv_path: str
    kernels: pl.DataFrame  # from roofline.kernel_metrics
    step: Totals
    ranges: dict[str, Totals]
    match: DeviceMatch
    bound: Bound | None
    chart: dict[str, Any]
    findings: tuple[Finding, ...] = ()
    analytic: dict[str, Any] | None = None  # a row of measurements/complexity/imported.csv
    tensor: TensorEvidence | None = None  # tensor-core work seen but not counted
    ingest_notes: tuple[str, ...] = ()  # what the ingest did (ncu_csv.NcuExport.notes)


def _totals_rows(view: MeasurementView) -> list[tuple[str, str]]:
    step, bound = view.step, view.bound
    rows = [
        ("kernels", str(step.kernels)),
        ("FLOPs", si(step.flops, "FLOP")),
        *((f"FLOPs, {p}", si(v, "FLOP")) for p, v in step.flops_by_precision.items()),
        ("DRAM bytes", si(step.dram_bytes, "B")),
        ("L2 bytes", si(step.l2_bytes, "B")),
        ("L1 bytes", si(step.l1_bytes, "B")),
        ("time (sum of kernels)", seconds(step.time_s)),
        ("attained", si(step.attained_flops_per_s, "FLOP/s")),
        ("arithmetic intensity (DRAM)", f"{number(step.arithmetic_intensity)} FLOP/byte"),
        ("SM % (time-weighted)", percent(step.sm_pct)),
        ("DRAM % (time-weighted)", percent(step.dram_pct)),
    ]
    if view.tensor is not None and view.tensor.estimate_flops is not None:
        rows.append(
            (
                "tensor FLOPs, uncounted (estimate, not in FLOPs above)",
                f"{si(view.tensor.estimate_flops, 'FLOP')} ({view.tensor.estimate_label})",
            )
        )
    if view.analytic is not None:
        forward = view.ranges.get("forward")
        a = view.analytic
        rows += [
            (
                f"analytic forward FLOPs ({a['model']}, {a['dataset']}, batch {a['batch']})",
                si(a["forward_flops"], "FLOP"),
            ),
            ("counted FLOPs in the forward range", si(forward.flops if forward else None, "FLOP")),
            (
                "analytic step FLOPs (forward, loss, backward, SGD update)",
                si(a["step_flops"], "FLOP"),
            ),
        ]
    if bound is not None:
        rows += [
            ("roof precision", bound.precision),
            ("peak", si(bound.peak_flops_per_s, "FLOP/s")),
            ("bandwidth", si(bound.bandwidth_bytes_per_s, "B/s")),
            ("ridge point", f"{number(bound.ridge_ai)} FLOP/byte"),
            ("bound", bound.bound),
            ("roof at this AI", si(bound.roof_flops_per_s, "FLOP/s")),
            ("efficiency (attained / roof)", percent(100 * bound.efficiency)),
        ]
    return rows


def _range_rows(view: MeasurementView) -> list[list[str]]:
    total_time = view.step.time_s
    rows = []
    for name, t in view.ranges.items():
        share = (
            percent(100 * t.time_s / total_time) if t.time_s is not None and total_time else "n/a"
        )
        rows.append(
            [
                name,
                str(t.kernels),
                si(t.flops, "FLOP"),
                si(t.dram_bytes, "B"),
                seconds(t.time_s),
                share,
                number(t.arithmetic_intensity),
                si(t.attained_flops_per_s, "FLOP/s"),
                percent(t.sm_pct),
                percent(t.dram_pct),
            ]
        )
    return rows


def _kernel_rows(view: MeasurementView) -> list[list[str]]:
    top = view.kernels.sort("time_s", descending=True, nulls_last=True).head(TOP_KERNELS)
    return [
        [
            str(k["kernel_id"]),
            k["kernel_name"] or "",
            short_name(k["kernel_name"], 90),
            k["nvtx_range"] or "(no range)",
            seconds(k["time_s"]),
            si(k["flops"], "FLOP"),
            si(k["dram_total_bytes"], "B"),
            number(k["arithmetic_intensity"]),
            si(k["attained_flops_per_s"], "FLOP/s"),
        ]
        for k in top.iter_rows(named=True)
    ]


def _warnings(view: MeasurementView) -> list[dict[str, str]]:
    """What findings do not cover (missing metrics are the missing-metric finding)."""
    found = []
    if view.match.device is None:
        found.append({"title": "No device", "text": view.match.note or "no catalog device"})
    return found


def _chart_caption(view: MeasurementView) -> str:
    drawable = view.kernels.filter(
        (pl.col("arithmetic_intensity") > 0) & (pl.col("attained_flops_per_s") > 0)
    ).height
    hidden = view.kernels.height - drawable
    caption = (
        f"Log-log roofline: {drawable} kernels as circles sized by their time, the step as a red "
        "diamond"
    )
    if view.match.device is not None:
        caption += f", ceilings of the {view.match.device.name} (datasheet, dense)"
    caption += "."
    if hidden:
        caption += (
            f" {hidden} kernels with zero or unknown FLOPs or bytes cannot be drawn on log axes "
            "and are not shown."
        )
    return caption


def _family_rows(view: MeasurementView) -> list[list[str]]:
    return [
        [
            row["family"],
            str(row["kernels"]),
            seconds(row["time_s"]),
            percent(row["time_pct"]),
            si(row["flops"], "FLOP"),
            si(row["dram_bytes"], "B"),
        ]
        for row in family_shares(view.kernels).to_dicts()
    ]


def _family_range_rows(view: MeasurementView) -> list[list[str]]:
    if view.kernels["nvtx_range"].null_count() == view.kernels.height:
        return []
    return [
        [
            row["nvtx_range"],
            row["family"],
            str(row["kernels"]),
            seconds(row["time_s"]),
            percent(row["time_pct"]),
        ]
        for row in family_shares(view.kernels, by_range=True).to_dicts()
    ]


def measurement_page(view: MeasurementView) -> str:
    device = view.match.device
    device_line = f"{device.name} ({view.match.how})" if device else "unknown"
    return _ENV.get_template("measurement.md.j2").render(
        title=view.title,
        title_yaml=front_matter_title(view.title),
        origin=view.origin,
        citation=one_line(view.citation),
        device_line=device_line,
        model=view.model,
        workload=one_line(view.workload),
        batch=view.batch if view.batch is not None else "n/a",
        phase=view.phase,
        precision=view.precision,
        notes=one_line(view.notes),
        ingest_notes=[one_line(n) for n in view.ingest_notes],
        license=one_line(view.license),
        warnings=_warnings(view),
        findings_html=admonitions(view.findings),
        totals_rows=_totals_rows(view),
        chart_html=embed_chart(view.chart, f"roofline-{view.slug}"),
        chart_caption=_chart_caption(view),
        range_rows=_range_rows(view),
        family_rows=_family_rows(view),
        family_range_rows=_family_range_rows(view),
        top_count=min(TOP_KERNELS, view.kernels.height),
        kernel_rows=_kernel_rows(view),
        csv_path=view.csv_path,
        device_id=device.id if device else "NAME",
    )


def measurements_index(views: list[MeasurementView]) -> str:
    rows = []
    for view in views:
        rows.append(
            {
                "href": f"{view.slug}/",
                "title": view.title,
                "cells": [
                    view.match.device.name if view.match.device else "unknown",
                    str(view.step.kernels),
                    si(view.step.flops, "FLOP"),
                    si(view.step.dram_bytes, "B"),
                    seconds(view.step.time_s),
                    number(view.step.arithmetic_intensity),
                    si(view.step.attained_flops_per_s, "FLOP/s"),
                    view.bound.bound if view.bound else "n/a",
                ],
            }
        )
    return _ENV.get_template("measurements_index.md.j2").render(rows=rows)


def _measured_rows(
    devices: tuple[Device, ...], ceilings: list[MeasuredCeilings]
) -> list[list[str]]:
    rows = []
    for measured in ceilings:
        match = next((d for d in devices if d.name.lower() == measured.device_name.lower()), None)
        rows.append(
            [
                measured.device_name,
                measured.gemm_summary() or "n/a",
                si(measured.triad_bytes_per_s, "B/s"),
                si(match.peak("fp32"), "FLOP/s") + " (fp32)" if match else "not in the catalog",
                si(match.bandwidth_bytes_per_s, "B/s") if match else "n/a",
                measured.measured_at,
            ]
        )
    return rows


def hardware_page(
    devices: tuple[Device, ...], ceilings: list[MeasuredCeilings] | None = None
) -> str:
    from generator.charts import multi_device_roofline  # altair: import on use

    def cell(device: Device, key: str) -> str:
        value = device.peak(key)
        if value is None:
            return "–"
        return f"{value / 1e12:.4g}" + (" †" if key in device.derived else "")

    rows = [
        {
            "name": d.name,
            "id": d.id,
            "cc": d.compute_capability or "–",
            "peaks": [cell(d, k) for k in PEAK_KEYS],
            "bandwidth": f"{d.bandwidth_bytes_per_s / 1e9:.4g}"
            + (" †" if "memory_bandwidth_gbs" in d.derived else ""),
            "memory": f"{d.memory_bytes / 1e9:.4g}",
            "tdp": f"{d.tdp_w:.4g}" if d.tdp_w else "n/a",
            "sms": str(d.sm_count) if d.sm_count else "–",
            "source": d.source,
            "notes": one_line(d.notes),
        }
        for d in devices
    ]
    catalog = list(devices)
    return _ENV.get_template("hardware.md.j2").render(
        devices=rows,
        peak_keys=PEAK_KEYS,
        fp32_chart=embed_chart(
            multi_device_roofline(catalog, "fp32", "FP32 (CUDA cores), datasheet"), "roofline-fp32"
        ),
        tensor_chart=embed_chart(
            multi_device_roofline(catalog, "fp16_tensor", "FP16 tensor cores (dense), datasheet"),
            "roofline-fp16-tensor",
        ),
        measured=_measured_rows(devices, ceilings or []),
    )
