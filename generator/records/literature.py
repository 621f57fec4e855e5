"""Published numbers transcribed from the seed reports (measurements/literature/*.csv):
read, validated row by row, with each row's derivation key parsed. No torch here."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from generator.errors import UserError
from generator.models import DATASETS, MODELS, unknown_name
from generator.records.literature_causes import (
    CAUSE_ARGUMENTS,
    CAUSES,
    COMBINABLE,
    NEEDS_NOTE,
    PROFILE_PARTS,
    Cause,
    CauseUse,
    parse_causes,
)
from generator.records.peaks import PEAK_KEYS

__all__ = [
    "CAUSES",
    "CAUSE_ARGUMENTS",
    "COMBINABLE",
    "NEEDS_NOTE",
    "PROFILE_PARTS",
    "Cause",
    "CauseUse",
    "parse_causes",
]

LITERATURE_DIR = "literature"
COLUMNS = (
    "id",
    "seed",
    "where",
    "quantity",
    "configuration",
    "published",
    "unit",
    "derive",
    "cause",
    "citation",
)
# Optional columns (older files lack them): the structured configuration a prediction needs,
# where the number was read, and the transcriber's reasoning or next check.
OPTIONAL_COLUMNS = ("device", "workload", "precision", "read_from", "note")
READ_FROM = ("table", "text", "chart")

# unit as printed -> (factor to base unit, dimension)
UNITS: dict[str, tuple[float, str]] = {
    "TFLOP/s": (1e12, "flop_rate"),
    "GFLOP/s": (1e9, "flop_rate"),
    "TOPS": (1e12, "flop_rate"),
    "GB/s": (1e9, "bandwidth"),
    "TB/s": (1e12, "bandwidth"),
    "GFLOP": (1e9, "flops"),
    "GB": (1e9, "bytes"),
    "µs": (1e-6, "time"),
    "ms": (1e-3, "time"),
    "s": (1.0, "time"),
    "%": (1.0, "percent"),
    "FLOP/byte": (1.0, "intensity"),
    "M": (1e6, "count"),
    "ratio": (1.0, "ratio"),
    "×": (1.0, "ratio"),
    "img/s": (1.0, "sample_rate"),
    "GHz": (1e9, "frequency"),
    "cycles": (1.0, "cycles"),
    "FLOP": (1.0, "flops"),
    "B": (1.0, "bytes"),
    "ρ": (1.0, "correlation"),
}
# (dimension of the numerator, of the denominator) -> dimension of a quotient of two rows
QUOTIENT_DIMENSIONS: dict[tuple[str, str], str] = {
    ("flops", "time"): "flop_rate",
    ("flops", "bytes"): "intensity",
    ("flop_rate", "bandwidth"): "intensity",
    ("bytes", "time"): "bandwidth",
    ("time", "time"): "ratio",
    ("flop_rate", "flop_rate"): "ratio",
    ("sample_rate", "sample_rate"): "ratio",
    ("cycles", "frequency"): "time",
}

ANALYTIC_QUANTITIES: dict[str, str] = {
    "params": "count",
    "forward_flops": "flops",
    "backward_flops": "flops",
    "step_flops": "flops",
    "sample_forward_flops": "flops",  # forward / batch
    "sample_step_flops": "flops",  # (forward + loss + backward) / batch: no optimizer
    "arithmetic_intensity": "intensity",
    "backward_over_forward": "ratio",
    "min_traffic_bytes": "bytes",
    "linear_backward_flops": "flops",
}
FLOP_QUANTITIES = ("forward_flops", "backward_flops", "step_flops")
IMPORTED_QUANTITIES: dict[str, str] = {
    "flops": "flops",
    "dram_bytes": "bytes",
    "time": "time",
    "sm_pct": "percent",
    "dram_pct": "percent",
    "attained": "flop_rate",
    "ai": "intensity",
}


@dataclass(frozen=True)
class Derive:
    """A parsed `derive` key."""

    kind: str  # catalog, ridge, at_peak, analytic, imported
    dimension: str
    device: str = ""
    peak: str = ""  # a PEAK_KEYS entry, or "bandwidth"
    flops: float = 0.0  # at_peak
    model: str = ""
    dataset: str = ""
    batch: int = 0
    quantity: str = ""
    folder: str = ""
    rows: tuple[str, ...] = ()  # quotient, mean, rate_from: the seed's own rows it rests on
    cycles: float = 0.0  # cycles
    steps: int = 1  # floor: steps in the timed span (an epoch)


@dataclass(frozen=True)
class LiteratureRow:
    id: str
    seed: str
    where: str
    quantity: str
    configuration: str
    published: float
    unit: str
    derive: Derive
    cause: str
    citation: str
    file: str
    line: int
    causes: tuple[CauseUse, ...] = ()
    published_text: str = ""
    device: str = ""  # catalog id of the device the number was measured on, if any
    workload: str = ""  # <model>:<dataset>:<batch>:<phase>, when the model is in the registry
    precision: str = ""
    read_from: str = "table"
    note: str = ""

    @property
    def published_base(self) -> float:
        """The published number in base units (FLOP, byte, second, FLOP/s, ...)."""
        return self.published * UNITS[self.unit][0]


def _parse_derive(text: str, fail: _Fail, device_ids: set[str]) -> Derive:
    parts = text.split(":")
    kind = parts[0]

    def need(count: int, form: str) -> None:
        if len(parts) != count:
            fail(f"derive key {text!r} is not {form}", "derive")

    def device_and_peak(device: str, peak: str, allow_bandwidth: bool) -> None:
        if device not in device_ids:
            fail(unknown_name("catalog device", device, dict.fromkeys(device_ids)), "derive")
        keys = (*PEAK_KEYS, "bandwidth") if allow_bandwidth else PEAK_KEYS
        if peak not in keys:
            fail(f"{peak!r} is not one of {', '.join(keys)}", "derive")

    def configuration(model: str, data: str, batch: str) -> tuple[str, str, int]:
        """A registry model, a dataset and a positive batch, or the row's error."""
        if model not in MODELS:
            fail(unknown_name("model", model, MODELS), "derive")
        if data not in DATASETS:
            fail(unknown_name("dataset", data, DATASETS), "derive")
        if not batch.isdigit() or int(batch) < 1:
            fail(f"batch {batch!r} is not a positive integer", "derive")
        return model, data, int(batch)

    if kind == "catalog":
        need(3, "catalog:<device>:<peak key or bandwidth>")
        device_and_peak(parts[1], parts[2], True)
        dim = "bandwidth" if parts[2] == "bandwidth" else "flop_rate"
        return Derive("catalog", dim, device=parts[1], peak=parts[2])
    if kind == "ridge":
        need(3, "ridge:<device>:<peak key>")
        device_and_peak(parts[1], parts[2], False)
        return Derive("ridge", "intensity", device=parts[1], peak=parts[2])
    if kind == "at_peak":
        need(4, "at_peak:<FLOPs>:<device>:<peak key>")
        try:
            flops = float(parts[1])
        except ValueError:
            fail(f"{parts[1]!r} is not a FLOP count (write 270e9)", "derive")
        device_and_peak(parts[2], parts[3], False)
        return Derive("at_peak", "time", device=parts[2], peak=parts[3], flops=flops)
    if kind == "analytic":
        need(5, "analytic:<model>:<dataset>:<batch>:<quantity>")
        model, data, batch = configuration(parts[1], parts[2], parts[3])
        quantity = parts[4]
        if quantity not in ANALYTIC_QUANTITIES:
            fail(unknown_name("analytic quantity", quantity, ANALYTIC_QUANTITIES), "derive")
        return Derive(
            "analytic",
            ANALYTIC_QUANTITIES[quantity],
            model=model,
            dataset=data,
            batch=batch,
            quantity=quantity,
        )
    if kind == "measured":
        need(7, "measured:<model>:<dataset>:<batch>:<phase>:step_time:<cpu|cuda>")
        model, data, batch = configuration(parts[1], parts[2], parts[3])
        phase, quantity, kind_of_device = parts[4], parts[5], parts[6]
        if phase not in ("train_step", "inference") or quantity != "step_time":
            fail(f"{phase}:{quantity} is not train_step|inference:step_time", "derive")
        if kind_of_device not in ("cpu", "cuda"):
            fail(f"device {kind_of_device!r} is not cpu or cuda", "derive")
        # the device kind is part of the configuration: a GPU run never stands in for a
        # published CPU time
        return Derive(
            "measured",
            "time",
            device=kind_of_device,
            model=model,
            dataset=data,
            batch=batch,
            quantity=phase,
        )
    if kind == "quotient":
        need(3, "quotient:<row id>:<row id>")
        return Derive("quotient", "", rows=(parts[1], parts[2]))
    if kind == "mean":
        need(2, "mean:<row id>,<row id>,...")
        return Derive("mean", "", rows=tuple(parts[1].split(",")))
    if kind == "floor":
        if len(parts) not in (7, 8) or (len(parts) == 8 and not parts[7].isdigit()):
            fail(
                f"derive key {text!r} is not "
                "floor:<model>:<dataset>:<batch>:<FLOP quantity>:<device>:<peak key>[:<steps>]",
                "derive",
            )
        model, data, batch = configuration(parts[1], parts[2], parts[3])
        if parts[4] not in FLOP_QUANTITIES:
            fail(unknown_name("FLOP quantity", parts[4], dict.fromkeys(FLOP_QUANTITIES)), "derive")
        device_and_peak(parts[5], parts[6], False)
        return Derive(
            "floor", "time", device=parts[5], peak=parts[6], model=model, dataset=data,
            batch=batch, quantity=parts[4], steps=int(parts[7]) if len(parts) == 8 else 1,
        )  # fmt: skip
    if kind == "rate_from":
        need(5, "rate_from:<model>:<dataset>:<batch>:<row id of the report's time or img/s>")
        model, data, batch = configuration(parts[1], parts[2], parts[3])
        return Derive(
            "rate_from", "flop_rate", model=model, dataset=data, batch=batch, rows=(parts[4],)
        )
    if kind in ("cycles", "clock"):
        if kind == "clock":
            need(2, "clock:<device>")
            device_and_peak(parts[1], "fp32", False)
            return Derive("clock", "frequency", device=parts[1])
        if len(parts) not in (3, 4):
            fail(f"derive key {text!r} is not cycles:<cycles>:<device>[:<FLOPs>]", "derive")
        try:
            cycles, flops = float(parts[1]), float(parts[3]) if len(parts) == 4 else 0.0
        except ValueError:
            fail(f"{text!r}: cycles and FLOPs must be numbers", "derive")
        device_and_peak(parts[2], "fp32", False)
        dimension = "flop_rate" if flops else "time"
        return Derive("cycles", dimension, device=parts[2], cycles=cycles, flops=flops)
    if kind == "recorded":
        need(1, "recorded")
        return Derive("recorded", "")
    if kind == "imported":
        need(3, "imported:<folder>:<quantity>")
        if parts[2] not in IMPORTED_QUANTITIES:
            fail(unknown_name("imported quantity", parts[2], IMPORTED_QUANTITIES), "derive")
        return Derive("imported", IMPORTED_QUANTITIES[parts[2]], folder=parts[1], quantity=parts[2])
    fail(f"derive key {text!r} has unknown kind {kind!r}", "derive")


class _Fail:
    """Raises a UserError located at one row of one file."""

    def __init__(self, path: Path, line: int) -> None:
        self.path, self.line = path, line

    def __call__(self, what: str, key: str) -> NoReturn:
        raise UserError(
            what,
            file=self.path,
            line=self.line,
            key=key,
            fix="see measurements/literature/README.md for the columns and their values",
        )


def read_literature(measurements: Path, device_ids: set[str]) -> list[LiteratureRow]:
    """Every row of measurements/literature/*.csv, validated; [] when there is no folder."""
    rows: list[LiteratureRow] = []
    seen: set[str] = set()
    for path in sorted((measurements / LITERATURE_DIR).glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                _Fail(path, 1)(f"missing column(s) {', '.join(missing)}", missing[0])
            for record in reader:
                rows.append(_read_row(record, _Fail(path, reader.line_num), seen, device_ids))
    _check_references(rows)
    return rows


def _read_row(
    record: dict[str, str], fail: _Fail, seen: set[str], device_ids: set[str]
) -> LiteratureRow:
    if None in record or any(record[c] is None for c in COLUMNS):
        fail("row has a different number of cells than the header", "id")
    extra = {c: (record.get(c) or "").strip() for c in OPTIONAL_COLUMNS}
    row_id = record["id"].strip()
    if not row_id or row_id in seen:
        fail(f"id {row_id!r} is empty or used twice", "id")
    seen.add(row_id)
    if record["unit"] not in UNITS:
        fail(unknown_name("unit", record["unit"], UNITS), "unit")
    causes = parse_causes(record["cause"], fail)
    try:
        published = float(record["published"])
    except ValueError:
        fail(f"published {record['published']!r} is not a number", "published")
    derive = _parse_derive(record["derive"], fail, device_ids)
    unit_dimension = UNITS[record["unit"]][1]
    floor_rate = derive.kind == "floor" and unit_dimension == "sample_rate"
    if derive.dimension and unit_dimension != derive.dimension and not floor_rate:
        fail(
            f"unit {record['unit']!r} does not measure what {record['derive']!r} "
            f"gives ({derive.dimension})",
            "unit",
        )
    if extra["device"] and extra["device"] not in device_ids:
        fail(unknown_name("catalog device", extra["device"], dict.fromkeys(device_ids)), "device")
    if extra["read_from"] and extra["read_from"] not in READ_FROM:
        fail(f"read_from {extra['read_from']!r} is not one of {', '.join(READ_FROM)}", "read_from")
    if any(u.name in NEEDS_NOTE for u in causes) and not extra["note"]:
        fail(f"cause {record['cause']!r} needs a note: the numbers or the next check", "note")
    if (derive.kind == "recorded") != any(u.name == "recorded" for u in causes):
        fail("derive 'recorded' and cause 'recorded' go together", "cause")
    return LiteratureRow(
        id=row_id,
        seed=record["seed"],
        where=record["where"],
        quantity=record["quantity"],
        configuration=record["configuration"],
        published=published,
        unit=record["unit"],
        derive=derive,
        cause=record["cause"],
        citation=record["citation"],
        file=fail.path.as_posix(),
        line=fail.line,
        causes=causes,
        published_text=record["published"].strip(),
        device=extra["device"],
        workload=extra["workload"],
        precision=extra["precision"],
        read_from=extra["read_from"] or "table",
        note=extra["note"],
    )


def row_dimension(row: LiteratureRow) -> str:
    return UNITS[row.unit][1]


def _check_references(rows: list[LiteratureRow]) -> None:
    """Rows that rest on other rows (quotient, mean, rate_from, tensor_core_uncounted) name
    rows that exist, of the dimensions the quotient needs."""
    by_id = {r.id: r for r in rows}
    for row in rows:
        fail = _Fail(Path(row.file), row.line)
        named = list(row.derive.rows) + [
            u.argument for u in row.causes if u.name == "tensor_core_uncounted"
        ]
        for other in named:
            if other not in by_id:
                fail(unknown_name("row id", other, by_id), "derive")
        if row.derive.kind == "quotient":
            top, bottom = (row_dimension(by_id[i]) for i in row.derive.rows)
            found = "ratio" if top == bottom else QUOTIENT_DIMENSIONS.get((top, bottom), "")
            wanted = row_dimension(row)
            if not found or (wanted != found and not (found == "ratio" and row.unit == "%")):
                fail(f"{top} ÷ {bottom} does not give {wanted} ({row.unit})", "derive")
        if row.derive.kind == "mean":
            dimensions = {row_dimension(by_id[i]) for i in row.derive.rows}
            if dimensions != {row_dimension(row)}:
                fail("a mean must be of rows in the row's own unit", "derive")
        timed = row.derive.kind != "rate_from" or row_dimension(by_id[row.derive.rows[0]]) in (
            "time",
            "sample_rate",
        )
        if not timed:
            fail(f"row {row.derive.rows[0]} is not a time or an img/s", "derive")


def analytic_requests(rows: list[LiteratureRow]) -> list[tuple[str, str, int]]:
    """The distinct (model, dataset, batch) the analytic rows need, sorted."""
    return sorted(
        {
            (r.derive.model, r.derive.dataset, r.derive.batch)
            for r in rows
            if r.derive.kind in ("analytic", "floor", "rate_from")
        }
    )
