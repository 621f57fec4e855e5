"""An input kind is one registration (docs/architecture.md, "A new input format"): a toy
kind declared here, with its own reader, analysis, page and index section, goes through
every stage of the build and comes out as a page under Traces, a row of the Traces index
and a download, with no generator file touched; and no stage names a kind."""

from __future__ import annotations

import ast
import csv
import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import polars as pl
import pytest

from generator.errors import UserError
from generator.pages.nav import site_nav
from generator.pages.page import Generated, Kind, KindContext, Page, Report
from generator.pages.paths import downloads_root
from generator.pages.registry import REGISTRY
from generator.pages.trace_profile import TRACE_DIR
from generator.records.import_source import ImportedFolder, discover_folders
from generator.site.analyse import Analysed, analyse
from generator.site.check import check
from generator.site.context import build_context
from generator.site.draw import draw
from generator.site.kinds import KINDS
from generator.site.load import Loaded, load_measurements
from generator.site.write import render_pages, write_pages
from generator.store import Store
from tests.helpers import REPO

GENERATOR = REPO / "generator"
SOURCE = """schema_version = 1
title = "{title}"
origin = "https://example.org/{name}"
device = "l4"
model = "not stated"
workload = "a toy capture"
phase = "kernel"
precision = "not stated"
citation = "the toy kind's test"
"""


# The toy format: toy/kernels.csv, one kernel per line (name, seconds).
@dataclass(frozen=True)
class ToyView:
    slug: str
    title: str
    device: str
    kernels: pl.DataFrame  # name, seconds


def read_toy(folder: Path) -> pl.DataFrame:
    """Its reader."""
    with (folder / "kernels.csv").open(encoding="utf-8", newline="") as file:
        rows = [(name, float(seconds)) for name, seconds in csv.reader(file)]
    return pl.DataFrame(rows, schema={"name": pl.String, "seconds": pl.Float64}, orient="row")


def analyse_toy(found: Sequence[ImportedFolder], context: KindContext) -> list[ToyView]:
    """Its analysis: each capture's kernels, longest first, on the catalog device named."""
    names = {device.id: device.name for device in context.catalog}
    return [
        ToyView(
            item.name,
            item.source.title,
            names.get(item.source.device, item.source.device),
            read_toy(item.folder / "toy").sort("seconds", descending=True),
        )
        for item in found
    ]


def toy_page(view: ToyView) -> Page:
    """Its page, with its kernels offered as a download."""
    total = float(view.kernels["seconds"].sum())
    markdown = f"# {view.title}\n\nOn {view.device}: {total:.3f} s of kernels.\n"
    return Page(
        f"{TRACE_DIR}/{view.slug}.md", view.title, markdown, tables={"kernels": view.kernels}
    )


def toy_index(views: Sequence[ToyView]) -> str:
    """Its section of the Traces index."""
    rows = "".join(f"- [{view.title}]({view.slug}/)\n" for view in views)
    return f"## Toy captures\n\n{rows}\n"


TOY: Kind[ImportedFolder, ToyView] = Kind(
    name="toy",
    folder="toy",
    find=partial(discover_folders, kind_folder="toy"),
    analyse=analyse_toy,
    page=toy_page,
    index=toy_index,
)


def _toy_capture(measurements: Path, name: str, title: str, kernels: str) -> None:
    folder = measurements / "imported" / name
    (folder / "toy").mkdir(parents=True)
    (folder / "source.toml").write_text(SOURCE.format(title=title, name=name), encoding="utf-8")
    (folder / "toy" / "kernels.csv").write_text(kernels, encoding="utf-8")


@pytest.fixture(scope="module")
def measurements(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("toy") / "measurements"
    _toy_capture(root, "toy-b", "Toy capture B", "gemm,0.5\nsoftmax,0.25\n")
    _toy_capture(root, "toy-a", "Toy capture A", "copy,0.125\n")
    return root


@pytest.fixture(scope="module")
def built(
    measurements: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Report, list[Page]]:
    loaded = load_measurements(
        build_context(measurements, tmp_path_factory.mktemp("cache")), (*KINDS, TOY)
    )
    report = draw(check(analyse(loaded)))
    return report, render_pages(report)[0]


def test_a_registered_kind_goes_through_every_stage(built: tuple[Report, list[Page]]) -> None:
    report, pages = built
    (a, b) = report.of(TOY)  # found sorted by name, analysed, carried under its name
    assert (a.slug, b.slug) == ("toy-a", "toy-b")
    assert b.kernels["name"].to_list() == ["gemm", "softmax"]
    assert a.device == "NVIDIA L4"  # the context's catalog reached it
    by_path = {page.path: page for page in pages}
    page = by_path[f"{TRACE_DIR}/toy-b.md"]
    assert page.markdown == "# Toy capture B\n\nOn NVIDIA L4: 0.750 s of kernels.\n"
    assert page.tables["kernels"].equals(b.kernels)  # offered as a download
    index = by_path[f"{TRACE_DIR}/index.md"].markdown
    assert "## Toy captures\n\n- [Toy capture A](toy-a/)\n- [Toy capture B](toy-b/)\n" in index
    assert "## Single traces" in index  # its section sits above the single traces'
    assert report.of(KINDS[0]) == [] and "## Multi-rank captures" not in index


def test_its_pages_are_in_the_navigation(built: tuple[Report, list[Page]]) -> None:
    report = built[0]
    made = [entry.render(report) if isinstance(entry, Generated) else [] for entry in REGISTRY]
    traces = next(item["Traces"] for item in site_nav(REGISTRY, made, set()) if "Traces" in item)
    assert {"Toy capture A": f"{TRACE_DIR}/toy-a.md"} in traces
    assert {"Toy capture B": f"{TRACE_DIR}/toy-b.md"} in traces


def test_its_page_and_download_are_written(
    built: tuple[Report, list[Page]], tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    write_pages(built[0], docs, Store(tmp_path / "cache"))
    assert (
        (docs / TRACE_DIR / "toy-a.md")
        .read_text(encoding="utf-8")
        .startswith("# Toy capture A\n\nOn NVIDIA L4: 0.125 s of kernels.\n")
    )
    (download,) = downloads_root(docs).rglob("*toy-a*/kernels.csv")
    assert pl.read_csv(download).rows() == [("copy", 0.125)]


def test_a_folder_of_no_registered_kind_is_refused(measurements: Path, tmp_path: Path) -> None:
    with pytest.raises(
        UserError, match=r"missing ncu\.csv \(or trace\.json\.gz, ranks/ or nsys/\)"
    ):
        load_measurements(build_context(measurements, tmp_path))  # the toy kind not registered
    found = load_measurements(build_context(measurements, tmp_path), (TOY,))
    assert [item.name for item in found.captures["toy"]] == ["toy-a", "toy-b"]


def _type_names(cls: type) -> str:
    return " ".join(f"{f.name}: {f.type}" for f in dataclasses.fields(cls))


@pytest.mark.parametrize("stage", [Loaded, Analysed, Report])
def test_no_stage_names_a_kind(stage: type) -> None:
    """The stages carry every kind in `captures`, by name: a field (or type) of its own in
    Loaded, Analysed or Report is what made a new format touch 24 files."""
    fields = _type_names(stage)
    for kind in KINDS:
        assert not re.search(rf"\b{kind.name}\b", fields), (stage.__name__, kind.name)
    for name in ("CaptureView", "NsysView", "ImportedCapture", "ImportedNsys", "ImportedFolder"):
        assert name not in fields, (stage.__name__, name)


def _imported(path: Path) -> set[str]:
    """The modules a file imports (`from generator.pages import x` imports ...pages.x)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def test_each_kind_is_named_in_one_generator_module() -> None:
    """A kind's page module and its analysis are reached through its registration alone
    (site/kinds.py): no stage imports them."""
    modules = {kind.page.__module__ for kind in KINDS} | {kind.analyse.__module__ for kind in KINDS}
    importers: dict[str, list[str]] = {}
    for path in sorted(GENERATOR.rglob("*.py")):
        for module in modules & _imported(path):
            importers.setdefault(module, []).append(path.relative_to(REPO).as_posix())
    assert importers == {module: ["generator/site/kinds.py"] for module in modules}
