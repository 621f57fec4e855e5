"""The Cite page: CITATION.cff rendered, its BibTeX with URL, version, commit and date, and a
BibTeX entry per configuration (its one result: one key, whatever the number of runs it
pools), which states the median every page shows, the headline bound with its share of the
roof, every pooled run's run.json at the commit that measured it, and the result record the
pages were built from (the `results` download, one row per configuration). Every run page of
a configuration shows the same entry.

Above run_lists.SUMMARY_FROM runs the page no longer lists every configuration (at 1,000
runs it was 0.86 MB of Markdown, rendered again whenever a run was added): it links each
group's run lists, whose run pages carry their BibTeX, and offers every entry as
`results.bib`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from generator.analysis.results import Result
from generator.analysis.step_verdict import StepVerdict
from generator.config import ExperimentsFile
from generator.formatting import number, seconds, slug
from generator.pages import run_lists
from generator.pages.page import Generated, Page, Report
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import render
from generator.pages.run_text import citable, short_device

NO_URL = "no URL: add `repository-code` (or `url`) to CITATION.cff"
RESULTS = "results"  # the Cite page's download of every result: the record a citation names
UNVERSIONED = "unversioned local build (`nox -s publish -- VERSION` publishes a citable one)"


def _key(text: str) -> str:
    return slug(text).replace("-", "_")  # BibTeX keys: no hyphens


def _authors(data: dict[str, Any]) -> str:
    return " and ".join(
        a.get("name") or f"{a.get('family-names', '')}, {a.get('given-names', '')}".strip(", ")
        for a in data.get("authors", [])
    )


def _entry(kind: str, key: str, fields: dict[str, str | None]) -> str:
    lines = [f"@{kind}{{{key},"]
    lines += [f"  {name} = {{{value}}}," for name, value in fields.items() if value]
    return "\n".join([*lines, "}"])


def url(data: dict[str, Any]) -> str | None:
    """The published version's own address when the build is one (its numbers never
    change), else the repository's."""
    value = data.get("report-url") or data.get("repository-code") or data.get("url")
    return str(value) if value else None


def _version(data: dict[str, Any]) -> str | None:
    value = data.get("report-version") or data.get("version")
    return str(value) if value else None


def _date(data: dict[str, Any]) -> str:
    """A published version's date is the day it was built; else CITATION.cff's release."""
    if data.get("report-version") and data.get("report-date"):
        return str(data["report-date"])
    return str(data.get("date-released") or "")


def bibtex(data: dict[str, Any]) -> str:
    """The report's entry: the commit it was built from goes in the note, since a version
    number alone does not name the data."""
    date = _date(data)
    year = date[:4]
    commit = data.get("report-commit")
    note = "; ".join(
        part
        for part in (
            commit and f"commit {commit}",
            data.get("license") and f"License: {data['license']}",
        )
        if part
    )
    return _entry(
        "software",
        _key(data["title"].split(":")[0]) + (f"_{year}" if year else ""),
        {
            "title": data["title"],
            "author": _authors(data),
            "version": _version(data),
            "year": year or None,
            "date": date or None,
            "url": url(data),
            "note": note or None,
        },
    )


def result_label(result: Result) -> str:
    """'resnet18 cifar10 b128 train_step fp32 H100 SXM': the configuration with its dataset,
    which tells a CIFAR run from an ImageNet run of the same model and batch."""
    mode = f" {result.compile}" if result.compile != "eager" else ""
    return (
        f"{result.model} {result.dataset} b{result.batch} {result.phase} {result.precision}"
        f"{mode} {short_device(result.device_label)}"
    )


def result_key(result: Result) -> str:
    """The configuration's one BibTeX key: its label and the first 8 hex digits of its
    workload (two configurations that differ only in what no label shows stay apart)."""
    return f"roofline_atlas_{_key(result_label(result))}_{result.workload[:8]}"


def bound_note(verdict: StepVerdict | None) -> str:
    """The headline bound as a citation states it: its class, the share of its roof with
    that share's interval and kind, the roof, and the kind of point it rests on."""
    if verdict is None:
        return "no bound (no FLOP count or profile for this step)"
    share = verdict.of_roof.percent_text()
    where = f"of the {verdict.roof.label} roof ({verdict.point} point)"
    if verdict.host_bound and verdict.launch is not None:
        return (
            f"{verdict.bound_class} (host/GPU {number(verdict.launch.ratio, 3)}); on the "
            f"roofline, {verdict.side} side at {share} {where}"
        )
    if verdict.above_roof:
        return f"{verdict.side} side at {share} {where}: above it, so no ceiling for this step"
    return f"{verdict.bound_class} at {share} {where}"


def _pooled(result: Result) -> str:
    """Every run the result pools: its run.json at the commit that measured it, and its own
    median."""
    return ", ".join(
        f"{run.run_id} (measurements/runs/{run.run_id}/run.json at commit "
        f"{run.commit or 'unknown'}, its own median {seconds(run.step.value)})"
        for run in result.runs
    )


def result_bibtex(data: dict[str, Any], result: Result, verdict: StepVerdict | None) -> str:
    """One configuration as a dataset entry: the median every page shows for it (with its
    interval's kind), its headline bound and share of the roof, every run it pools at its
    own commit, and the result record the pages were built from (a row of `RESULTS`)."""
    finished = max(run.finished_at for run in result.runs)
    first = result.runs[0].run_id
    page = (
        f"{data['report-url']}{GENERATED_DIR}/runs/{first}/"
        if data.get("report-url")
        else url(data)
    )
    report = (
        f"; report {data['report-version']} built from commit {data.get('report-commit') or 'unknown'}"
        if data.get("report-version")
        else ""
    )
    runs = f"{len(result.runs)} run{'s' if len(result.runs) > 1 else ''}"
    return _entry(
        "misc",
        result_key(result),
        {
            "title": f"{data['title'].split(':')[0]}, {result_label(result)}",
            "author": _authors(data),
            "version": _version(data),
            "year": finished[:4] or None,
            "date": finished[:10] or None,
            "url": page,
            "note": f"{result_label(result)} on {result.device_label}: median step "
            f"{citable(result)}; headline bound: {bound_note(verdict)}; pools {runs}: "
            f"{_pooled(result)}; result record: row {result_key(result)} of "
            f"{GENERATED_DIR}/data/cite/{RESULTS}.csv{report}",
        },
    )


def results_frame(
    results: Mapping[str, Result], verdicts: Mapping[str, StepVerdict | None]
) -> pl.DataFrame:
    """The result record every citation names: one row per configuration, as its pages
    state it (`verdicts`: workload -> its headline verdict)."""
    rows = []
    for workload, result in sorted(results.items(), key=lambda item: result_key(item[1])):
        verdict = verdicts.get(workload)
        rows.append({
            "bibtex_key": result_key(result), "configuration": result_label(result),
            "device": result.device_label, "workload": workload,
            "median_s": result.step.value, "ci_low_s": result.step.low,
            "ci_high_s": result.step.high, "interval": result.step.short_kind(),
            "runs": ";".join(result.run_ids),
            "commits": ";".join(run.commit or "unknown" for run in result.runs),
            "bound": verdict.bound_class if verdict else None,
            "of_roof": verdict.of_roof.value if verdict else None,
            "point": verdict.point if verdict else None,
        })  # fmt: skip
    schema = {
        "bibtex_key": pl.String, "configuration": pl.String, "device": pl.String,
        "workload": pl.String, "median_s": pl.Float64, "ci_low_s": pl.Float64,
        "ci_high_s": pl.Float64, "interval": pl.String, "runs": pl.String,
        "commits": pl.String, "bound": pl.String, "of_roof": pl.Float64, "point": pl.String,
    }  # fmt: skip
    return pl.DataFrame(rows, schema=schema)


def cite_page(
    data: dict[str, Any],
    runs: pl.DataFrame,
    experiments: ExperimentsFile | None = None,
    results: Mapping[str, Result] | None = None,
    verdicts: Mapping[str, StepVerdict | None] | None = None,
) -> Page:
    """One entry per configuration (`results`), whatever the number of runs it pools;
    `verdicts`: workload -> its headline verdict."""
    path = f"{GENERATED_DIR}/cite.md"
    found = dict(sorted((results or {}).items(), key=lambda item: result_key(item[1])))
    bound = verdicts or {}
    entries = "\n\n".join(result_bibtex(data, r, bound.get(w)) for w, r in found.items())
    summary = run_lists.summarize(runs.height)
    rows = (
        []
        if summary
        else [
            [
                f"[{result_label(result)}](runs/{result.runs[0].run_id}.md)",
                f"`{result_key(result)}`",
                ", ".join(
                    f"[{run.group}](runs/{run.run_id}.md) `{(run.commit or 'unknown')[:12]}`"
                    for run in result.runs
                ),
            ]
            for result in found.values()
        ]
    )
    ok = runs.filter(pl.col("status") == "ok")
    markdown = render(
        "cite.md.j2",
        message=data.get("message", ""),
        fields=_fields(data),
        bibtex=bibtex(data),
        runs=rows,
        run_entries="" if summary else entries,
        measured=f"{ok.height:,}",
        configurations=f"{len(found):,}",
        results_name=RESULTS,
        lists=_group_lists(path, runs, experiments) if summary and ok.height else [],
    )
    keys = {run_id: result_key(r) for r in found.values() for run_id in r.run_ids}
    ids = runs.select("run_id", "commit", "finished_at").with_columns(
        pl.col("run_id").replace_strict(keys, default=None, return_dtype=pl.String)
        .alias("bibtex_key")
    )  # fmt: skip
    texts = {f"{RESULTS}.bib": entries + "\n"} if summary and found else {}
    tables = {"run-ids": ids, RESULTS: results_frame(found, bound)}
    return Page(path, "Cite", markdown, tables=tables, texts=texts)


def _fields(data: dict[str, Any]) -> list[tuple[str, str]]:
    """CITATION.cff's fields as the page's table shows them."""
    fields = []
    for key in ("title", "license", "authors", "keywords"):
        value: Any = data.get(key)
        if value is None:
            continue
        if key == "authors":
            value = "; ".join(
                a.get("name") or f"{a.get('given-names', '')} {a.get('family-names', '')}".strip()
                for a in value
            )
        elif isinstance(value, list):
            value = ", ".join(map(str, value))
        fields.append((key, str(value)))
    fields.insert(1, ("report version", str(data.get("report-version") or UNVERSIONED)))
    fields.insert(2, ("date", _date(data) or "not stated"))
    fields.append(("URL", url(data) or NO_URL))
    fields.append(("built from commit", data.get("report-commit") or "not a git checkout"))
    if data.get("version"):
        fields.append(("software version", str(data["version"])))
    return fields


def _group_lists(
    path: str, runs: pl.DataFrame, experiments: ExperimentsFile | None
) -> list[tuple[str, str, str]]:
    """Each group's first run list page (linked from `path`) and its number of runs, in
    the experiments file's order, as the runs page lists them."""
    counts = dict(runs.filter(pl.col("group").is_not_null()).group_by("group").len().rows())
    known = [g.id for g in experiments.groups] if experiments else []
    order = [g for g in known if g in counts] + sorted(set(counts) - set(known))
    return [
        (group, run_lists.link(path, run_lists.list_path(group, 1)), f"{counts[group]:,}")
        for group in order
    ]


def _render(report: Report) -> list[Page]:
    headlines = {w: points.headline for w, points in report.points.items()}
    return [cite_page(report.citation, report.runs, report.experiments, report.results, headlines)]


PAGE = Generated(None, _render)
