"""Charts a reader can read (issue 49), asserted on every Vega-Lite spec the built report
writes (the `.spec.js` scripts its pages name): numbers as prose writes them, one colour
per device across the whole report, legends that list every series, every roof named
with its device and precision."""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generator.catalog import load_catalog
from generator.charts.palette import DEVICE_COLOURS, MIN_DELTA_E, SPARE_COLOURS, device_colour
from generator.charts.roofs import short_label
from generator.pages.render import SPEC_HEAD
from tests.test_chart_legibility import mark_type, rows, units

# "5.147e+04", "1.2e+2": a number in exponent notation (a hash such as "4bed1e9a" has no sign)
EXPONENT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?e[+-]\d+")
# d3 format types that write exponents: "e", and "g" (".3g" of 1240 is "1.24e+3")
EXPONENT_FORMAT = re.compile(r"[eg]$")
# where a string is a URL, a dataset's name or an expression Vega evaluates, never shown
EXPRESSIONS = ("/$schema", "/name", "/test", "/expr", "/calculate", "/filter")
VEGA_SYMBOL_LIMIT = 30  # a legend's default: past it, "…n entries"


def report_specs(site: Path) -> dict[str, dict[str, Any]]:
    specs = {}
    for script in sorted(site.rglob("*.spec.js")):
        text = script.read_text(encoding="utf-8")
        specs[str(script.relative_to(site))] = json.loads(
            text.removeprefix(SPEC_HEAD).removesuffix(";\n")
        )
    return specs


@pytest.fixture(scope="module")
def specs(repo_site: Path) -> dict[str, dict[str, Any]]:
    found = report_specs(repo_site)
    assert len(found) > 100
    return found


def walk(node: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for value in node:
            yield from walk(value, path)
    else:
        yield path, node


def exponent_problems(spec: dict[str, Any]) -> list[str]:
    """Formats of axes, legends, tooltips and text that write exponents, and strings the
    reader sees (labels in the data, titles) that hold one."""
    found = []
    for path, value in walk(spec):
        if not isinstance(value, str):
            continue
        is_format = path.endswith("/format")
        if (is_format and EXPONENT_FORMAT.search(value.replace("~", ""))) or (
            not is_format and EXPONENT.search(value) and not path.endswith(EXPRESSIONS)
        ):
            found.append(f"{path} = {value!r}")
    return found


def device_colours(specs: dict[str, dict[str, Any]]) -> dict[str, dict[str, set[str]]]:
    """Device name -> colour -> the charts that give it that colour: every colour scale
    whose domain holds a catalog device."""
    names = {d.name for d in load_catalog()}
    seen: dict[str, dict[str, set[str]]] = {}
    for chart, spec in specs.items():
        for path, node in _scales(spec):
            domain, colours = node.get("domain"), node.get("range")
            if not isinstance(domain, list) or not isinstance(colours, list):
                continue
            for device, colour in zip(domain, colours, strict=False):
                if device in names:
                    seen.setdefault(device, {}).setdefault(colour, set()).add(f"{chart}{path}")
    return seen


def _scales(node: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        colour = node.get("color")
        if isinstance(colour, dict) and isinstance(colour.get("scale"), dict):
            yield path, colour["scale"]
        for key, value in node.items():
            if key != "datasets":
                yield from _scales(value, f"{path}/{key}")
    elif isinstance(node, list):
        for value in node:
            yield from _scales(value, path)


def legend_problems(spec: dict[str, Any]) -> list[str]:
    """Legends Vega would cut: more entries than their symbol limit, labels past their
    label limit (a 10 px label needs about 6 px a character)."""
    found = []
    for unit in units(spec):
        data = rows(unit, spec)
        for name, channel in unit.get("encoding", {}).items():
            legend = channel.get("legend") if isinstance(channel, dict) else None
            if not isinstance(legend, dict) or channel.get("type") not in ("nominal", "ordinal"):
                continue
            entries = legend.get("values") or channel.get("scale", {}).get("domain")
            if not isinstance(entries, list):
                entries = list(dict.fromkeys(r.get(channel.get("field")) for r in data))
            limit = legend.get("symbolLimit", VEGA_SYMBOL_LIMIT)
            if limit and len(entries) > limit:
                found.append(f"{name}: {len(entries)} entries, {limit} shown")
            longest = max((len(str(e)) for e in entries), default=0)
            if legend.get("labelLimit", 160) < 6 * longest:
                found.append(f"{name}: labels of {longest} characters cut")
    return found


def unnamed_roofs(spec: dict[str, Any]) -> list[str]:
    """Roofs (the polylines of `roof_polyline`: rows with "flops_per_s" and "order") whose
    device and precision no text on the chart names."""
    texts = [
        str(row["roof_name"])
        for unit in units(spec)
        if mark_type(unit) == "text"
        for row in rows(unit, spec)
        if "roof_name" in row
    ]
    found = []
    for unit in units(spec):
        if mark_type(unit) != "line":
            continue
        for row in rows(unit, spec):
            if "flops_per_s" not in row or "order" not in row:
                continue
            device, precision = row.get("device"), row.get("precision")
            if not device or not precision:
                found.append(f"a roof without device or precision: {row}")
            elif not any(short_label(device) in t and precision in t for t in texts):
                found.append(f"no name for the {device} {precision} roof among {texts}")
    return sorted(set(found))


# ---- the tests ------------------------------------------------------------------------


def test_no_number_in_exponent_notation(specs: dict[str, dict[str, Any]]) -> None:
    problems = {chart: p for chart, spec in specs.items() if (p := exponent_problems(spec))}
    assert problems == {}


def test_one_colour_per_device_across_the_report(specs: dict[str, dict[str, Any]]) -> None:
    seen = device_colours(specs)
    assert len(seen) >= 20  # the Hardware charts alone colour the catalog
    shared = {device: charts for device, charts in seen.items() if len(charts) > 1}
    assert shared == {}, "a device in two colours"
    colour = {device: next(iter(charts)) for device, charts in seen.items()}
    assert {device: device_colour(device) for device in colour} == colour, "not the palette's"
    twins = [(a, b) for a, b in itertools.combinations(colour, 2) if colour[a] == colour[b]]
    assert twins == [], "two devices in one colour"


def test_legends_list_every_series(specs: dict[str, dict[str, Any]]) -> None:
    problems = {chart: p for chart, spec in specs.items() if (p := legend_problems(spec))}
    assert problems == {}


def test_every_roof_is_named_with_its_device_and_precision(
    specs: dict[str, dict[str, Any]],
) -> None:
    roofs = 0
    problems = {}
    for chart, spec in specs.items():
        roofs += sum(
            1
            for unit in units(spec)
            if mark_type(unit) == "line" and any("flops_per_s" in r for r in rows(unit, spec))
        )
        if found := unnamed_roofs(spec):
            problems[chart] = found
    assert roofs > 50
    assert problems == {}


# ---- the palette itself ----------------------------------------------------------------


def _lab(colour: str) -> tuple[float, float, float]:
    """sRGB hex -> CIELAB (D65)."""

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(colour[i : i + 2], 16) / 255) for i in (1, 3, 5))
    xyz = (
        (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
        0.2126 * r + 0.7152 * g + 0.0722 * b,
        (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
    )
    fx, fy, fz = (t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116 for t in xyz)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def test_every_catalog_device_has_its_own_colour() -> None:
    ids = {d.id for d in load_catalog()}
    assert set(DEVICE_COLOURS) == ids  # a device added to the catalog needs its colour here
    colours = list(DEVICE_COLOURS.values()) + list(SPARE_COLOURS)
    assert len(set(colours)) == len(colours)
    for a, b in itertools.combinations(colours, 2):
        distance = math.dist(_lab(a), _lab(b))
        assert distance >= MIN_DELTA_E, f"{a} and {b}: ΔE {distance:.1f}"
    for colour in colours:  # readable on the light and the dark theme
        assert 35 <= _lab(colour)[0] <= 91, colour
    # by id, name or alias alike; a device the catalog lacks keeps one spare colour
    assert device_colour("h100-sxm") == device_colour("NVIDIA H100 80GB HBM3") == "#0072B2"
    assert device_colour("AMD EPYC (2 threads)") == DEVICE_COLOURS["amd-epyc-zen5-vm-2vcpu"]
    assert device_colour("Some CPU") in SPARE_COLOURS
    assert device_colour("Some CPU") == device_colour("Some CPU")
