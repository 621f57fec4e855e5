"""Issue 49, over the whole report built from the committed measurements, as a reader sees it:
every interval on every page says its kind and spans at most 5x from low to high, and one
configuration shows one median, one interval and one bound on every page and download.

Read from the built HTML and the downloads, not from the code that made them: on main at
a7ab59b, 961 intervals on 113 pages failed the first check, and the experiment pages, the
Speedups download and the run pages stated different medians for one configuration."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from bs4 import BeautifulSoup, Tag

from generator.analysis.roofs import GEMM_OF_PEAK, peak_key
from generator.config import load_experiments
from generator.formatting import seconds
from generator.ingest.runs import in_group, load_runs
from generator.pages.glossary import TERMS
from generator.pages.render import SPEC_HEAD
from generator.records.run import read_runs
from generator.stats import clopper_pearson
from tests.helpers import REPO
from tests.report_numbers import MAX_SPAN, intervals_in_site

pytestmark = pytest.mark.site

MEDIAN_ROW = "median step [95 % interval] (its kind)"
_PERCENT = re.compile(
    r"(\d[\d.,]*) %(?:, too uncertain[^)]*\))?(?: \[[^\]]*\])?(?: \([^)]*\))? of the roof"
)


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


_INLINE = {"a", "strong", "em", "code", "span", "b", "i", "sub", "sup", "abbr", "small"}


def _text(tag: Tag) -> str:
    """The text as a reader sees it: inline elements (a glossary link, bold) run on with
    their neighbours, block elements (cells, paragraphs) apart."""
    parts: list[str] = []
    last = None
    for node in tag.find_all(string=True):
        block = next((p for p in node.parents if p.name not in _INLINE), None)
        parts.append(("" if block is last else " ") + str(node))
        last = block
    return " ".join("".join(parts).split())


def _facts(page: BeautifulSoup) -> dict[str, str]:
    """Every two-column row of a page's tables: quantity -> value."""
    found = {}
    for row in page.find_all("tr"):
        cells = row.find_all("td")
        if len(cells) == 2:
            found.setdefault(_text(cells[0]), _text(cells[1]))
    return found


def _share(text: str) -> str:
    """The fraction of the roof a bound names (a host-bound step's words state the GPU's idle
    share first)."""
    match = _PERCENT.search(text)
    assert match, text
    return match.group(1)


def _run_pages(site: Path) -> dict[str, dict[str, str]]:
    """Run id -> its page's median (with interval and kind), its bound's share and the share
    of each of its points ("counted", "trace", "modelled")."""
    found = {}
    for path in sorted((site / "measurements" / "runs").glob("*/index.html")):
        page = _soup(path)
        facts = _facts(page)
        if MEDIAN_ROW in facts:
            points = {
                cells[0].split(" ")[0]: _share(cells[-1])
                for row in page.find_all("tr")
                if len(cells := [_text(c) for c in row.find_all("td")]) == 6
                and "of the roof" in cells[-1]
            }
            found[path.parent.name] = {
                "median": facts[MEDIAN_ROW],
                "share": _share(facts["bound"]) if "bound" in facts else "",
                **points,
            }
    return found


def _linked_rows(page: BeautifulSoup, run_ids: set[str]) -> list[tuple[str, list[str]]]:
    """(run id, the row's cells) for every table row whose first link is a run's page."""
    rows = []
    for row in page.find_all("tr"):
        link = row.find("a", href=True)
        run_id = str(link["href"]).rstrip("/").rsplit("/", 1)[-1] if link else ""
        if run_id in run_ids:
            rows.append((run_id, [_text(cell) for cell in row.find_all("td")]))
    return rows


def test_no_interval_spans_more_than_5x_and_every_one_says_its_kind(repo_site: Path) -> None:
    seen = intervals_in_site(repo_site)
    assert len(seen) > 300  # the report states intervals: the check reads them
    problems = [f"{s.page}: {s.problem}: {s.text[:160]}" for s in seen if s.problem]
    assert problems == [], f"{len(problems)} of {len(seen)} intervals (max {MAX_SPAN:g}x):\n" + (
        "\n".join(problems[:25])
    )


def test_one_configuration_one_median_interval_and_bound_on_every_page(repo_site: Path) -> None:
    pages = _run_pages(repo_site)
    runs = pl.read_csv(repo_site / "measurements" / "data" / "runs" / "runs.csv")
    ok = runs.filter(pl.col("status") == "ok")
    assert set(ok["run_id"]) <= set(pages) and len(pages) >= 100
    # the runs of one configuration: one median on each of their pages
    for _, part in ok.group_by("workload"):
        texts = {pages[run_id]["median"] for run_id in part["run_id"]}
        shares = {pages[run_id]["share"] for run_id in part["run_id"]}
        assert len(texts) == 1 and len(shares) == 1, (part["run_id"].to_list(), texts, shares)
    compared = 0
    # every experiment page's rows, the runs page and its lists: the run page's numbers
    listings = [
        *sorted((repo_site / "measurements" / "experiments").glob("*/index.html")),
        repo_site / "measurements" / "runs" / "index.html",
    ]
    for path in listings:
        for run_id, cells in _linked_rows(_soup(path), set(pages)):
            expected = pages[run_id]
            assert expected["median"] in cells, (path, run_id, cells, expected)
            bound = next((c for c in cells if "of the roof" in c), None)
            if bound is not None:
                assert _share(bound) == expected["share"], (path, run_id, bound, expected)
            compared += 1
    assert compared >= 2 * len(ok)
    # the kernel page and trace page of the run whose profiles give a configuration's counted
    # and trace points (its first) name those points' bounds
    kinds = {"counted": "measurements/run-{}/index.html",
             "trace": "measurements/traces/run-{}/index.html"}  # fmt: skip
    first = ok.group_by("workload").agg(pl.col("run_id").min())["run_id"]
    checked = 0
    for run_id in first:
        shown = pages[run_id]
        for kind, where in kinds.items():
            path = repo_site / where.format(run_id)
            if kind in shown and path.is_file():
                text = _text(_soup(path))
                match = re.search(r"(?:bound|side) at (\d[\d.,]*) % ", text)
                assert match and match.group(1) == shown[kind], (path, shown, match)
                checked += 1
    assert checked >= 10
    # the citations: each configuration's BibTeX states its pages' median, interval and kind
    entries = _bibtex_entries(repo_site / "measurements" / "cite" / "index.html")
    for workload, part in ok.group_by("workload"):
        keys = {_run_page_key(repo_site, run_id) for run_id in part["run_id"]}
        assert len(keys) == 1, (workload, keys)  # one key per configuration, on every run page
        (key,) = keys
        median = pages[part["run_id"][0]]["median"]
        value = median.split(" (")[0]  # "5.48 ms [5.3 ms, 5.7 ms]" or "6.905 ms"
        note = entries[key]["median"]
        assert note.startswith(value), (key, note, median)
        assert ("calibrated:" in note) == ("(calibrated," in median), key
        for run_id in part["run_id"]:  # it names every run it pools
            assert f"measurements/runs/{run_id}/run.json at commit" in entries[key]["note"]
    assert len(entries) == ok["workload"].n_unique()  # one entry per configuration


def _bibtex_entries(path: Path) -> dict[str, dict[str, str]]:
    """The Cite page's entries: key -> its note and the median the note states."""
    text = _soup(path).get_text()
    found = {}
    for key, body in re.findall(r"@misc\{([^,]+),\n(.*?)\n\}", text, flags=re.S):
        note = re.search(r"note = \{(.*)\},", body, flags=re.S)
        assert note is not None, key
        median = re.search(r"median step ([^;]+);", note.group(1))
        assert key not in found and median is not None, key
        found[key] = {"note": note.group(1), "median": median.group(1)}
    return found


def _run_page_key(site: Path, run_id: str) -> str:
    text = _soup(site / "measurements" / "runs" / run_id / "index.html").get_text()
    match = re.search(r"@misc\{([^,]+),", text)
    assert match is not None, run_id
    return match.group(1)


def test_the_downloads_state_the_same_numbers_and_their_kind(repo_site: Path) -> None:
    data = repo_site / "measurements" / "data"
    runs = pl.read_csv(data / "runs" / "runs.csv").filter(pl.col("status") == "ok")
    by_configuration = {
        (r["model"], r["dataset"], r["batch"], r["phase"], r["precision"], r["compile"],
         r["device_label"]): r["median_s"]
        for r in runs.to_dicts()
    }  # fmt: skip
    # the Speedups download: each side's median is the configuration's, as in runs.csv
    speedups = pl.read_csv(data / "speedups" / "speedups.csv")
    assert speedups.height > 0
    for row in speedups.filter(pl.col("kind") == "device").to_dicts():
        key = (row["model"], row["dataset"], row["batch"], row["phase"], row["precision"],
               row["compile"])  # fmt: skip
        slower = by_configuration[(*key, row["slower"])]
        faster = by_configuration[(*key, row["faster"])]
        assert math.isclose(row["slower_median_s"], slower), row
        assert math.isclose(row["faster_median_s"], faster), row
        assert math.isclose(row["speedup"], slower / faster), row
    assert speedups["interval"].null_count() == 0  # every ratio says its kind
    # runs.csv: every median says its kind, no interval spans more than 5x, and each is the
    # one its run's page shows
    assert runs["interval"].null_count() == 0
    pages = _run_pages(repo_site)
    for row in runs.to_dicts():
        if row["ci_low_s"] is not None:
            assert row["ci_high_s"] <= MAX_SPAN * row["ci_low_s"], row["run_id"]
        shown = pages.get(row["run_id"], {}).get("median", "")
        assert shown.startswith(seconds(row["median_s"])), (row["run_id"], shown)


def test_each_setup_line_states_how_its_runs_were_timed(repo_site: Path) -> None:
    """Issue 66: the Setup line said "timed in blocks" for H100 runs timed in rounds in one
    process. Each device's runs are stated as their run.json records them."""
    records = {folder.name: record for folder, record in read_runs(REPO / "measurements")}
    ok = load_runs(REPO / "measurements").filter(pl.col("status") == "ok")
    checked = 0
    for path in sorted((repo_site / "measurements" / "experiments").glob("*/index.html")):
        group = path.parent.name
        text = _text(_soup(path))
        setup = re.search(r"Setup\. (.*?) Verdict", text)
        assert setup is not None, path
        mine = ok.filter(in_group(group))
        for device, part in mine.group_by("device_label"):
            timings = [records[r].timing for r in part["run_id"]]
            blocks = [t.blocks or 0 for t in timings if t is not None and t.method == "blocks"]
            rounds = [t for t in timings if t is not None and t.method != "blocks"]
            if rounds:
                plural = "s" * (len(rounds) > 1)
                said = f"on {device[0]}, {len(rounds)} run{plural} in rounds in one process"
                assert said in setup.group(1), (group, said, setup.group(1))
                checked += 1
            if blocks:
                said = f"on {device[0]}, {len(blocks)} run{'s' * (len(blocks) > 1)} in blocks ("
                assert said in setup.group(1), (group, said, setup.group(1))
                low, high = min(blocks), max(blocks)
                span = f"{low}" if low == high else f"{low} to {high}"
                assert f"in blocks ({span} independent worker processes each)" in setup.group(1)
                checked += 1
    assert checked >= 20


_OF_CEILING = re.compile(
    r"(\d[\d.,]*) %(?: \[[^\]]*\])?(?: \([^)]*\))? of the measured (\w+) GEMM ceiling"
)
_PRECISION = re.compile(r"\b(fp32|tf32|bf16-amp|fp16-amp)\b")


def test_no_share_of_a_ceiling_compares_a_precision_with_another_precisions(
    repo_site: Path,
) -> None:
    """Issue 66: J-gpu's bf16 step was "277 % of the measured GEMM ceiling", the fp32 one.
    Every share of a GEMM ceiling names the ceiling's precision and the step's, and they
    are one precision (`roofs.GEMM_OF_PEAK` of `roofs.peak_key`)."""
    checked = 0
    for path in sorted(repo_site.rglob("index.html")):
        if "traces" in path.parts:
            continue
        text = _text(_soup(path))
        assert "% of the measured GEMM ceiling" not in text, path  # which precision's?
        for match in _OF_CEILING.finditer(text):
            clause = re.split(r"; |\. ", text[max(0, match.start() - 300) : match.start()])[-1]
            named = _PRECISION.findall(clause)
            assert named, (path, clause, match.group(0))
            assert GEMM_OF_PEAK[peak_key(named[-1])] == match.group(2), (
                path,
                clause,
                match.group(0),
            )
            checked += 1
    assert checked >= 10


CAUSES = ("decided by the host", "decided by overhead", "unexplained")


def _cause_follows(text: str, what: str) -> bool:
    """`what` is in `text` and the same sentence goes on to name a cause."""
    start = text.find(what)
    return start >= 0 and any(cause in text[start:].split(". ")[0] for cause in CAUSES)


def test_every_comparison_against_its_expected_direction_names_its_cause(repo_site: Path) -> None:
    """Issue 66: "fp16-amp is slower than fp32 ... 2.47× as long", a +250 % gain per
    doubling, a backward pass 0.954× its forward, stated with no cause."""
    measurements = repo_site / "measurements"
    speedups = _soup(measurements / "speedups" / "index.html")
    against = 0
    for heading in speedups.find_all("h3"):
        summary = heading.find_next("p")
        table = heading.find_next("table")
        assert summary is not None and table is not None
        said = _text(summary)
        for row in table.find_all("tr")[1:]:
            cells = [_text(c) for c in row.find_all("td")]
            if float(cells[-1].split("×")[0]) < 1:  # the side named faster took longer
                config = cells[0].split(", batch ")[0]
                batch = cells[0].split(", batch ")[1].split(",")[0]
                what = f"{config} b{batch}"
                assert _cause_follows(said, what), (_text(heading), what, said[-600:])
                against += 1
    assert against >= 5
    parts = _soup(measurements / "step-parts" / "index.html")
    under = 0
    for item in parts.find_all("li"):
        text = _text(item)
        if re.search(r"backward takes 0\.\d+×", text):
            assert "Backward under forward goes against the expected direction: " in text, text
            assert any(f"direction: {cause}" in text for cause in CAUSES), text
            under += 1
    assert under >= 2
    saturation = _soup(measurements / "saturation" / "index.html")
    superlinear = 0
    for row in saturation.find_all("tr"):
        cells = [_text(c) for c in row.find_all("td")]
        gain = next((c for c in cells if re.match(r"[+−][\d.]+ %", c)), None)
        if gain is not None and float(gain.split(" %")[0].lstrip("+−")) > 100 and gain[0] == "+":
            assert "the larger batch's step is shorter: " in gain, gain
            assert any(f"shorter: {cause}" in gain for cause in CAUSES), gain
            superlinear += 1
    assert superlinear >= 1
    for page, phrase in (("K", "batch 1 takes"), ("J-gpu", "bf16-amp takes")):
        text = _text(_soup(measurements / "experiments" / page / "index.html"))
        assert _cause_follows(text, phrase), (page, phrase)
    # an unexplained one is a finding of its runs
    findings = _text(_soup(measurements / "findings" / "index.html"))
    stated = [p for p in repo_site.rglob("index.html") if "unexplained: for " in p.read_text()]
    assert not stated or "unexplained-comparison warning" in findings, stated[:3]


def test_a_not_testable_verdict_gives_the_provisional_reading_beside_it(repo_site: Path) -> None:
    """Issue 66: "not testable" where the data already speaks (B asks >= 10x; even its slower
    run gives 26.5x). Each such verdict of a ratio or a trend says what the uncalibrated runs
    give and by how much the least favourable pair clears or misses the bound."""
    experiments = load_experiments(REPO / "measurements" / "experiments.toml")
    read = 0
    for group in experiments.groups:
        path = repo_site / "measurements" / "experiments" / group.id / "index.html"
        box = _soup(path).find(class_="ra-verdict") if path.is_file() else None
        if box is None or "not testable until re-measured" not in _text(box):
            continue
        expect = group.expect
        if expect is None or not (expect.ratio or expect.trend in ("increases", "decreases")):
            continue
        text = _text(box)
        assert re.search(
            r"Provisional reading \(.*decides nothing until re-measured\).*the least favourable "
            r"pair, \S+ against \S+.*gives [\d.]+×, which (clears|misses) it by [\d.]+×\.",
            text,
        ), (group.id, text[-500:])
        read += 1
    assert read >= 4
    b = _text(_soup(repo_site / "measurements" / "experiments" / "B" / "index.html"))
    assert "gives 26.5×, which clears it by 2.65×" in b


def test_the_calibration_page_answers_its_title_and_the_landing_says_as_much(
    repo_site: Path,
) -> None:
    """Issue 66: "64 of 72 (89 %)" never said whether that is consistent with a nominal
    95 %; the landing said intervals are "checked by re-measurement" where 19 of 33 eager
    configurations were."""
    page = _text(_soup(repo_site / "measurements" / "calibration" / "index.html"))
    answer = re.search(
        r"Do they hold\? (\d+) of the (\d+) calibrated configurations were re-measured; (\d+) "
        r"of (\d+) re-measurements fell inside the interval stated before them: ([\d.]+) % "
        r"\[([\d.]+), ([\d.]+)\] \(95 % Clopper-Pearson\), (consistent with|below|above) the "
        r"nominal 95 %",
        page,
    )
    assert answer is not None, page[:1500]
    again, calibrated, inside, total = (int(answer.group(i)) for i in range(1, 5))
    low, high = clopper_pearson(inside, total)
    assert (float(answer.group(6)), float(answer.group(7))) == pytest.approx(
        (100 * low, 100 * high), abs=0.1
    )
    assert (answer.group(8) == "consistent with") == (low <= 0.95 <= high)
    assert again < calibrated  # not every calibrated configuration was checked: it says so
    # per device and mode: configurations re-measured, and coverage against the nominal
    rows = [
        [_text(c) for c in row.find_all("td")]
        for row in _soup(repo_site / "measurements" / "calibration" / "index.html").find_all("tr")
    ]
    sides = [r for r in rows if len(r) == 7 and r[6].endswith(("nominal 95 %", "not checked yet"))]
    assert any(r[0] == "AMD EPYC (2 threads)" and r[3].endswith(f"of {r[1]}") for r in sides)
    assert any("torch.compile" in r[0] for r in sides)
    assert all("Clopper-Pearson" in r[5] or r[6] == "not checked yet" for r in sides)
    # the landing states the same answer, no more
    landing = _text(_soup(repo_site / "index.html"))
    assert answer.group(0).removeprefix("Do they hold? ") in landing
    assert "checked by re-measurement" not in landing


def _specs(site: Path, page: Path) -> dict[str, dict[str, Any]]:
    """A built page's chart specs by chart id, read from the scripts its divs name."""
    found = {}
    for div in _soup(page).find_all("div", class_="ra-chart"):
        script = (page.parent / str(div["data-src"])).read_text(encoding="utf-8")
        found[str(div["id"])] = json.loads(script.removeprefix(SPEC_HEAD).removesuffix(";\n"))
    return found


_POSITION = ("x", "y", "x2", "y2", "theta", "radius")


def _layers(
    spec: dict[str, Any], datasets: dict[str, Any] | None = None
) -> list[tuple[str, list[dict[str, Any]]]]:
    """(mark type, the data rows it can draw) of every mark of a spec: its layers (nested
    ones too), the views of a concatenation, or the spec itself where it is one mark. A row
    it can draw has a value for each field its position channels encode."""
    datasets = {**(datasets or {}), **spec.get("datasets", {})}
    found = []
    for key in ("layer", "hconcat", "vconcat", "concat"):
        for part in spec.get(key, []):
            inherited = {k: spec[k] for k in ("data", "encoding") if k in spec and k not in part}
            found += _layers({**inherited, **part}, datasets)
    if "mark" in spec and not found:
        mark = spec["mark"]
        kind = mark.get("type") if isinstance(mark, dict) else mark
        data = spec.get("data") or {}
        rows = data.get("values") or datasets.get(data.get("name"), [])
        encoding = spec.get("encoding", {})
        fields = [e["field"] for c, e in encoding.items()
                  if c in _POSITION and isinstance(e, dict) and "field" in e]  # fmt: skip
        drawn = [r for r in rows if all(r.get(f) is not None for f in fields)]
        for step in spec.get("transform", []):  # a filter on one field: {"filter": "datum.f"}
            if isinstance(step.get("filter"), str) and step["filter"].startswith("datum."):
                drawn = [r for r in drawn if r.get(step["filter"].removeprefix("datum."))]
        found.append((str(kind), drawn))
    return found


def test_the_landing_roofline_draws_each_configurations_headline_point_under_its_own_roof(
    repo_site: Path,
) -> None:
    """Issue 66: the landing plotted modelled points (not the headline points its text
    describes), pooled configurations twice (135 steps for 116 configurations), and no bf16
    roof for the H100 under a 142 TFLOP/s bf16 point."""
    spec = _specs(repo_site, repo_site / "index.html")["every-step-roofline"]
    layers = _layers(spec)
    (points,) = [rows for kind, rows in layers if kind == "point"]
    roofs = {(r["device"], r["precision"]) for kind, rows in layers if kind == "line" for r in rows}
    pages = _run_pages(repo_site)
    ok = load_runs(REPO / "measurements").filter(pl.col("status") == "ok")
    bound = {w for w, ids in ok.group_by("workload").agg("run_id").iter_rows()
             if pages[ids[0]]["share"]}  # fmt: skip
    assert len(points) == len(bound)  # one per configuration with a stated bound
    assert len({(p["device"], p["label"]) for p in points}) == len(points)
    assert all((p["device"], p["precision"]) in roofs for p in points)
    assert ("NVIDIA H100 SXM", "BF16 tensor") in roofs
    shown = {p["run"]: p for p in points}
    for run_id, point in shown.items():  # the headline point: its kind is the run page's
        kind = point["kind"].split(" point")[0]
        assert pages[run_id][kind] == pages[run_id]["share"], (run_id, point, pages[run_id])
    landing = _soup(repo_site / "index.html")
    assert f"{len(points)} measured configurations on" in _text(landing)
    link = landing.find("a", string=re.compile(r"^https://"))
    assert link is not None and "&lt;https" not in str(landing)  # the URL is a link
    # the flagship sentences rest on no step with an above-ceiling finding, or say so
    for item in landing.find_all("li"):
        text = _text(item)
        if "closest to its roof" not in text:
            continue
        link = item.find("a", href=re.compile(r"runs/"))
        assert link is not None, text
        run_id = str(link["href"]).rstrip("/").rsplit("/", 1)[-1]
        page = _text(_soup(repo_site / "measurements" / "runs" / run_id / "index.html"))
        assert "above-ceiling" not in page, (run_id, text)


_NOT_LINKED = ("h1", "h2", "h3", "h4", "h5", "h6", "code", "pre", "script", "summary")


def _first_uses(article: Tag) -> dict[str, Tag]:
    """Each glossary term -> the element holding its first use in the page's text (the
    headings, code and admonition titles left out, as the linker leaves them)."""
    found: dict[str, Tag] = {}
    for node in article.find_all(string=True):
        parent = node.parent
        if parent is None or any(p.name in _NOT_LINKED for p in [parent, *parent.parents]):
            continue
        if any("admonition-title" in (p.get("class") or []) for p in [parent, *parent.parents]):
            continue
        if "@misc{" in node or "@software{" in node:  # BibTeX, in a <pre> html.parser loses
            continue
        for term in TERMS:
            if term.anchor not in found and re.search(term.pattern, str(node), re.IGNORECASE):
                found[term.anchor] = parent
    return found


def test_every_terms_first_use_on_a_generated_page_links_the_glossary(repo_site: Path) -> None:
    """Issue 66: a student met "ridge", "latency/overhead-bound", "trace point" and "kind"
    with no explanation at hand."""
    pages = [repo_site / "index.html", repo_site / "hardware" / "index.html"]
    pages += [p for p in sorted((repo_site / "measurements").rglob("index.html"))
              if "traces" not in p.parts or p.parent.name == "traces"]  # fmt: skip
    checked = 0
    for path in pages:
        if path.parent.name == "glossary":
            continue
        article = _soup(path).find("article")
        assert isinstance(article, Tag), path
        for anchor, element in _first_uses(article).items():
            link = element if element.name == "a" else element.find_parent("a")
            assert link is not None and str(link.get("href", "")).endswith(f"glossary/#{anchor}"), (
                path,
                anchor,
                _text(element)[:200],
            )
            checked += 1
    assert checked > 1000
    glossary = _text(_soup(repo_site / "measurements" / "glossary" / "index.html"))
    assert all(term.definition.split(".")[0][:40] in glossary for term in TERMS)


def test_step_parts_keep_each_compile_mode_apart(repo_site: Path) -> None:
    """Issue 66: the CPU chart stacked eager and torch.compile runs into one bar under one
    label (~0.43 s where the step is 215 ms), and the table repeated rows untagged."""
    page = repo_site / "measurements" / "step-parts" / "index.html"
    rows = [
        tuple(_text(c) for c in row.find_all("td"))[:2]
        for row in _soup(page).find_all("tr")
        if len(row.find_all("td")) > 5
    ]
    assert len(rows) == len(set(rows)) > 20, [r for r in rows if rows.count(r) > 1]
    assert any("torch.compile" in label for _, label in rows)
    for chart_id, spec in _specs(repo_site, page).items():
        bars = [
            (r["label"], r["part"]) for kind, data in _layers(spec) if kind == "bar" for r in data
        ]
        assert bars and len(bars) == len(set(bars)), chart_id  # one bar segment each


def test_no_chart_layer_is_empty(repo_site: Path) -> None:
    """Issue 66: Vega warned "Infinite extent" on E, F and J-gpu: error bars of results
    without an interval, rings of series that never saturate. Every mark of every chart
    has a row it can draw."""
    pages = [repo_site / "index.html", repo_site / "hardware" / "index.html"]
    pages += [p for p in sorted((repo_site / "measurements").rglob("index.html"))
              if "traces" not in p.parts or p.parent.name == "traces"]  # fmt: skip
    charts = 0
    for path in pages:
        for chart_id, spec in _specs(repo_site, path).items():
            empty = [kind for kind, rows in _layers(spec) if not rows]
            assert empty == [], (path, chart_id, empty)
            charts += 1
    assert charts > 50


def test_a_profiled_gpu_run_is_never_said_to_have_no_gpu_profile(repo_site: Path) -> None:
    """Issue 66: device-choice/B said "n/a (no GPU profile)" for a run profiled on the GPU
    (the traces were looked up by their label, not their run id)."""
    traced = {p.parent.name.removeprefix("run-")
              for p in (repo_site / "measurements" / "traces").glob("run-*/index.html")}  # fmt: skip
    counted = 0
    for path in sorted((repo_site / "measurements" / "device-choice").glob("*/index.html")):
        for row in _soup(path).find_all("tr"):
            cells = [_text(c) for c in row.find_all("td")]
            if not cells or "cuda" not in cells[0]:
                continue
            run_id = cells[0].split(" ")[0]
            if run_id in traced:
                assert not any("no GPU profile" in c for c in cells), (path, cells)
                counted += any("(measured: the profiled step of GPU run" in c for c in cells)
    assert counted >= 10


def test_the_404_page_finds_its_assets_where_the_site_is_served(repo_site: Path) -> None:
    """Issue 66: 404.html named its stylesheets under the published site's path
    (/roofline-atlas/assets/...), so served at the root it had none."""
    html = (repo_site / "404.html").read_text(encoding="utf-8")
    assets = re.findall(r'(?:href|src)="(/[^"#?]*\.(?:css|js|png|svg))"', html)
    assert len(assets) >= 3
    missing = [a for a in assets if not (repo_site / a.lstrip("/")).is_file()]
    assert missing == []


_VERDICT_ROOF = re.compile(r"against the (.+) (\S+) (measured|datasheet) roof")


def _drawn_roofs(spec: dict[str, Any]) -> list[tuple[str, str, float, float]]:
    """(device, precision label, peak, bandwidth) of each roof a chart draws, read off its
    polylines (`scales.roof_polyline`: the memory slope up to the ridge, then flat)."""
    lines: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for kind, rows in _layers(spec):
        for row in rows if kind == "line" else []:
            if {"device", "precision", "flops_per_s", "ai", "order"} <= row.keys():
                key = (str(row["device"]), str(row["precision"]), str(row.get("ceiling")))
                lines.setdefault(key, []).append(row)
    drawn = []
    for (device, precision, _), rows in lines.items():
        peak = max(float(r["flops_per_s"]) for r in rows)
        low = min(rows, key=lambda r: float(r["ai"]))
        drawn.append((device, precision, peak, float(low["flops_per_s"]) / float(low["ai"])))
    return drawn


def test_every_roofline_chart_draws_the_roof_its_page_names(repo_site: Path) -> None:
    """Issue 64: a run's trace page drew the datasheet roof while its verdict named the
    measured one, and a run's kernel page did the same. On every page with a verdict and a
    roofline chart, a chart draws the very roof the verdict names: its device and precision,
    and the peak and bandwidth `roofs.roof_for` gives that roof's source."""
    from generator.analysis.roofs import roof_for
    from generator.catalog import load_catalog
    from generator.charts.roofs import short_label
    from generator.records.ceilings import load_ceilings
    from generator.records.peaks import PEAK_LABELS

    ceilings = load_ceilings(REPO / "measurements")
    checked: dict[str, int] = {}
    for page in sorted(repo_site.rglob("*.html")):
        verdict = _soup(page).find("div", class_="ra-verdict")
        named = _VERDICT_ROOF.search(_text(verdict)) if isinstance(verdict, Tag) else None
        if named is None:
            continue
        device, precision, source = named.groups()
        drawn = [roof for spec in _specs(repo_site, page).values() for roof in _drawn_roofs(spec)]
        if not drawn:
            continue  # no roofline chart on this page
        roof = roof_for(device, precision, source, ceilings, load_catalog())
        assert roof is not None, (page, named.group(0))
        label = PEAK_LABELS[roof.precision]
        assert any(
            d in (roof.device, short_label(roof.device))
            and p == label
            and math.isclose(peak, roof.peak_flops_per_s, rel_tol=1e-9)
            and math.isclose(bandwidth, roof.bandwidth_bytes_per_s, rel_tol=1e-6)
            for d, p, peak, bandwidth in drawn
        ), (page.relative_to(repo_site), named.group(0), roof, drawn)
        kind = page.relative_to(repo_site).parts[0]
        checked[kind] = checked.get(kind, 0) + 1
    # the trace pages and the kernel pages (imported and measured runs') were all read
    assert sum(checked.values()) >= 20, checked
