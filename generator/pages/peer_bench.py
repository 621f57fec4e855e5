"""The Tool performance page's "peer" section: TraceLens and Roofline Atlas on the same real
traces, from the `peer` entry of benchmarks/results.json (`python -m benchmarks.peer`).
Names are escaped by the template (Jinja autoescape)."""

from __future__ import annotations

from typing import Any

from generator.formatting import percent, si

NOT_MEASURED = (
    "Not measured yet: `python -m benchmarks.peer --tracelens PATH` runs TraceLens and "
    "Roofline Atlas on the real traces in `tests/data/traces/`."
)
AGREE = 0.01  # per-op FLOPs or bytes within 1 % count as the same


def _share(value: float | None) -> str:
    return percent(100 * value) if value is not None else "n/a"


def _differs(ours: float | None, theirs: float | None) -> bool:
    if ours is None or theirs is None:
        return False
    scale = max(abs(ours), abs(theirs))
    return scale > 0 and abs(ours - theirs) > AGREE * scale


def _trace_row(entry: dict[str, Any]) -> list[str]:
    ops = entry.get("ops", [])
    agree = sum(
        1
        for op in ops
        if not _differs(op["ours_flops"], op["tracelens_flops"])
        and not _differs(op["ours_bytes"], op["tracelens_bytes"])
    )
    error = entry.get("tracelens_error")
    return [
        entry["file"],
        si(entry["kernel_time_s"], "s"),
        _share(entry.get("ours_modelled_share")),
        f"failed ({error})" if error else _share(entry.get("tracelens_modelled_share")),
        f"{agree} of {len(ops)}" if ops else "n/a",
    ]


def _differences(entries: list[dict[str, Any]]) -> list[list[str]]:
    rows = []
    for entry in entries:
        for op in entry.get("ops", []):
            flops = _differs(op["ours_flops"], op["tracelens_flops"])
            moved = _differs(op["ours_bytes"], op["tracelens_bytes"])
            if flops or moved:
                rows.append(
                    [
                        entry["file"][:40],
                        op["op"],
                        si(op["ours_flops"], "FLOP"),
                        si(op["tracelens_flops"], "FLOP"),
                        si(op["ours_bytes"], "B"),
                        si(op["tracelens_bytes"], "B"),
                    ]
                )
    return rows


def peer_section(peer: dict[str, Any] | None) -> dict[str, Any]:
    """The template's `peer` context."""
    if not peer or not peer.get("traces"):
        return {"measured": False, "not_measured": NOT_MEASURED}
    entries = peer["traces"]
    return {
        "measured": True,
        "rows": [_trace_row(e) for e in entries],
        "differences": _differences(entries),
        "measured_at": peer.get("measured_at", ""),
        "tracelens": str(peer.get("tracelens", "?"))[:12],
        "ours": str(peer.get("roofline_atlas", "?"))[:12],
    }
