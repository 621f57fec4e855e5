"""The conditions a run's number holds under, in one line for its citation: the device as
catalogued (with the name the machine reported), its clocks as recorded, threads, precision
and batch."""

from __future__ import annotations

from html import escape

from markupsafe import Markup

from generator.formatting import number
from generator.ingest.runs import RunRow
from generator.records.run import RunRecord


def _range(values: list[float], unit: str) -> str:
    low, high = min(values), max(values)
    return f"{number(low)} {unit}" if low == high else f"{number(low)}–{number(high)} {unit}"


def clocks_text(record: RunRecord | None) -> str:
    """What the timed rounds recorded of the clocks; clocks are never locked by `measure`."""
    conditions = (record.conditions if record is not None else None) or {}
    rounds = conditions.get("rounds") or []
    gpu = [clock for r in rounds if (clock := r.get("gpu", {}).get("sm_clock_mhz"))]
    cpu = [mhz for r in rounds if (mhz := r.get("cpu_mhz"))]
    if gpu:
        return f"SM clock {_range(gpu, 'MHz')} over the timed rounds (not locked)"
    if cpu:
        return f"CPU clock {_range(cpu, 'MHz')} over the timed rounds (not locked)"
    governor = conditions.get("cpu_governor")
    if governor:
        return f"CPU governor {governor}; clocks not readable"
    return "clocks not recorded (not locked: as the machine ran them)"


def conditions_text(row: RunRow, record: RunRecord | None) -> Markup:
    """Escaped here: the machine's own device name sits in a span a reader can hover."""
    recorded = record.device_name if record is not None else ""
    device = escape(str(row["device_label"]))
    if recorded and recorded.strip() != row["device_label"]:
        device += f' (reported as <span class="ra-recorded">“{escape(recorded.strip())}”</span>)'
    threads = (record.settings or {}).get("torch_threads") if record is not None else None
    parts = [
        device,
        clocks_text(record),
        *([f"{threads} torch threads"] if threads else []),
        f"precision {row['precision']}",
        f"batch {row['batch']}",
        row["phase"],
    ]
    return Markup("; ".join(escape(p) if p is not device else p for p in parts))
