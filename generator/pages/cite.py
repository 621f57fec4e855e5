"""The Cite page: CITATION.cff rendered, its BibTeX with URL, version, commit and date, and a
BibTeX entry per measured run (a stable key, the run's own commit and date)."""

from __future__ import annotations

from typing import Any

import polars as pl

from generator.formatting import slug
from generator.pages.page import Generated, Page
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import render
from generator.pages.run_text import interval, run_label

NO_URL = "no URL: add `repository-code` (or `url`) to CITATION.cff"


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
    value = data.get("repository-code") or data.get("url")
    return str(value) if value else None


def bibtex(data: dict[str, Any]) -> str:
    """The report's entry: the commit it was built from goes in the note, since a version
    number alone does not name the data."""
    year = str(data.get("date-released", ""))[:4]
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
            "version": data.get("version"),
            "year": year or None,
            "date": str(data["date-released"]) if data.get("date-released") else None,
            "url": url(data),
            "note": note or None,
        },
    )


def run_key(run_id: str) -> str:
    return f"roofline_atlas_{_key(run_id)}"


def run_bibtex(data: dict[str, Any], row: dict[str, Any]) -> str:
    """One run as a dataset entry: cite the number with the commit that measured it."""
    commit = row.get("commit") or "unknown"
    finished = str(row.get("finished_at") or "")
    return _entry(
        "misc",
        run_key(row["run_id"]),
        {
            "title": f"{data['title'].split(':')[0]}, measured run {row['run_id']}",
            "author": _authors(data),
            "version": data.get("version"),
            "year": finished[:4] or None,
            "date": finished[:10] or None,
            "url": url(data),
            "note": f"{run_label(row)} on {row['device_label']}: median step {interval(row)}; "
            f"measurements/runs/{row['run_id']}/run.json at commit {commit}",
        },
    )


def cite_page(data: dict[str, Any], runs: pl.DataFrame) -> Page:
    shown = ("title", "version", "date-released", "license", "authors", "keywords")
    fields = []
    for key in shown:
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
    fields.append(("URL", url(data) or NO_URL))
    fields.append(("built from commit", data.get("report-commit") or "not a git checkout"))
    ok = runs.filter(pl.col("status") == "ok").sort("run_id").to_dicts()
    rows = [
        [
            f"[{run_label(row)}](runs/{row['run_id']}.md)",
            f"`{run_key(row['run_id'])}`",
            f"`{(row.get('commit') or 'unknown')[:12]}`",
        ]
        for row in ok
    ]
    markdown = render(
        "cite.md.j2",
        message=data.get("message", ""),
        fields=fields,
        bibtex=bibtex(data),
        runs=rows,
        run_entries="\n\n".join(run_bibtex(data, row) for row in ok),
    )
    ids = runs.select("run_id", "commit", "finished_at").with_columns(
        pl.col("run_id").map_elements(run_key, return_dtype=pl.String).alias("bibtex_key")
    )
    return Page(f"{GENERATED_DIR}/cite.md", "Cite", markdown, tables={"run-ids": ids})


PAGE = Generated(None, lambda report: [cite_page(report.citation, report.runs)])
