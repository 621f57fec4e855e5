"""Each stage of the report build alone, on the small fixed measurement set of the golden
tests (one imported export, two runs of group A, CPU ceilings, complexity tables, six
literature rows), and the architecture's rules."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest

from generator.analysis.result_columns import OWN_AND_POOLED
from generator.analysis.results import Result, RunTime, estimate
from generator.analysis.verdict_needs import NOT_TESTABLE
from generator.errors import UserError
from generator.ingest.runs import RUN_SCHEMA, run_rows
from generator.pages import chart_render, experiment
from generator.pages import runs as runs_pages
from generator.pages.chart_render import ChartRenderer
from generator.pages.nav import site_nav
from generator.pages.page import Generated, HandWritten, Page, Report
from generator.pages.paths import downloads_root
from generator.pages.registry import REGISTRY
from generator.pages.run_pages import run_page
from generator.pages.runs import run_contexts
from generator.site.analyse import Analysed, analyse
from generator.site.check import Checked, check
from generator.site.context import build_context
from generator.site.draw import draw
from generator.site.load import Loaded, load_measurements
from generator.site.publish import publish
from generator.site.release import make_release
from generator.site.write import Written, render_pages, write_pages
from generator.site.written import Held
from generator.store import Store
from tests.helpers import REPO

GOLDEN = REPO / "tests" / "data" / "golden" / "measurements"
GENERATOR = REPO / "generator"


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Loaded:
    return load_measurements(build_context(GOLDEN, tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="module")
def analysed(loaded: Loaded) -> Analysed:
    return analyse(loaded)


@pytest.fixture(scope="module")
def report(analysed: Analysed) -> Report:
    return draw(check(analysed))


def test_load_reads_every_record_once(loaded: Loaded) -> None:
    assert [item.name for item, _ in loaded.imported] == ["l4-resnet18-train-step-b64"]
    assert loaded.imported[0][1].kernels.height == 98
    groups = {"A", "B", "C", "D", "F", "H", "H-cpu"}
    assert loaded.runs.height == 38 and set(loaded.runs["group"]) == groups
    assert set(loaded.step_times) == set(loaded.runs["run_id"])
    assert {len(times) for times in loaded.step_times.values()} == {10, 20}
    names = [c.device_name for c in loaded.ceilings]
    assert names == ["AMD EPYC (2 threads)", "NVIDIA H100 80GB HBM3"]
    assert len(loaded.literature) == 6
    assert loaded.complexity.meta is not None and "models.csv" in loaded.complexity.frames
    assert loaded.profiled == []  # no run of the set was profiled with --ncu


def test_load_reads_each_run_json_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 1,000 records validated twice were 0.25 s of a rebuild after one more run.
    from generator.records import run

    read: list[str] = []
    original = run.load_json
    monkeypatch.setattr(
        run, "load_json", lambda path, fix: read.append(path) or original(path, fix)
    )
    loaded = load_measurements(build_context(GOLDEN, tmp_path))
    ids = [path.parent.name for path in read if path.name == run.RUN_FILE]
    assert sorted(ids) == sorted(loaded.runs["run_id"]) and len(ids) == 38


def test_a_build_leaves_nothing_frozen_from_the_collector(tmp_path: Path) -> None:
    # The stages' results are frozen (gc.freeze) while the build runs, then handed back.
    import gc

    from generator.site.build import build_report

    before = gc.get_freeze_count()
    build_report(build_context(GOLDEN, tmp_path))
    assert gc.get_freeze_count() == before == 0


def test_load_refuses_a_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="the measurements folder does not exist"):
        load_measurements(build_context(tmp_path / "nowhere", tmp_path / "cache"))


def test_analyse_is_pure_and_computes_each_result_once(analysed: Analysed) -> None:
    (view,) = analysed.views
    assert view.slug == "l4-resnet18-train-step-b64" and view.chart == {}
    assert view.step.kernels == 98 and view.match.device is not None
    assert set(analysed.verdicts) == {"A", "B", "C", "D", "F", "H", "H-cpu"}
    # the golden runs were each timed in one process: no calibrated interval to judge on
    assert analysed.verdicts["A"].outcome == NOT_TESTABLE
    assert "nox -s measure -- --group A --device cpu --force" in analysed.verdicts["A"].reason
    # one result per workload, each run's row carrying its numbers
    assert set(analysed.results) == set(analysed.runs.filter(pl.col("status") == "ok")["workload"])
    assert len(analysed.replications) == 6
    kinds = {p["kind"] for p in analysed.overview.points}
    assert kinds == {"measured (ncu)", "modelled (analytic FLOPs and bytes, measured time)"}
    assert {w.how for w in analysed.workloads} == {"ncu", "modelled"}


def test_check_turns_step_times_into_timing_findings(analysed: Analysed) -> None:
    steady = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01]
    noisy = [1.0, 1.6, 0.7, 1.4, 0.8, 1.5, 0.9, 1.3]
    loaded = replace(
        analysed.loaded,
        steps={
            "steady": pl.DataFrame({"step_s": steady}),
            "noisy": pl.DataFrame({"step_s": noisy}),
        },
    )
    checked = check(replace(analysed, loaded=loaded))
    assert isinstance(checked, Checked)
    assert checked.run_findings["steady"] == ()
    assert [f.id for f in checked.run_findings["noisy"]] == ["noisy-timing"]


def test_a_result_without_an_interval_is_judged_on_its_runs_own(analysed: Analysed) -> None:
    """Issue 64: two runs each timed in one process pool into a result with no interval; the
    check judged their precision on it, found a half-width of 0 and never said noisy-timing.
    Each run is judged on its own interval instead."""
    noisy = [1.0, 1.6, 0.7, 1.4, 0.8, 1.5, 0.9, 1.3]
    steady = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01]
    own = {run: estimate([times], False, 0.0) for run, times in (("a", noisy), ("b", steady))}
    pooled = estimate([noisy, steady], False, 0.0)
    assert not pooled.bounded  # several runs each in one process: no interval
    result = Result(
        workload="w", model="m", dataset="d", batch=1, phase="inference", precision="fp32",
        device="cpu", device_name="cpu", device_label="cpu",
        runs=tuple(RunTime(run, "A", step, False) for run, step in own.items()),
        groups=("A",), step=pooled, iterations=16,
    )  # fmt: skip
    loaded = replace(
        analysed.loaded,
        steps={"a": pl.DataFrame({"step_s": noisy}), "b": pl.DataFrame({"step_s": steady})},
    )
    checked = check(replace(analysed, loaded=loaded, results={"w": result}))
    assert [f.id for f in checked.run_findings["a"]] == ["noisy-timing"]
    assert "within one process" in checked.run_findings["a"][0].evidence
    assert checked.run_findings["b"] == ()


def test_draw_draws_each_export_and_hands_the_pages_one_report(report: Report) -> None:
    (view,) = report.views
    assert view.chart["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
    assert report.verdicts and report.overview.points and report.run_findings


def test_every_registered_page_renders_once(report: Report) -> None:
    pages, made = render_pages(report)
    assert len(made) == len(REGISTRY)
    paths = [page.path for page in pages]
    assert len(paths) == len(set(paths))
    assert {"hardware.md", "measurements/overview.md", "measurements/experiments/A.md"} <= set(
        paths
    )
    for page in pages:
        for chart_id in page.charts:  # charts travel as objects and are embedded once
            assert page.markdown.count(f'<div class="ra-chart" id="{chart_id}"') == 1


def test_write_replaces_the_generated_pages_and_builds_the_nav(
    report: Report, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(REPO / "docs", docs, ignore=shutil.ignore_patterns("measurements", "assets"))
    (docs / "measurements").mkdir()
    (docs / "measurements" / "stale.md").write_text("left from an older build")
    written = write_pages(report, docs, Store(tmp_path / "cache"))
    assert not (docs / "measurements" / "stale.md").exists()
    assert (docs / "measurements" / "overview.md").read_text() == next(
        p.markdown for p in written.pages if p.path == "measurements/overview.md"
    )
    svg = "measurements/data/overview/overview-roofline.svg"
    assert (downloads_root(docs) / svg).is_file()
    assert not (docs / svg).exists()  # beside docs/, where MkDocs does not list it
    titles = [next(iter(item)) if isinstance(item, dict) else item for item in written.nav]
    assert titles[:3] == ["Roofline Atlas", "Results", "Experiments"]
    assert {"Experiments", "Kernels", "Method", "Cite", "Project"} <= set(titles)


def test_write_touches_only_what_changed(tmp_path: Path) -> None:
    from generator.site.files import replace_generated

    docs = tmp_path / "docs"
    first = {"measurements/a.md": "# A\n", "measurements/runs/b.md": "# B\n", "index.md": "# I\n"}
    replace_generated(docs, first, {"measurements/data/b/t.csv": b"x\n1\n"})
    kept = (docs / "measurements/a.md").stat()
    (docs / "measurements/data/b/.t.csv.123.tmp").write_bytes(b"torn")  # a stopped write
    changed = {**first, "measurements/runs/b.md": "# B, again\n"}
    replace_generated(docs, changed, {"measurements/data/c/t.csv": b"x\n2\n"})
    again = (docs / "measurements/a.md").stat()
    assert (again.st_ino, again.st_mtime_ns) == (kept.st_ino, kept.st_mtime_ns)  # not rewritten
    assert (docs / "measurements/runs/b.md").read_text() == "# B, again\n"
    assert (docs / "measurements/data/c/t.csv").read_bytes() == b"x\n2\n"
    assert not (docs / "measurements/data/b").exists()  # its file gone, then the folder
    assert (docs / "index.md").read_text() == "# I\n"


def test_a_write_knows_what_the_last_left_without_walking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Given what the folder held after the last write (`previous`), the files no page
    makes any more are removed without walking it, with the folders they leave empty; the
    result is the one a walk gives."""
    from generator.site import files

    docs = tmp_path / "docs"
    first = {"measurements/a.md": "# A\n", "index.md": "# I\n"}
    held = files.replace_generated(
        docs, first, {"measurements/data/b/c/t.csv": b"1", "measurements/data/d/t.csv": b"2"}
    )
    assert held == {"measurements/a.md", "measurements/data/b/c/t.csv", "measurements/data/d/t.csv"}

    def no_walk(*args: object) -> None:
        raise AssertionError("walked the folder although its files were known")

    monkeypatch.setattr(files.os, "walk", no_walk)
    again = files.replace_generated(
        docs, first, {"measurements/data/d/t.csv": b"2"}, previous=held | {"measurements/gone.md"}
    )
    assert again == {"measurements/a.md", "measurements/data/d/t.csv"}
    assert not (docs / "measurements/data/b").exists()  # its file, then its empty folders
    assert (docs / "measurements/data/d/t.csv").read_bytes() == b"2"
    monkeypatch.undo()
    assert sorted(files.relative_files(docs / "measurements")) == ["a.md", "data/d/t.csv"]


def test_a_build_cut_short_leaves_no_record_of_what_docs_holds(tmp_path: Path) -> None:
    """A write takes the record away before it writes and the build saves it when done:
    after a write that stopped half-way, the next one walks the folder, and the temporary
    file the stopped write left is removed."""
    from generator.site.written import Held, save_held, take_held, write_docs

    docs, cache = tmp_path / "docs", Store(tmp_path / "cache")
    page = Page(path="measurements/a.md", title="A", markdown="# A\n")
    _, held = write_docs([page], docs, cache, drawn={})
    assert held == Held(frozenset({"measurements/a.md"}), frozenset())
    save_held(cache, docs, held)
    torn = docs / "measurements" / ".a.md.123.tmp"
    torn.write_text("torn")  # what a write killed half-way leaves
    assert take_held(cache, docs) == held
    assert take_held(cache, docs) is None  # taken: a build stopped now leaves none
    write_docs([page], docs, cache, drawn={})  # walks, as no record was saved
    assert not torn.exists()


def test_chart_files_not_drawn_yet_are_left_to_publish(
    report: Report, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a renderer kept open (a build that runs MkDocs), the write stage does not wait
    for the chart files: an empty file stands among the downloads for each one still being
    drawn, and `later` gives the drawn bytes for publish to put there and in the site."""
    # drawn in this process when asked for, so none is done before the pages are written
    monkeypatch.setattr(chart_render, "PARALLEL_FROM", 10**6)
    docs = tmp_path / "docs"
    shutil.copytree(REPO / "docs", docs, ignore=shutil.ignore_patterns("measurements", "assets"))
    store = Store(tmp_path / "cache")
    with ChartRenderer(store) as renderer:
        written = write_pages(report, docs, store, renderer)
        assert written.later is not None and written.later.paths
        for relative in written.later.paths:
            assert (downloads_root(docs) / relative).read_bytes() == b""
        drawn = written.later.files()
    assert set(drawn) == set(written.later.paths)
    assert all(
        content.startswith(b"<svg" if path.endswith(".svg") else b"%PDF")
        for path, content in drawn.items()
    )


def test_publish_needs_mkdocs_yml(tmp_path: Path) -> None:
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        with pytest.raises(UserError, match=r"mkdocs\.yml not found"):
            release = make_release({}, None, None)
            nothing = Held(frozenset(), frozenset())
            publish(Written(tmp_path, [], [], nothing), tmp_path, tmp_path / "site", release)
    finally:
        os.chdir(cwd)
    assert not (tmp_path / "site").exists()


def test_nav_groups_consecutive_sections_and_keeps_unlisted_pages() -> None:
    registry = (
        HandWritten("Home", "index.md"),
        Generated("Kernels", lambda report: []),
        Generated("Kernels", lambda report: []),
        Generated(None, lambda report: []),
    )
    made = [
        [],
        [Page("measurements/index.md", "Index", "")],
        [Page("measurements/a.md", "A <b>", "")],
        [],
    ]
    nav = site_nav(registry, made, {"index.md", "notes.md", "measurements/x.md"})
    assert nav == [
        {"Home": "index.md"},
        {"Kernels": [{"Index": "measurements/index.md"}, {"A &lt;b&gt;": "measurements/a.md"}]},
        "notes.md",
    ]


def test_small_modules_and_few_top_level_ones() -> None:
    for path in GENERATOR.rglob("*.py"):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines <= 400, f"{path.relative_to(REPO)} has {lines} lines"
    top = [p.name for p in GENERATOR.glob("*.py")]
    assert len(top) <= 8, top


def test_only_records_know_the_keys_of_run_json() -> None:
    keys = ('"timing"', '"modelled_point"', '"config_hash"', '"phase_median_s"', '"started_at"')
    for path in GENERATOR.rglob("*.py"):
        if path.parent.name == "records":
            continue
        text = path.read_text(encoding="utf-8")
        assert not [k for k in keys if k in text], path.relative_to(REPO)


def test_the_about_page_counts_the_inputs(report: Report) -> None:
    from generator.pages.about import about_page

    page = about_page(report)
    assert page.path == "measurements/about.md" and page.title == "About this report"
    assert (
        "<code>measurements/runs/</code></td><td>runs measured with nox -s measure</td><td>38 ok</td>"
        in page.markdown
    )
    assert (
        "<code>measurements/imported/</code></td><td>imported files, verbatim</td>"
        "<td>1 Nsight Compute export, 0 torch.profiler traces</td>" in page.markdown
    )
    assert "<td>6</td>" in page.markdown  # the six literature rows of the set


def test_every_module_is_tracked_by_git() -> None:
    """An ignore pattern once hid new modules from commits (`site/` matched generator/site/)."""
    import subprocess

    listed = subprocess.run(
        ["git", "ls-files", "--others", "--ignored", "--exclude-standard", "generator"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    ignored = [p for p in listed.stdout.splitlines() if p.endswith((".py", ".j2", ".toml"))]
    assert ignored == []


# what a download adds to a run's row: its workload's result's timing (result_columns.py)
TIMING = {"median_s", "ci_low_s", "ci_high_s", "cv", "throughput", "modelled_attained",
          *OWN_AND_POOLED}  # fmt: skip


def test_the_runs_table_carries_no_copy_of_a_result(analysed: Analysed, report: Report) -> None:
    """Issue 64: the runs table carried copies of each ok run's result's timing, so a page
    could read either; every page reads the result, and only the downloads add its columns."""
    assert not TIMING & set(RUN_SCHEMA.names())
    assert not TIMING & set(analysed.runs.columns)
    assert not TIMING & set(report.runs.columns)
    assert analysed.runs.filter(pl.col("status") == "ok").height > 0 and analysed.results


def test_each_runs_download_states_its_results_median(report: Report) -> None:
    """runs.md's runs table, each experiment page's and each run page's run-summary: every
    ok run's median and interval are its workload's result's."""
    pages = runs_pages.PAGE.render(report) + experiment.PAGE.render(report)
    tables = [page.tables["runs"] for page in pages if "runs" in page.tables]
    contexts = run_contexts(report)
    tables += [
        run_page(row, contexts[row["run_id"]], report.citation).tables["run-summary"]
        for row in run_rows(report.runs)
    ]
    assert len(tables) == 1 + len(report.experiments.groups if report.experiments else []) + (
        report.runs.height
    )
    checked = 0
    for table in tables:
        assert set(table.columns) >= TIMING
        for row in table.filter(pl.col("status") == "ok").to_dicts():
            result = report.results[row["workload"]]
            assert row["median_s"] == result.step.value, row["run_id"]
            step = result.step  # its ends left out where too far apart to state
            ends = (None, None) if step.too_wide else (step.low, step.high)
            assert (row["ci_low_s"], row["ci_high_s"]) == ends, row["run_id"]
            assert row["throughput"] == result.throughput.value
            assert row["pooled_runs"] == len(result.runs) and row["interval"]
            checked += 1
    assert checked >= 2 * report.runs.filter(pl.col("status") == "ok").height
