"""The streaming path and the parse cache give exactly the in-memory result."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

from generator.errors import UserError
from generator.ingest import cache as cache_module
from generator.ingest import read_ncu_csv
from generator.ingest.cache import cached_read
from generator.ingest.ncu_csv import default_memory_budget, parse_size
from generator.site.build import build_site
from generator.store import Store
from tests.conftest import copy_docs
from tests.helpers import REAL_NCU, REPO

REAL = sorted(REAL_NCU.glob("*.csv"))


@pytest.mark.parametrize("path", REAL, ids=[p.name[:40] for p in REAL])
def test_streaming_path_is_identical(path: Path) -> None:
    in_memory = read_ncu_csv(path, memory_budget=10**15)
    streamed = read_ncu_csv(path, memory_budget=0)
    assert_frame_equal(in_memory.kernels, streamed.kernels)
    assert_frame_equal(in_memory.metrics, streamed.metrics)
    assert (in_memory.layout, in_memory.preamble_lines) == (
        streamed.layout,
        streamed.preamble_lines,
    )


def test_budget_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_size("2G") == 2_000_000_000
    assert parse_size("512M") == 512_000_000
    assert parse_size("1.5GB") == 1_500_000_000
    assert parse_size("4096") == 4096
    with pytest.raises(UserError, match="'lots' is not a size"):
        parse_size("lots")
    monkeypatch.setenv("RA_MEMORY_BUDGET", "300M")
    assert default_memory_budget() == 300_000_000
    monkeypatch.delenv("RA_MEMORY_BUDGET")
    assert default_memory_budget() == 2_000_000_000


def test_parse_cache_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = REAL_NCU / "taytwkim__nn-perf__a1-rep.csv"
    first = cached_read(path, Store(tmp_path))
    assert len(list((tmp_path / "ncu").iterdir())) == 1

    def must_not_parse(*args: object) -> None:
        raise AssertionError("parsed again although cached")

    monkeypatch.setattr(cache_module, "read_ncu_csv", must_not_parse)
    second = cached_read(path, Store(tmp_path))
    assert_frame_equal(first.kernels, second.kernels)
    assert_frame_equal(first.metrics, second.metrics)
    assert_frame_equal(second.kernels, read_ncu_csv(path).kernels)


def test_a_bad_file_is_not_cached(tmp_path: Path) -> None:
    with pytest.raises(UserError):
        cached_read(REPO / "tests" / "data" / "bad" / "nan-value.csv", Store(tmp_path))
    assert not (tmp_path / "ncu").exists() or not list((tmp_path / "ncu").iterdir())


@pytest.mark.site
def test_unchanged_report_is_not_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(REPO)
    measurements = tmp_path / "measurements"
    shutil.copytree(REPO / "measurements", measurements)
    docs = copy_docs(tmp_path / "docs")
    site = tmp_path / "site"
    kwargs = {"measurements": measurements, "docs_dir": docs, "site_dir": site}
    build_site(**kwargs, cache_dir=tmp_path / "cache")
    index = site / "index.html"
    built = index.stat().st_mtime_ns
    capsys.readouterr()
    build_site(**kwargs, cache_dir=tmp_path / "cache")
    assert "report: up to date" in capsys.readouterr().out
    assert index.stat().st_mtime_ns == built
    source = measurements / "imported" / "rtx5070-gemm-tiled" / "source.toml"
    source.write_text(source.read_text() + "\n")  # any change to an input rebuilds
    build_site(**kwargs, cache_dir=tmp_path / "cache")
    out = capsys.readouterr().out
    assert "up to date" not in out and "generated pages" in out  # built again
    # (index.html itself may be kept: its source did not change, see test_site_scaling.py)


def test_summarize_caches_only_files_over_the_budget(tmp_path: Path) -> None:
    from generator.summaries.export import summarize_file

    path = REAL_NCU / "taytwkim__nn-perf__a1-rep.csv"
    small = summarize_file(path, "l4", cache_dir=tmp_path / "a")
    assert not (tmp_path / "a").exists()  # under the budget: read, not cached
    large = summarize_file(path, "l4", memory_budget=1, cache_dir=tmp_path / "b")
    assert len(list((tmp_path / "b" / "ncu").iterdir())) == 1
    assert large == small


def test_the_report_fingerprint_covers_the_whole_generator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change to the analysis or the charts rebuilds the report, not only one to site/
    (the fingerprint once read generator/site/ alone, and an overview fix went unbuilt)."""
    from generator.site import stamp

    assert stamp.PACKAGE.name == "generator"
    copied = tmp_path / "generator"
    shutil.copytree(stamp.PACKAGE, copied, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(stamp, "PACKAGE", copied)
    measurements, docs = tmp_path / "measurements", tmp_path / "docs"
    measurements.mkdir()
    docs.mkdir()
    before = stamp.input_fingerprint(measurements, docs)
    chart = copied / "charts" / "roofline.py"
    chart.write_text(chart.read_text() + "\n")
    assert stamp.input_fingerprint(measurements, docs) != before


def test_the_fingerprint_skips_generated_pages_dot_files_and_dangling_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.site import stamp

    monkeypatch.setattr(stamp, "PACKAGE", tmp_path / "no-package")
    measurements, docs = tmp_path / "measurements", tmp_path / "docs"
    (measurements / "runs" / "b").mkdir(parents=True)
    (measurements / "runs" / "a").mkdir()
    (docs / "measurements").mkdir(parents=True)  # the generated folder
    (measurements / "runs" / "b" / "run.json").write_text("{}")
    (measurements / "runs" / "a" / "run.json").write_text("{}")
    (docs / "methodology.md").write_text("# Method\n")
    found = stamp._files(measurements, set())
    assert found == sorted(found) and [Path(p).parent.name for p in found] == ["a", "b"]
    before = stamp.input_fingerprint(measurements, docs)
    (docs / "measurements" / "run.md").write_text("generated")
    (measurements / ".slurm").mkdir()
    (measurements / ".slurm" / "manifest.json").write_text("{}")
    (measurements / ".tmp-run.json").write_text("{}")
    (measurements / "gone").symlink_to(tmp_path / "nowhere")
    assert stamp.input_fingerprint(measurements, docs) == before
    (docs / "methodology.md").write_text("# Method, changed\n")
    assert stamp.input_fingerprint(measurements, docs) != before
