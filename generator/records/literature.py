"""Published numbers transcribed from the seed reports (measurements/literature/*.csv):
read, validated row by row, with each row's derivation key parsed. No torch here."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from generator.errors import UserError
from generator.models import DATASETS, MODELS, unknown_name
from generator.records.peaks import PEAK_KEYS

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
}
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
class Cause:
    """A hypothesis for published ÷ derived: an expected ratio with a tolerance, or a bound."""

    label: str
    expected: float | None  # None: no single expected ratio
    tolerance: float  # relative
    explanation: str


CAUSES: dict[str, Cause] = {
    "agrees": Cause("agrees", 1.0, 0.02, "Agrees within 2 %."),
    "macs_as_flops": Cause(
        "MACs reported as FLOPs",
        0.5,
        0.02,
        "A multiply-accumulate is 2 FLOPs; the published count is multiply-accumulates "
        "(torchvision's and most counters' 'FLOPs' are MACs). Expected: the model's MACs ÷ "
        "its FLOPs (0.5 for pure MAC work, less where norms and activations add FLOPs).",
    ),
    "macs_x3": Cause(
        "MACs as FLOPs, ×3 rule",
        None,
        0.02,
        "The step was estimated as 3 × forward multiply-accumulates, called FLOPs. "
        "Expected: 3 × the model's forward MACs ÷ our exact step FLOPs.",
    ),
    "sparse_peak": Cause(
        "sparsity peak",
        2.0,
        0.02,
        "The datasheet's 'with sparsity' figure is twice the dense rate; dense training "
        "never reaches it.",
    ),
    "mbyte_as_mib": Cause(
        "Mbyte read as 2^20",
        1.048576,
        0.01,
        "ncu's Mbyte is 10^6 bytes; multiplying by 2^20 overstates bytes by 4.9 %.",
    ),
    "mib_in_denominator": Cause(
        "2^20 bytes in the denominator",
        1 / 1.048576,
        0.01,
        "Bytes overstated by 2^20/10^6 make a per-byte quantity 4.6 % low.",
    ),
    "factor_1000": Cause(
        "factor-1000 slip",
        1000.0,
        0.02,
        "The arithmetic is off by 10^3 (e.g. 10^9 / 10^12 read as seconds, not ms).",
    ),
    "incomplete_profile": Cause(
        "work missing from the profile",
        None,
        0.0,
        "The profile holds much less work than the step does: the backward pass ran on "
        "another thread (outside the NVTX range) or the profiler does not count it.",
    ),
    "other_datasheet": Cause(
        "different datasheet figure",
        None,
        0.0,
        "The report uses another figure than the catalog's source; see the catalog note.",
    ),
    "unexplained": Cause("unexplained", None, 0.0, "No explanation found yet."),
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
                line = reader.line_num
                fail = _Fail(path, line)
                if None in record or any(record[c] is None for c in COLUMNS):
                    fail("row has a different number of cells than the header", "id")
                row_id = record["id"].strip()
                if not row_id or row_id in seen:
                    fail(f"id {row_id!r} is empty or used twice", "id")
                seen.add(row_id)
                if record["unit"] not in UNITS:
                    fail(unknown_name("unit", record["unit"], UNITS), "unit")
                if record["cause"] not in CAUSES:
                    fail(unknown_name("cause", record["cause"], CAUSES), "cause")
                try:
                    published = float(record["published"])
                except ValueError:
                    fail(f"published {record['published']!r} is not a number", "published")
                derive = _parse_derive(record["derive"], fail, device_ids)
                if UNITS[record["unit"]][1] != derive.dimension:
                    fail(
                        f"unit {record['unit']!r} does not measure what {record['derive']!r} "
                        f"gives ({derive.dimension})",
                        "unit",
                    )
                rows.append(
                    LiteratureRow(
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
                        file=path.as_posix(),
                        line=line,
                    )
                )
    return rows


def analytic_requests(rows: list[LiteratureRow]) -> list[tuple[str, str, int]]:
    """The distinct (model, dataset, batch) the analytic rows need, sorted."""
    return sorted(
        {
            (r.derive.model, r.derive.dataset, r.derive.batch)
            for r in rows
            if r.derive.kind == "analytic"
        }
    )
