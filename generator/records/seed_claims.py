"""The seed reports' claims, each with the arithmetic that checks it:
measurements/literature/claims.toml.

A claim quotes the seed (or stays close to its words) and names one or more checks, each of
one kind: `ratio` (two of the seed's own numbers, or means of several, from seeds.csv),
`order` (the seed's numbers rising, falling, or the first the highest or lowest), `catalog`
(two datasheet figures), `counts` (this project's analytic count of two or more workloads),
`bound` (a workload, or the seed's own intensity, against a device's roof), `faster` (which
device has the lowest roofline floor for a workload), `gain` (what a device's peak buys on
the floor) and `untranscribed` (a number the check needs that the seed prints only in a
chart). analysis/seed_claims.py judges them; the Seed times page prints every one.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from generator.errors import UserError
from generator.models import MODELS, unknown_name
from generator.records.literature import UNITS, LiteratureRow
from generator.records.versioned import load_toml, upgrade, validated

SCHEMA_VERSION = 1
CLAIMS_FILE = "claims.toml"
KINDS = ("ratio", "order", "catalog", "counts", "bound", "faster", "gain", "untranscribed")
ORDERS = ("rising", "falling", "first_highest", "first_lowest")
WORKLOAD = r"^[a-z0-9_]+:[a-z0-9_-]+:[0-9]+:(train_step|inference|prefill|decode)$"
FIGURE = r"^[a-z0-9-]+:(bandwidth|[a-z0-9_]+)$"  # <device id>:bandwidth|<peak key>
# The dimension a catalog figure has: a peak is a FLOP rate, anything else a bandwidth
FIGURE_DIMENSION = {"bandwidth": "bandwidth"}


class Check(BaseModel):
    """One piece of arithmetic. Which keys a kind takes is checked by `_kind_keys`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["ratio", "order", "catalog", "counts", "bound", "faster", "gain", "untranscribed"]
    what: str = ""  # the quantity in a few words (ratio, order, catalog, counts)
    reading: str = ""  # how the seed's words became the range, e.g. "'roughly': within 30 %"
    low: float | None = None
    high: float | None = None
    # ratio: seeds.csv rows, the mean of each side; `*_per`: a catalog figure dividing it
    numerator: tuple[str, ...] = ()
    denominator: tuple[str, ...] = ()
    numerator_per: str = Field("", pattern=r"^$|" + FIGURE)
    denominator_per: str = Field("", pattern=r"^$|" + FIGURE)
    # order: seeds.csv rows; bound: the seed's intensities; labels: an order's rows or a
    # counts check's workloads, as the page names them (else their ids)
    rows: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    expect: str = ""  # order/counts: an ORDERS word; bound: memory|compute; faster: a device
    # catalog: two figures; counts: two or more workloads and the quantity
    figures: tuple[str, ...] = ()
    workloads: tuple[str, ...] = ()
    quantity: Literal["flops", "bytes", "intensity", ""] = ""
    # bound, faster, gain: the devices (catalog ids), the counts' precision and the roof's
    device: str = ""
    devices: tuple[str, ...] = ()
    precision: str = "fp32"
    peak: str = ""  # the roof's peak key when not the precision's own (the seed's roof)
    needs: str = ""  # untranscribed: what the check needs that no table prints

    @model_validator(mode="after")
    def _kind_keys(self) -> Check:
        for text in self.workloads:
            _workload(text)
        need = {
            "ratio": ("what", "numerator", "denominator"),
            "order": ("what", "rows", "expect"),
            "catalog": ("what", "figures"),
            "counts": ("what", "workloads", "quantity"),
            "bound": ("device", "expect"),
            "faster": ("workloads", "devices", "expect"),
            "gain": ("workloads", "devices"),
            "untranscribed": ("needs",),
        }[self.kind]
        empty = [key for key in need if not getattr(self, key)]
        if empty:
            raise ValueError(f"a {self.kind!r} check needs {', '.join(empty)}")
        ranged = self.kind in ("ratio", "catalog", "gain") or (
            self.kind == "counts" and not self.expect
        )
        if ranged and self.low is None and self.high is None:
            raise ValueError(f"a {self.kind!r} check needs low, high or both")
        if self.kind in ("order", "counts") and self.expect and self.expect not in ORDERS:
            raise ValueError(f"expect {self.expect!r} is not one of {', '.join(ORDERS)}")
        if self.kind == "bound" and self.expect not in ("memory", "compute"):
            raise ValueError("a 'bound' check expects 'memory' or 'compute'")
        if self.kind == "bound" and not (self.rows or self.workloads):
            raise ValueError("a 'bound' check needs workloads, rows or both")
        pairs = {"catalog": self.figures, "gain": self.devices}
        if self.kind in pairs and len(pairs[self.kind]) != 2:
            raise ValueError(f"a {self.kind!r} check names exactly two")
        if self.kind in ("faster", "gain") and len(self.workloads) != 1:
            raise ValueError(f"a {self.kind!r} check names one workload")
        if self.kind == "faster" and self.expect not in self.devices:
            raise ValueError("a 'faster' check expects one of its devices")
        if self.kind == "counts" and (len(self.workloads) < 2 or (
            not self.expect and len(self.workloads) != 2
        )):  # fmt: skip
            raise ValueError("a 'counts' check names two workloads, or more with expect")
        named = self.rows if self.kind == "order" else self.workloads
        if self.labels and len(self.labels) != len(named):
            raise ValueError("labels name the rows (order) or workloads (counts) one for one")
        return self


class Claim(BaseModel):
    """One claim of a seed report and the checks that judge it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^\d{3}-[a-z0-9-]+$")
    seed: str = Field(pattern=r"^\d{3}$")
    where: str = Field(min_length=1, description="section or table in the seed")
    claim: str = Field(min_length=1, description="the seed's words, quoted or close to them")
    note: str = ""  # a sentence the page prints after the checks (no numbers: they compute)
    check: tuple[Check, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _seed_prefix(self) -> Claim:
        if not self.id.startswith(self.seed + "-"):
            raise ValueError(f"id {self.id!r} does not start with its seed {self.seed!r}")
        return self


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int
    claim: tuple[Claim, ...]


def _workload(text: str) -> tuple[str, str, int, str]:
    """<model>:<dataset>:<batch>:<phase>, the model a registry one."""
    if not re.match(WORKLOAD, text):
        raise ValueError(f"workload {text!r} is not <model>:<dataset>:<batch>:<phase>")
    model, dataset, batch, phase = text.split(":")
    if model not in MODELS:
        raise ValueError(unknown_name("model", model, MODELS))
    return model, dataset, int(batch), phase


def workload_key(text: str, precision: str) -> tuple[str, str, int, str, str]:
    """A check's workload as the counts key it: (model, dataset, batch, phase, precision)."""
    return (*_workload(text), precision)


def _dimension(rows: tuple[str, ...], by_id: dict[str, LiteratureRow]) -> set[str]:
    return {UNITS[by_id[r].unit][1] for r in rows}


def _check_names(
    check: Check, by_id: dict[str, LiteratureRow], device_ids: set[str]
) -> tuple[str, str] | None:
    """(key, what is wrong) of the first name the check gives that does not exist."""
    for key in ("numerator", "denominator", "rows"):
        for row in getattr(check, key):
            if row not in by_id:
                return key, unknown_name("seeds.csv row", row, by_id)
    named = [("device", check.device)] if check.device else []
    named += [("devices", d) for d in check.devices]
    named += [(key, getattr(check, key).split(":")[0]) for key in ("numerator_per",
              "denominator_per") if getattr(check, key)]  # fmt: skip
    named += [("figures", f.split(":")[0]) for f in check.figures]
    for key, device in named:
        if device not in device_ids:
            return key, unknown_name("catalog device", device, dict.fromkeys(device_ids))
    return None


def _check_units(check: Check, by_id: dict[str, LiteratureRow]) -> tuple[str, str] | None:
    """(key, what is wrong) where a ratio's or an order's rows measure different things."""
    sides = {"numerator": check.numerator, "denominator": check.denominator, "rows": check.rows}
    dims = {key: _dimension(rows, by_id) for key, rows in sides.items() if rows}
    for key, found in dims.items():
        if len(found) > 1 and not (check.kind == "bound" and key == "rows"):
            return key, f"its rows measure different things ({', '.join(sorted(found))})"
    if check.kind == "bound" and dims.get("rows", {"intensity"}) != {"intensity"}:
        return "rows", "a 'bound' check's rows are intensities (unit FLOP/byte)"
    if check.kind == "ratio":
        sides_of = []
        for key, per in (("numerator_per", check.numerator_per),
                         ("denominator_per", check.denominator_per)):  # fmt: skip
            side = dims[key.removesuffix("_per")]
            if per and side != {_per_dimension(per)}:
                return key, f"{per!r} does not measure what its rows do ({', '.join(side)})"
            sides_of.append("a share" if per else next(iter(side)))
        if sides_of[0] != sides_of[1]:
            return "denominator", "the two sides measure different things ({}, {})".format(
                *sides_of
            )
    return None


def _per_dimension(figure: str) -> str:
    if not figure:
        return ""
    return FIGURE_DIMENSION.get(figure.split(":")[1], "flop_rate")


def read_claims(measurements: Path, rows: list[LiteratureRow], device_ids: set[str]) -> list[Claim]:
    """The file's claims, in file order; [] when it is absent. Every row a check names is a
    seeds.csv row, every device a catalog device, a ratio's sides measure the same thing,
    and ids are unique."""
    path = measurements / "literature" / CLAIMS_FILE
    if not path.is_file():
        return []
    fix = (
        "each [[claim]] takes id (<seed>-<words>), seed, where, claim, optionally note, and "
        "one or more [[claim.check]] of kind " + ", ".join(KINDS) + ": see "
        "measurements/literature/README.md for the keys of each"
    )
    parsed = validated(_File, upgrade(load_toml(path), path, SCHEMA_VERSION), path, fix)
    by_id = {row.id: row for row in rows}
    seen: set[str] = set()
    for index, claim in enumerate(parsed.claim):
        if claim.id in seen:
            raise UserError(
                f"claim {claim.id!r} appears twice", file=path, key=f"claim.{index}.id",
                fix="give each [[claim]] its own id",
            )  # fmt: skip
        seen.add(claim.id)
        for number, check in enumerate(claim.check):
            wrong = _check_names(check, by_id, device_ids) or _check_units(check, by_id)
            if wrong:
                key, what = wrong
                raise UserError(
                    f"claim {claim.id!r}: {what}",
                    file=path,
                    key=f"claim.{index}.check.{number}.{key}",
                    fix="name ids of measurements/literature/seeds.csv and catalog devices "
                    "(generator/catalog/hardware.toml); a ratio's sides in one unit family",
                )
    return list(parsed.claim)
