"""The Cite page: CITATION.cff rendered, its BibTeX with URL, version, commit and date, and a
BibTeX entry per measured run (a stable key, the run's own commit and date).

Above run_lists.SUMMARY_FROM runs the page no longer lists every run (at 1,000 runs it was
0.86 MB of Markdown, rendered again whenever a run was added): it links each group's run
lists, whose run pages carry their BibTeX, and offers every entry as `runs.bib`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from generator.analysis.results import Result
from generator.config import ExperimentsFile
from generator.formatting import slug
from generator.pages import run_lists
from generator.pages.page import Generated, Page
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import render
from generator.pages.run_text import citable, run_label

NO_URL = "no URL: add `repository-code` (or `url`) to CITATION.cff"
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


def run_key(run_id: str) -> str:
    return f"roofline_atlas_{_key(run_id)}"


def run_bibtex(data: dict[str, Any], row: dict[str, Any], result: Result | None) -> str:
    """One run as a dataset entry: cite its configuration's one result, with the kind of its
    interval, and the commit that measured it."""
    commit = row.get("commit") or "unknown"
    finished = str(row.get("finished_at") or "")
    page = (
        f"{data['report-url']}{GENERATED_DIR}/runs/{row['run_id']}/"
        if data.get("report-url")
        else url(data)
    )
    report = (
        f"; report {data['report-version']} built from commit {data.get('report-commit') or 'unknown'}"
        if data.get("report-version")
        else ""
    )
    return _entry(
        "misc",
        run_key(row["run_id"]),
        {
            "title": f"{data['title'].split(':')[0]}, measured run {row['run_id']}",
            "author": _authors(data),
            "version": _version(data),
            "year": finished[:4] or None,
            "date": finished[:10] or None,
            "url": page,
            "note": f"{run_label(row)} on {row['device_label']}: median step "
            f"{citable(result) if result else 'n/a'}; "
            f"measurements/runs/{row['run_id']}/run.json at commit {commit}{report}",
        },
    )


def cite_page(
    data: dict[str, Any],
    runs: pl.DataFrame,
    experiments: ExperimentsFile | None = None,
    results: Mapping[str, Result] | None = None,
) -> Page:
    path = f"{GENERATED_DIR}/cite.md"
    ok = runs.filter(pl.col("status") == "ok").sort("run_id").to_dicts()
    found = results or {}
    entries = "\n\n".join(run_bibtex(data, row, found.get(row["workload"])) for row in ok)
    summary = run_lists.summarize(runs.height)
    rows = (
        []
        if summary
        else [
            [
                f"[{run_label(row)}](runs/{row['run_id']}.md)",
                f"`{run_key(row['run_id'])}`",
                f"`{(row.get('commit') or 'unknown')[:12]}`",
            ]
            for row in ok
        ]
    )
    markdown = render(
        "cite.md.j2",
        message=data.get("message", ""),
        fields=_fields(data),
        bibtex=bibtex(data),
        runs=rows,
        run_entries="" if summary else entries,
        measured=f"{len(ok):,}",
        lists=_group_lists(path, runs, experiments) if summary and ok else [],
    )
    ids = runs.select("run_id", "commit", "finished_at").with_columns(
        pl.col("run_id").map_elements(run_key, return_dtype=pl.String).alias("bibtex_key")
    )
    texts = {"runs.bib": entries + "\n"} if summary and ok else {}
    return Page(path, "Cite", markdown, tables={"run-ids": ids}, texts=texts)


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


PAGE = Generated(
    None,
    lambda report: [cite_page(report.citation, report.runs, report.experiments, report.results)],
)
