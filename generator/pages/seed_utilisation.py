"""The section of an experiment page that sets seed 004's GPU utilisation and DRAM bandwidth
(nsys, whole windows on an A100) beside ours for the same model and phase
(analysis/gpu_utilisation.py), both devices named, with the cause in one sentence."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from markupsafe import Markup

from generator.analysis.gpu_utilisation import BesideSeed
from generator.catalog import Device, lookup_device
from generator.formatting import percent, si
from generator.pages.render import render


def _of_datasheet(rate: float, device: Device | None) -> str:
    """ " (2.48 % of the A100's 1.935 TB/s)" or "" where the device is not in the catalog."""
    if device is None:
        return ""
    share = percent(100 * rate / device.bandwidth_bytes_per_s)
    return f" ({share} of its datasheet {si(device.bandwidth_bytes_per_s, 'B/s')})"


def utilisation_section(
    pairs: Sequence[BesideSeed], workloads: Collection[str], catalog: Sequence[Device]
) -> Markup:
    """The section's Markdown for the pairs of the page's configurations; empty without one."""
    shown = [p for p in pairs if p.ours.workload in workloads]
    if not shown:
        return Markup("")
    by_id = {d.id: d for d in catalog}
    rows = []
    for pair in shown:
        seed, ours, result = pair.seed, pair.ours, pair.result
        seed_device = by_id.get(seed.device)
        our_device = lookup_device(result.device_name, tuple(catalog))
        bandwidth = "n/a (no modelled bytes)"
        if ours.bandwidth is not None:
            bandwidth = ours.bandwidth.text(lambda v: si(v, "B/s")) + _of_datasheet(
                ours.bandwidth.value, our_device
            )
        rows.append(
            {
                "ids": seed.share.id.removesuffix("gpu-util") + "*",
                "where": f"{seed.share.where}; {seed.read.where}",
                "seed_device": seed_device.name if seed_device else seed.device,
                "seed_share": percent(seed.share.published),
                "seed_bandwidth": f"{si(seed.read.published_base, 'B/s')} read + "
                f"{si(seed.write.published_base, 'B/s')} written"
                + _of_datasheet(seed.bandwidth, seed_device),
                "ours_device": result.device_label,
                "run": ours.run_id,
                "configuration": f"{result.model}, {result.dataset}, batch {result.batch}, "
                f"{result.phase}, {result.precision}",
                "busy": si(ours.busy_s, "s"),
                "step": ours.step.text(lambda v: si(v, "s")),
                "share": ours.share.percent_text(),
                "bandwidth": bandwidth,
                "ratio": pair.share_ratio.times_text(),
                "counted": ours.counted_elsewhere,
                "sentence": pair.sentence(),
            }
        )
    return Markup(render("seed_utilisation.md.j2", rows=rows))
