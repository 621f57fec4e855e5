"""The kernel pages' views: an imported ncu export's, and a measured run's `--ncu`
profile's, each checked against its analytic counts and placed under its one roof
(analysis/roofs.py), which its chart draws and its verdict names."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from generator.analysis.roofline import bound_against
from generator.analysis.roofs import PREFERRED, Roof, roof_for
from generator.analysis.views import MeasurementView
from generator.catalog import Device, device_label, lookup_device
from generator.ingest import NcuExport
from generator.pages.run_text import run_label
from generator.records.ceilings import MeasuredCeilings
from generator.records.import_source import Imported
from generator.records.run import RunRecord
from generator.site.export_cache import cached_check
from generator.site.load import Loaded, ProfiledRun
from generator.store import Store
from generator.summaries.export import CheckedExport


def run_roof(
    record: RunRecord, ceilings: Sequence[MeasuredCeilings], catalog: tuple[Device, ...] | None
) -> Roof | None:
    """A measured run's roof by the one rule (analysis/roofs.py): its points sit under it on
    its run page, its kernel page and its trace page alike."""
    device = device_label(record.device_name)
    return roof_for(device, record.config.precision, PREFERRED, ceilings, catalog)


def imported_view(
    item: Imported,
    export: NcuExport,
    counts: dict[str, Any] | None,
    cache: Store,
    loaded: Loaded,
) -> MeasurementView:
    source = item.source
    checked = cached_check(
        export,
        source.device,
        source.phase,
        cache,
        analytic_training_flops=counts["step_flops"]
        if counts and source.phase == "train_step"
        else None,
        analytic_forward_flops=counts["forward_flops"] if counts else None,
        analytic_backward_flops=counts.get("backward_flops")
        if counts and source.phase == "train_step"
        else None,
    )
    return MeasurementView(
        slug=item.name,
        title=source.title,
        origin=source.origin,
        citation=source.citation,
        model=source.model,
        workload=source.workload,
        batch=source.batch,
        phase=source.phase,
        precision=source.precision,
        notes=source.notes,
        license=source.license,
        **_analysed(checked, item.csv_path, counts, _export_roof(checked, loaded), loaded),
    )


def _export_roof(checked: CheckedExport, loaded: Loaded) -> Roof | None:
    """An imported export's roof: its device's, for the precision that dominates its counted
    FLOPs, measured first (roofs.roof_for): the datasheet's where we measured no ceilings."""
    device, precision = checked.analysis.match.device, checked.analysis.step.dominant_precision
    if device is None or precision is None:
        return None
    return roof_for(device.name, precision, PREFERRED, loaded.ceilings, loaded.catalog)


def run_view(run: ProfiledRun, loaded: Loaded, cache: Store) -> MeasurementView:
    """A kernel page for a run profiled with `--ncu`, checked against the run's own
    analytic counts."""
    record = run.record
    config, counts = record.config, record.complexity or {}
    # Else matched from the export's compute capability, or left unmatched.
    known = lookup_device(record.device_name, loaded.catalog)
    device = known.id if known else None
    phase = config.phase
    checked = cached_check(
        run.export,
        device,
        phase,
        cache,
        analytic_training_flops=counts.get("step_flops") if phase == "train_step" else None,
        analytic_forward_flops=counts.get("forward_flops"),
        analytic_backward_flops=counts.get("backward_flops") if phase == "train_step" else None,
    )
    run_id, commit = record.run_id, record.commit or "unknown"
    csv_path = run.csv_path
    return MeasurementView(
        slug=f"run-{run_id}",
        title=f"{run_label({**config.model_dump(), 'device_label': device_label(record.device_name)})}"
        f" (group {config.group}): kernels",
        origin=f"measured here: `{csv_path.as_posix()}` (`nox -s measure -- --ncu`)",
        citation=f"Roofline Atlas, run {run_id} (commit {commit[:12]})",
        model=config.model,
        workload=f"one {phase} on synthetic {config.dataset}-shaped input",
        batch=config.batch,
        phase=phase,
        precision=config.precision,
        notes="Kernel replay under ncu: clocks locked to base and caches flushed "
        "between replays, so kernel times are longer than unprofiled ones.",
        license="",
        **_analysed(
            checked,
            csv_path,
            {"model": config.model, "dataset": config.dataset, "batch": config.batch, **counts}
            if counts
            else None,
            run_roof(record, loaded.ceilings, loaded.catalog),
            loaded,
        ),
    )


def _chart_roofs(checked: CheckedExport, roof: Roof | None, loaded: Loaded) -> tuple[Roof, ...]:
    """The roofs a kernel page's chart draws: each counted precision's on the page's device,
    by the one rule, and the page's own roof (which its verdict names) among them."""
    step, device = checked.analysis.step, checked.analysis.match.device
    name = roof.device if roof is not None else device.name if device is not None else None
    precisions = [p for p, v in step.flops_by_precision.items() if v > 0] or ["fp32"]
    found = [
        r
        for p in precisions
        if name and (r := roof_for(name, p, PREFERRED, loaded.ceilings, loaded.catalog))
    ]
    return tuple(dict.fromkeys([*found, *([roof] if roof is not None else [])]))


def _analysed(
    checked: CheckedExport,
    csv_path: Path,
    analytic: dict[str, Any] | None,
    roof: Roof | None,
    loaded: Loaded,
) -> dict[str, Any]:
    """The MeasurementView fields an export's analysis fills (chart: drawn later): its step
    under the page's `roof`, which its chart draws and its verdict names."""
    analysis = checked.analysis
    return {
        "csv_path": csv_path.as_posix(),
        "kernels": analysis.metrics,
        "step": analysis.step,
        "ranges": analysis.ranges,
        "match": analysis.match,
        "bound": bound_against(analysis.step, roof),
        "roof": roof,
        "roofs": _chart_roofs(checked, roof, loaded),
        "chart": {},
        "findings": checked.findings,
        "analytic": analytic,
        "tensor": analysis.tensor,
        "ingest_notes": analysis.ingest_notes,
    }
