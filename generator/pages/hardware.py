"""The Hardware page: the device catalog, multi-device datasheet rooflines, and the ceilings
measured here beside them."""

from __future__ import annotations

from markupsafe import Markup

from generator.analysis.roofs import DATASHEET, GEMM_OF_PEAK, Roof, roof_for
from generator.catalog import Device, device_label
from generator.catalog.derivation import fp32_derivation
from generator.formatting import number, percent, si, slug
from generator.pages.data import catalog_frame, ceilings_frame
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import HARDWARE_PAGE
from generator.pages.render import ChartBook, one_line, render
from generator.records.ceilings import MeasuredCeilings
from generator.records.peaks import PEAK_KEYS, PEAK_LABELS

# A measured GEMM precision (ceilings file) -> the catalog peak it is compared with. On a
# GPU the reduced precisions run on tensor cores; a CPU is never in the catalog.
# The hardware table's main columns: the precisions a training step runs in. The rest
# (FP64, FP16 and BF16 without tensor cores, INT8, INT4) sit in a table folded under it, so
# that no column hides behind a scroll bar at 1400 px.
MAIN_PEAKS = ("fp32", "tf32_tensor", "bf16_tensor", "fp16_tensor", "fp8_tensor")
# The catalog's roofs a few devices at a time, by architecture: thirty roofs on one chart
# cannot each be named (and Vega cut its legend at thirty); the rest go in the last group,
# whose chart is named after the devices it draws (`others_title`).
OTHERS = ""
ROOF_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("NVIDIA Volta and Turing", ("Volta", "Turing")),
    ("NVIDIA Ampere", ("Ampere",)),
    ("NVIDIA Ada Lovelace", ("Ada Lovelace",)),
    ("NVIDIA Hopper and Blackwell", ("Hopper", "Blackwell")),
    (OTHERS, ()),
)
ROOF_CHARTS = (("fp32", "FP32 (CUDA cores)"), ("fp16_tensor", "FP16 tensor cores (dense)"))


def roof_groups(devices: tuple[Device, ...]) -> list[tuple[str, list[Device]]]:
    """The catalog split into `ROOF_GROUPS`, each in catalog order; every device in one."""
    known = {a for _, architectures in ROOF_GROUPS for a in architectures}
    return [
        (name, [d for d in devices if d.architecture in architectures
                or (not architectures and d.architecture not in known)])
        for name, architectures in ROOF_GROUPS
    ]  # fmt: skip


def others_title(drawn: list[Device]) -> str:
    """The catch-all group's name from the devices its chart draws: each accelerator
    vendor's kind ("AMD GPUs"), then "CPUs" where any is drawn, in catalog order."""
    kinds = [f"{d.vendor} {d.kind.upper()}s" for d in drawn if d.kind != "cpu"]
    parts = list(dict.fromkeys(kinds)) + (["CPUs"] if any(d.kind == "cpu" for d in drawn) else [])
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def roof_charts(charts: ChartBook, devices: tuple[Device, ...]) -> list[Markup]:
    """Per precision, a datasheet roofline per group of devices that has that peak."""
    from generator.charts import multi_device_roofline  # altair: import on use
    from generator.charts.device_roofs import drawn_devices

    embedded = []
    for key, precision in ROOF_CHARTS:
        for name, group in roof_groups(devices):
            drawn = drawn_devices(group, key)
            if not drawn:
                continue
            name = name or others_title(drawn)
            spec = multi_device_roofline(drawn, key, f"{precision}, datasheet: {name}")
            if spec:
                embedded.append(
                    charts.embed(spec, f"roofline-{key.replace('_', '-')}-{slug(name)}")
                )
    return embedded


def _measured_rows(
    devices: tuple[Device, ...], ceilings: list[MeasuredCeilings]
) -> list[list[str]]:
    """One row per measured ceiling: measured, datasheet, and their ratio."""
    rows = []
    peak_of_gemm = {gemm: peak for peak, gemm in GEMM_OF_PEAK.items()}
    for measured in ceilings:
        name = measured.device_name

        def sheet_roof(gemm: str, name: str = name) -> Roof | None:
            """The datasheet roof of a measured GEMM's precision (`roofs.roof_for`)."""
            peak = peak_of_gemm.get(gemm)
            return roof_for(name, peak, DATASHEET, catalog=devices) if peak else None

        quantities: list[tuple[str, float | None, float | None, str]] = [
            (
                f"{precision} GEMM",
                rate,
                sheet.peak_flops_per_s if (sheet := sheet_roof(precision)) else None,
                "FLOP/s",
            )
            for precision, rate in measured.gemm_flops_per_s.items()
        ]
        memory = sheet_roof("fp32")  # the datasheet's one memory roof
        datasheet_bandwidth = memory.bandwidth_bytes_per_s if memory else None
        quantities += [
            ("STREAM copy", measured.copy_bytes_per_s, datasheet_bandwidth, "B/s"),
            ("STREAM triad", measured.triad_bytes_per_s, datasheet_bandwidth, "B/s"),
        ]
        for quantity, value, datasheet, unit in quantities:
            rows.append(
                [
                    device_label(measured.device_name),
                    quantity,
                    si(value, unit),
                    si(datasheet, unit) if datasheet else "not in the catalog",
                    percent(100 * value / datasheet) if value and datasheet else "n/a",
                    measured.measured_at,
                ]
            )
    return rows


def _notes(device: Device) -> str:
    """The device's catalog notes, led by its FP32 peak multiplied out where the catalog
    states the cores per SM."""
    derivation = fp32_derivation(device)
    if derivation is None:
        return device.notes
    return f"{derivation.sentence()}. {device.notes}".strip()


def hardware_page(
    devices: tuple[Device, ...], ceilings: list[MeasuredCeilings] | None = None
) -> Page:
    from generator.charts.precision import precision_chart  # altair: import on use

    def cell(device: Device, key: str) -> str:
        value = device.peak(key)
        if value is None:
            return "–"
        return number(value / 1e12) + (" †" if key in device.derived else "")

    rows = [
        {
            "name": d.name,
            "id": d.id,
            "cc": d.compute_capability or "–",
            "main": [cell(d, k) for k in MAIN_PEAKS],
            "other": [cell(d, k) for k in PEAK_KEYS if k not in MAIN_PEAKS],
            "bandwidth": number(d.bandwidth_bytes_per_s / 1e9)
            + (" †" if "memory_bandwidth_gbs" in d.derived else ""),
            "memory": number(d.memory_bytes / 1e9),
            "memory_type": d.memory_type or "–",
            "tdp": number(d.tdp_w) if d.tdp_w else "n/a",
            "sms": str(d.sm_count) if d.sm_count else "–",
            "source": d.source,
            "notes": one_line(_notes(d)),
        }
        for d in devices
    ]
    catalog = list(devices)
    charts = ChartBook(HARDWARE_PAGE)
    markdown = render(
        "hardware.md.j2",
        devices=rows,
        main_labels=[PEAK_LABELS[k] for k in MAIN_PEAKS],
        other_labels=[PEAK_LABELS[k] for k in PEAK_KEYS if k not in MAIN_PEAKS],
        precision_chart=charts.embed(
            precision_chart(catalog, "Dense peak per precision, datasheet"), "peak-per-precision"
        ),
        roof_charts=roof_charts(charts, devices),
        measured=_measured_rows(devices, ceilings or []),
    )
    return Page(
        HARDWARE_PAGE,
        "Hardware",
        markdown,
        charts.specs,
        {"catalog": catalog_frame(devices), "measured-ceilings": ceilings_frame(ceilings or [])},
    )


def _render(report: Report) -> list[Page]:
    return [hardware_page(report.catalog, report.ceilings)]


PAGE = Generated(None, _render)
