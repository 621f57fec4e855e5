"""Kernel pages come from the content-keyed cache (site/page_cache.py): drawn once, drawn
again when their view changes, and equal to a fresh drawing."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from generator.analysis.views import MeasurementView
from generator.pages import workers
from generator.site import analyse as analyse_module
from generator.site import context as context_module
from generator.site import page_cache, stamp
from generator.site.context import BuildContext, build_context
from generator.site.load import load_measurements
from generator.store import Store, storing_in

MEASUREMENTS = Path(__file__).parents[1] / "measurements"  # 13 exports: imported and --ncu runs


@pytest.fixture(scope="module")
def views(tmp_path_factory: pytest.TempPathFactory) -> list[MeasurementView]:
    loaded = load_measurements(build_context(MEASUREMENTS, tmp_path_factory.mktemp("parsed")))
    with pytest.MonkeyPatch.context() as monkeypatch:  # the traces are not what is tested
        monkeypatch.setattr(analyse_module, "_trace_views", lambda loaded, counted, timed: [])
        found = analyse_module.analyse(loaded).views
    assert len(found) >= 3
    return found


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    drawn: list[str] = []
    draw = page_cache._draw

    def counted(view: MeasurementView, store: Store) -> Any:
        drawn.append(view.slug)
        return draw(view, store)

    monkeypatch.setattr(page_cache, "_draw", counted)
    monkeypatch.setattr(workers, "PARALLEL_FROM", 10**6)  # drawn here, where it is counted
    return drawn


def _in(folder: Path, code: str = "code") -> BuildContext:
    """A build's context whose store is in `folder`."""
    return BuildContext(MEASUREMENTS, folder, Store(folder, code))


def test_an_unchanged_view_is_drawn_once(
    views: list[MeasurementView], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn = _counting(monkeypatch)
    first, pages = page_cache.drawn_measurements(views, _in(tmp_path))
    assert drawn == [v.slug for v in views]
    again, cached = page_cache.drawn_measurements(views, _in(tmp_path))
    assert drawn == [v.slug for v in views]  # nothing drawn the second time
    assert [v.chart for v in again] == [v.chart for v in first]
    assert {s: p.markdown for s, p in cached.items()} == {s: p.markdown for s, p in pages.items()}
    assert all(p.files for p in cached.values())  # its downloads, made when it was drawn


def test_a_changed_view_alone_is_drawn_again(
    views: list[MeasurementView], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page_cache.drawn_measurements(views, _in(tmp_path))
    drawn = _counting(monkeypatch)
    changed = [replace(views[0], title=views[0].title + " (again)"), *views[1:]]
    _, pages = page_cache.drawn_measurements(changed, _in(tmp_path))
    assert drawn == [views[0].slug]
    assert "(again)" in pages[views[0].slug].markdown


def test_the_key_is_the_same_in_another_process(views: list[MeasurementView]) -> None:
    import pickle
    import subprocess
    import sys

    # pickled whole, a view's bytes depend on which equal strings share an object
    code = (
        "import pickle, sys\n"
        "from generator.site.page_cache import view_key\n"
        "views = pickle.loads(sys.stdin.buffer.read())\n"
        "from generator.store import Store\n"
        "print(' '.join(view_key(v, Store(None, 'code')) for v in views))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=pickle.dumps(views), capture_output=True, check=True
    )
    keys = [page_cache.view_key(v, Store(None, "code")) for v in views]
    assert done.stdout.decode().split() == keys


def test_a_torn_cache_file_is_drawn_again(
    views: list[MeasurementView], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page_cache.drawn_measurements(views[:1], _in(tmp_path))
    for path in (tmp_path / "pages").rglob("*.pickle"):
        path.write_bytes(b"torn")
    drawn = _counting(monkeypatch)
    page_cache.drawn_measurements(views[:1], _in(tmp_path))
    assert drawn == [views[0].slug]


def test_many_missing_pages_are_drawn_in_worker_processes(
    views: list[MeasurementView], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers, "PARALLEL_FROM", 2)
    drawn, pages = page_cache.drawn_measurements(views[:3], _in(tmp_path))
    alone, _ = page_cache.drawn_measurements(views[:3], _in(tmp_path / "again"))
    assert [v.chart for v in drawn] == [v.chart for v in alone] and len(pages) == 3


def test_new_code_draws_every_page_again(
    views: list[MeasurementView], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page_cache.drawn_measurements(views[:2], _in(tmp_path))
    drawn = _counting(monkeypatch)
    page_cache.drawn_measurements(views[:2], _in(tmp_path, "other code"))
    assert drawn == [v.slug for v in views[:2]]


def test_the_code_digest_covers_formatting_the_caches_and_library_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    package = tmp_path / "generator"
    shutil.copytree(
        Path(context_module.__file__).parents[1],
        package,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    monkeypatch.setattr(context_module, "_PACKAGE", package)
    before = context_module.code_digest()
    for changed in (
        "formatting.py",
        "store/__init__.py",
        "site/page_cache.py",
        "site/trace_cache.py",
    ):
        path = package / changed
        path.write_text(path.read_text() + "\n# changed\n")
        assert context_module.code_digest() != before, changed
        before = context_module.code_digest()
    monkeypatch.setattr(stamp, "version", lambda name: "99")  # another vl-convert, say
    assert context_module.code_digest() != before


def test_templates_are_compiled_once_into_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.pages import render

    monkeypatch.setattr(render._ENVIRONMENT, "cache", {})  # compiled in memory: none yet
    compiled = []
    original = render._ENVIRONMENT.compile
    monkeypatch.setattr(
        render._ENVIRONMENT, "compile", lambda *a, **k: compiled.append(1) or original(*a, **k)
    )
    folder = tmp_path / "store"
    render.render("runs.md.j2", groups=[], ceilings=[], pending=[])  # outside a build: nothing kept
    assert not folder.exists() and compiled == [1]
    monkeypatch.setattr(render._ENVIRONMENT, "cache", {})
    with storing_in(Store(folder, "code")):
        first = render.render("runs.md.j2", groups=[], ceilings=[], pending=[])
    assert len(list((folder / "templates").rglob("*.pickle"))) == 1 and compiled == [1, 1]
    monkeypatch.setattr(render._ENVIRONMENT, "cache", {})  # as a new process finds it
    with storing_in(Store(folder, "other code")):  # not keyed by the code: its own checksum
        assert render.render("runs.md.j2", groups=[], ceilings=[], pending=[]) == first
    assert compiled == [1, 1]  # read from the store, not compiled again
    shutil.rmtree(folder)  # gone: compiled again and stored again, no error
    monkeypatch.setattr(render._ENVIRONMENT, "cache", {})
    with storing_in(Store(folder, "code")):
        assert render.render("runs.md.j2", groups=[], ceilings=[], pending=[]) == first
    assert compiled == [1, 1, 1] and len(list((folder / "templates").rglob("*.pickle"))) == 1


def test_environments_that_compile_differently_keep_their_templates_apart() -> None:
    from jinja2 import Environment

    from generator.pages.template_cache import compile_options

    plain = compile_options(Environment())
    assert compile_options(Environment()) == plain  # stable from process to process
    assert compile_options(Environment(extensions=["jinja2.ext.i18n"])) != plain
    assert compile_options(Environment(trim_blocks=True)) != plain
    assert compile_options(Environment(autoescape=True)) != plain
