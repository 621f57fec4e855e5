"""Published numbers transcribed from the seed reports (measurements/literature/*.csv):
read, validated row by row, with each row's derivation key parsed. No torch here."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from generator.errors import UserError
from generator.models import unknown_name
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
from generator.records.literature_derive import (
    ANALYTIC_QUANTITIES,
    FLOP_QUANTITIES,
    IMPORTED_QUANTITIES,
    Derive,
    parse_derive,
)

__all__ = [
    "ANALYTIC_QUANTITIES",
    "CAUSES",
    "CAUSE_ARGUMENTS",
    "COMBINABLE",
    "FLOP_QUANTITIES",
    "IMPORTED_QUANTITIES",
    "NEEDS_NOTE",
    "PROFILE_PARTS",
    "Cause",
    "CauseUse",
    "Derive",
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
# causes that compare only with some derivations: a catalog peak, the report's own rows
CAUSE_DERIVES: dict[str, tuple[str, ...]] = {
    "precision_peak": ("catalog", "ridge"),
    "contradicts_own_rows": ("quotient", "gain", "mean"),
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
    derive = parse_derive(record["derive"], fail, device_ids)
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
    for name, kinds in CAUSE_DERIVES.items():
        if any(u.name == name for u in causes) and derive.kind not in kinds:
            fail(f"cause {name!r} needs a derive key of kind {' or '.join(kinds)}", "derive")
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
        if row.derive.kind in ("quotient", "gain"):
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
