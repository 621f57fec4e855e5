"""Each roofline figure of the seed reports, redrawn: the seed's own published points (each with
its seeds.csv rows), or ours where the seed's figure rests on its models' counts, under the
right roofs (one roof per device and precision, `roofs.roof_for`: the catalog's datasheet, or
the ceilings measured here), with one sentence on what changes against the seed's figure.

Here: the figure types, and seed 000's Appendix ii (its five profiled steps under the L4 and
T4 FP32 roofs) and seed 001's Fig. 1 (nine model × GPU steps under the T4, L4 and V100 FP32
roofs). Seed 003's Figs. 1, 3 and 7: analysis/seed_003_rooflines.py."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from generator.analysis.replication import Replication
from generator.analysis.roofs import DATASHEET, Roof, roof_for
from generator.catalog import Device
from generator.formatting import number, si
from generator.records.literature import LiteratureRow
from generator.records.literature_causes import CAUSES
from generator.records.peaks import PEAK_LABELS

SEED_ROOF = "the seed's roof"  # a roof the seed drew that is not the work's: drawn beside ours
PUBLISHED = "the seed's published point (its ncu counts)"
AGREES_WITHIN = 0.02  # a seed's peak or bandwidth within 2 % of the datasheet's is the same
# Seed 001's §VI reading of its Fig. 1, per model on all three GPUs (its words: "MobileNet
# remains predominantly memory-bound across all GPUs"; "On all three GPU accelerators, the
# aggregated training step [of the ViT] appears to be computationally bound").
SEED_001_READING = {"mobilenet_v2": ("memory", "§VI.A"), "vit_b_32": ("compute", "§VI.C")}
_STEP = re.compile(r"\(([A-Z]-\d(?:/[A-Z]-\d)*)\)\s*$")  # "…, batch 256 (A-2)"
_CITED_STEP = re.compile(r"\brow ([A-Z]-\d)\b")  # "…, row A-1" in the citation


@dataclass(frozen=True)
class DrawnRoof:
    """A roof on a redrawn figure; `seed_peak` and `seed_bandwidth`: the seed's own values
    where it printed them (its rows `peak_row` and `bandwidth_row`), None where it did not."""

    roof: Roof
    source: str  # DATASHEET, MEASURED or SEED_ROOF
    seed_peak: float | None = None
    seed_bandwidth: float | None = None
    peak_row: str = ""
    bandwidth_row: str = ""

    @property
    def rows(self) -> tuple[str, ...]:
        return tuple(r for r in (self.peak_row, self.bandwidth_row) if r)

    @property
    def seed_ridge(self) -> float | None:
        """The ridge of the seed's roof where it printed this peak (over its bandwidth, else
        the datasheet's); None where it did not."""
        if self.seed_peak is None:
            return None
        return self.seed_peak / (self.seed_bandwidth or self.roof.bandwidth_bytes_per_s)


@dataclass(frozen=True)
class DrawnPoint:
    """A point on a redrawn figure and the side of its roof's ridge it sits on."""

    label: str  # beside it on the chart
    rows: tuple[str, ...]  # its seeds.csv rows; empty for a point of this project's
    what: str  # the configuration, in words
    device: str  # the device of the roof it sits under
    ai: float  # FLOP/byte
    attained: float  # FLOP/s
    kind: str  # what the point is (its marker)
    side: str  # "compute" or "memory"
    note: str = ""  # the Replication page's causes for its rows, or its bound in words


@dataclass(frozen=True)
class Redrawn:
    """One seed figure, redrawn."""

    key: str  # chart id and anchor, e.g. "seed-000-appendix-ii"
    seed: str
    where: str  # the seed's figure, e.g. "Fig. 1"
    title: str
    roofs: tuple[DrawnRoof, ...]
    points: tuple[DrawnPoint, ...]
    sentence: str  # what changes against the seed's figure


def side(ai: float, roof: Roof) -> str:
    return "compute" if ai >= roof.ridge_ai else "memory"


def ridge_text(value: float) -> str:
    return f"{number(value, 3)} FLOP/byte"


def differs(published: float, datasheet: float) -> bool:
    return abs(published / datasheet - 1) > AGREES_WITHIN


def seed_values(
    rows: Sequence[LiteratureRow], seed: str, device_id: str, where: str
) -> dict[str, LiteratureRow]:
    """The seed's own peaks and bandwidth of a catalog device, from its table of devices
    (`where`): catalog key (or "bandwidth") -> its row. A peak of another precision used as
    the roof (cause `precision_peak:<key>`) is keyed by the precision the seed printed."""
    return {
        next((u.argument for u in r.causes if u.name == "precision_peak"), r.derive.peak): r
        for r in rows
        if r.seed == seed
        and r.where == where
        and r.derive.kind == "catalog"
        and r.derive.device == device_id
    }


def datasheet_roof(
    device: Device, key: str, rows: Sequence[LiteratureRow], seed: str, where: str
) -> DrawnRoof | None:
    """A device's datasheet roof at `key`, with the seed's values of the same peak and
    bandwidth where its table of devices (`where`) printed them."""
    roof = roof_for(device.name, key, DATASHEET, catalog=(device,))
    if roof is None:
        return None
    values = seed_values(rows, seed, device.id, where)
    peak, bandwidth = values.get(key), values.get("bandwidth")
    return DrawnRoof(
        roof,
        DATASHEET,
        peak.published_base if peak else None,
        bandwidth.published_base if bandwidth else None,
        peak.id if peak else "",
        bandwidth.id if bandwidth else "",
    )


def roof_changes(roofs: Sequence[DrawnRoof]) -> list[str]:
    """Each roof whose ridge the seed's own peak or bandwidth moves, in words: "the NVIDIA
    T4's ridge is 25.3 FLOP/byte, not the seed's 27 (its bandwidth 300 GB/s, row
    000-t4-bw, against the datasheet's 320 GB/s)"."""
    found = []
    for drawn in roofs:
        roof = drawn.roof
        changed = [
            f"its {what} {si(seed, unit)}, row {row}, against the datasheet's {si(ours, unit)}"
            for what, seed, ours, unit, row in (
                (f"{PEAK_LABELS[roof.precision]} peak", drawn.seed_peak, roof.peak_flops_per_s,
                 "FLOP/s", drawn.peak_row),
                ("bandwidth", drawn.seed_bandwidth, roof.bandwidth_bytes_per_s, "B/s",
                 drawn.bandwidth_row),
            )
            if seed is not None and differs(seed, ours)
        ]  # fmt: skip
        if changed and drawn.seed_ridge is not None:
            found.append(
                f"the {roof.device}'s ridge is {ridge_text(roof.ridge_ai)}, not the seed's "
                f"{number(drawn.seed_ridge, 3)} ({'; '.join(changed)})"
            )
    return found


def listed(names: Sequence[str]) -> str:
    """ "a, b and c"."""
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def _pairs(
    rows: Sequence[LiteratureRow], seed: str, ai: str, rate: str
) -> list[tuple[LiteratureRow, LiteratureRow]]:
    """The seed's published points: each intensity row (id ending `ai`) with the rate row
    of the same stem (ending `rate`), in the file's order."""
    by_id = {r.id: r for r in rows if r.seed == seed}
    return [
        (row, by_id[row.id.removesuffix(ai) + rate])
        for row in by_id.values()
        if row.id.endswith(ai) and row.id.removesuffix(ai) + rate in by_id
    ]


def _causes(*rows: LiteratureRow) -> str:
    """What the Replication page names as the cause of these rows' difference from ours."""
    labels = [CAUSES[u.name].label for r in rows for u in r.causes if u.name != "agrees"]
    return "; ".join(dict.fromkeys(labels))


def published_points(
    rows: Sequence[LiteratureRow],
    seed: str,
    suffixes: tuple[str, str],
    catalog: tuple[Device, ...],
    where: str,
) -> tuple[list[DrawnPoint], list[DrawnRoof]]:
    """The seed's published (intensity, rate) points under their devices' FP32 datasheet
    roofs (with the seed's own values from its table of devices, `where`), each labelled
    with the stem its two rows share ("000-a1": 000-a1-ai and 000-a1-attained)."""
    devices = {d.id: d for d in catalog}
    points: list[DrawnPoint] = []
    roofs: dict[str, DrawnRoof] = {}
    for ai_row, rate_row in _pairs(rows, seed, *suffixes):
        device = devices.get(ai_row.device)
        if device is None:
            continue
        if device.id not in roofs:
            drawn = datasheet_roof(device, "fp32", rows, seed, where)
            if drawn is None:
                continue
            roofs[device.id] = drawn
        roof = roofs[device.id].roof
        stem = ai_row.id.removesuffix(suffixes[0])
        step = _STEP.search(ai_row.configuration) or _CITED_STEP.search(ai_row.citation)
        label = stem  # short enough not to cover its neighbour's; the table names both rows
        what = _STEP.sub("", ", ".join(ai_row.configuration.split(", ")[:3])).strip()
        ai, rate = ai_row.published_base, rate_row.published_base
        points.append(
            DrawnPoint(
                label=label,
                rows=(ai_row.id, rate_row.id),
                what=f"{step.group(1)}: {what}" if step else what,
                device=roof.device,
                ai=ai,
                attained=rate,
                kind=PUBLISHED,
                side=side(ai, roof),
                note=_causes(ai_row, rate_row),
            )
        )
    return points, list(roofs.values())


def _sides(points: Sequence[DrawnPoint], claimed: str) -> str:
    """Whether every point sits on the side the seed says, in words."""
    off = [p for p in points if p.side != claimed]
    if not off:
        return (
            f"all {len(points)} points stay on the {claimed} side of their ridges, as the seed says"
        )
    return "; ".join(f"{p.what} sits on the {p.side} side" for p in off) + (
        f", where the seed puts every point on the {claimed} side"
    )


def seed_000_appendix(
    replications: Sequence[Replication], catalog: tuple[Device, ...]
) -> Redrawn | None:
    """Seed 000's Appendix ii: its five profiled steps under the L4 and T4 FP32 roofs."""
    rows = [r.row for r in replications]
    points, roofs = published_points(rows, "000", ("-ai", "-attained"), catalog, "§II GPU table")
    if not points:
        return None
    changes = roof_changes(roofs) or ["the roofs are the seed's own"]
    partial = [
        r.ratio
        for r in replications
        if r.row.seed == "000" and r.ratio is not None
        and any(u.name == "incomplete_profile" and u.argument == "backward" for u in r.row.causes)
    ]  # fmt: skip
    held = (
        f", holding {number(min(partial), 3)}–{number(max(partial), 3)} of the step's analytic "
        "FLOPs"
        if partial
        else ""
    )
    sentence = (
        f"Against the seed's figures, {'; '.join(changes)}; {_sides(points, 'memory')}; but "
        "each point is a partial step: these profiles lack the backward pass (the Replication "
        f"page's cause, {CAUSES['incomplete_profile'].label}){held}."
    )
    return Redrawn(
        "seed-000-appendix-ii", "000", "Appendix ii", "the five profiled steps",
        tuple(roofs), tuple(points), sentence,
    )  # fmt: skip


def seed_001_figure(
    replications: Sequence[Replication], catalog: tuple[Device, ...]
) -> Redrawn | None:
    """Seed 001's Fig. 1: its nine (model × GPU) step points under the T4, L4 and V100 FP32
    roofs, set against its §VI reading of them."""
    rows = [r.row for r in replications]
    points, roofs = published_points(rows, "001", ("-ci", "-glops"), catalog, "§III.B table")
    if not points:
        return None
    by_row = {r.id: r for r in rows}
    ridges = {d.roof.device: d.roof.ridge_ai for d in roofs}
    parts = roof_changes(roofs) or [
        "the roofs are the seed's own (its §III.B peaks and bandwidths agree with the datasheets)"
    ]
    for model, (claimed, where) in SEED_001_READING.items():
        mine = [p for p in points if by_row[p.rows[0]].workload.split(":")[0] == model]
        off = [p for p in mine if p.side != claimed]
        name = mine[0].what.split(", ")[0] if mine else model
        if mine and not off:
            parts.append(
                f"{name} stays on the {claimed} side on all {len(mine)} GPUs, as the seed says"
            )
        for p in off:
            parts.append(
                f"{p.what} ({number(p.ai)} FLOP/byte) sits on the {p.side} side of its ridge at "
                f"{ridge_text(ridges[p.device])}, where the seed's {where} calls {name} "
                f"{claimed}-bound on all three GPUs"
            )
    for p in points:
        if any(u.name == "tensor_core_uncounted" for r in p.rows for u in by_row[r].causes):
            parts.append(
                f"{p.what}'s point ({number(p.ai)} FLOP/byte, {si(p.attained, 'FLOP/s')}) lacks "
                "the TF32 tensor-core FLOPs its FP32 counters miss (the Replication page's "
                f"cause, {CAUSES['tensor_core_uncounted'].label})"
            )
    sentence = "Against the seed's figure, " + "; ".join(parts) + "."
    return Redrawn(
        "seed-001-fig-1", "001", "Fig. 1", "nine training steps on three GPUs",
        tuple(roofs), tuple(points), sentence,
    )  # fmt: skip
