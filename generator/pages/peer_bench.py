"""The Tool performance page's "peer" section: TraceLens and Roofline Atlas on the same real
traces, from the `peer` entry of benchmarks/results.json (`python -m benchmarks.peer`).
Names are escaped by the template (Jinja autoescape)."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from generator.formatting import percent, si
from generator.records.bench_results import CoverageBench, CoverageTrace, PeerBench, PeerTrace


class PeerContext(TypedDict):
    """The template's `peer` context: only `not_measured` when nothing was measured."""

    measured: bool
    not_measured: NotRequired[str]
    rows: NotRequired[list[list[str]]]
    differences: NotRequired[list[list[str]]]
    measured_at: NotRequired[str]
    tracelens: NotRequired[str]
    ours: NotRequired[str]


class CoverageContext(TypedDict):
    """The template's `coverage` context: only `not_measured` when nothing was measured."""

    measured: bool
    not_measured: NotRequired[str]
    rows: NotRequired[list[list[str]]]
    below: NotRequired[list[str]]
    refused: NotRequired[list[str]]
    measured_at: NotRequired[str]
    ours: NotRequired[str]
    sources: NotRequired[str]
    with_shapes: NotRequired[int]
    peer_run: NotRequired[bool]
    peer_failed: NotRequired[list[str]]
    peer_at_goal: NotRequired[int]
    peer_compared: NotRequired[int]
    at_goal: NotRequired[int]


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


def _trace_row(entry: PeerTrace) -> list[str]:
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


def _differences(entries: list[PeerTrace]) -> list[list[str]]:
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


def peer_section(peer: PeerBench | None) -> PeerContext:
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


COVERAGE_NOT_MEASURED = (
    "Not measured yet: `python -m benchmarks.coverage FOLDER... --out benchmarks/results.json` "
    "reads HolisticTraceAnalysis's and TraceLens's public test traces, fetched apart."
)
GOAL = 0.5  # issue 65: exact-or-bounded share of a production trace's computation


def _peer_cell(entry: CoverageTrace, failed: list[str], name: str) -> str:
    """TraceLens's share of the same denominator (benchmarks/coverage.py), or why there is
    none: it failed (the error is listed under the table), it found no op rows, or the trace
    has no GPU time of ours to put its time over."""
    if "tracelens_error" in entry:
        failed.append(f"{name} ({entry['tracelens_error'].splitlines()[0][:160]})")
        return "failed"
    share = entry.get("tracelens_covered_of_computation")
    if "tracelens_covered_of_computation" not in entry:
        return "n/a"
    if not entry.get("tracelens_rows"):
        return f"{_share(share or 0.0)} (no op rows)"
    return _share(share)


def coverage_section(coverage: CoverageBench | None) -> CoverageContext:
    """The template's `coverage` context: per public trace, the parts of its GPU busy time
    that coverage is judged by, and for each trace with shapes below GOAL the ops that
    stop it (its largest uncounted rows, with their causes)."""
    if not coverage or not coverage.get("traces"):
        return {"measured": False, "not_measured": COVERAGE_NOT_MEASURED}
    rows, below, refused = [], [], []
    peer_failed: list[str] = []
    for entry in coverage["traces"]:
        name = f"{entry['source']}: {entry['trace']}"
        if "error" in entry:
            refused.append(f"{name} ({entry['error'].splitlines()[0][:120]})")
            continue
        covered = entry["covered_of_computation"]
        rows.append(
            [
                name,
                si(entry["whole_s"], "s"),
                _share(entry["exact"]),
                _share(entry["bounded"]),
                _share(entry["communication"]),
                _share(entry["copies"]),
                _share(covered) if entry["with_shapes"] else "n/a (no shapes recorded)",
                _peer_cell(entry, peer_failed, name),
            ]
        )
        if entry["with_shapes"] and covered is not None and covered < GOAL:
            parts = [
                f"{op} {percent(100 * share)} ({cause})"
                for op, cause, share in entry["largest_uncounted"]
            ]
            if entry.get("overhead", 0.0) > 0.1:  # a CPU trace's wrappers around counted ops
                parts.insert(0, f"dispatch overhead {percent(100 * entry['overhead'])}")
            below.append(f"{name}: {', '.join(parts)}")
    return {
        "measured": True,
        "rows": rows,
        "below": below,
        "refused": refused,
        "measured_at": coverage.get("measured_at", ""),
        "ours": str(coverage.get("roofline_atlas", "?"))[:12],
        "sources": ", ".join(f"{k} {v[:12]}" for k, v in coverage.get("sources", {}).items()),
        "with_shapes": sum(1 for e in coverage["traces"] if e.get("with_shapes")),
        "peer_run": bool(coverage.get("tracelens_run")),
        "peer_failed": peer_failed,
        "peer_at_goal": sum(
            1
            for e in coverage["traces"]
            if e.get("with_shapes") and (e.get("tracelens_covered_of_computation") or 0) >= GOAL
        ),
        "peer_compared": sum(
            1
            for e in coverage["traces"]
            if e.get("with_shapes")
            and ("tracelens_covered_of_computation" in e or "tracelens_error" in e)
        ),
        "at_goal": sum(
            1
            for e in coverage["traces"]
            if e.get("with_shapes") and (e.get("covered_of_computation") or 0) >= GOAL
        ),
    }
