"""The Cite page: CITATION.cff rendered, its BibTeX, and a stable id per measured run."""

from __future__ import annotations

import re
from typing import Any

import polars as pl

from generator.formatting import seconds
from generator.pages.page import Generated, Page
from generator.pages.paths import GENERATED_DIR
from generator.pages.render import render


def bibtex(data: dict[str, Any]) -> str:
    authors = " and ".join(
        a.get("name") or f"{a.get('family-names', '')}, {a.get('given-names', '')}".strip(", ")
        for a in data.get("authors", [])
    )
    year = str(data.get("date-released", ""))[:4]
    key = re.sub(r"[^a-z0-9]+", "_", data["title"].split(":")[0].lower()).strip("_") + (
        f"_{year}" if year else ""
    )
    fields = {
        "title": data["title"],
        "author": authors,
        "version": data.get("version"),
        "year": year or None,
        "url": data.get("repository-code") or data.get("url"),
        "note": data.get("license") and f"License: {data['license']}",
    }
    lines = [f"@software{{{key},"]
    lines += [f"  {name} = {{{value}}}," for name, value in fields.items() if value]
    lines.append("}")
    return "\n".join(lines)


def cite_page(data: dict[str, Any], runs: pl.DataFrame) -> Page:
    commits = dict(zip(runs["run_id"].to_list(), runs["commit"].to_list(), strict=True))
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
    rows = [
        [
            row["run_id"],
            seconds(row["median_s"]),
            (commits.get(row["run_id"]) or "unknown")[:12],
            f"Roofline Atlas, run {row['run_id']} (commit {(commits.get(row['run_id']) or 'unknown')[:12]})",
        ]
        for row in runs.filter(pl.col("status") == "ok").sort("run_id").to_dicts()
    ]
    markdown = render(
        "cite.md.j2", message=data.get("message", ""), fields=fields, bibtex=bibtex(data), runs=rows
    )
    ids = runs.select("run_id", "commit", "finished_at")
    return Page(f"{GENERATED_DIR}/cite.md", "Cite", markdown, tables={"run-ids": ids})


PAGE = Generated(None, lambda report: [cite_page(report.citation, report.runs)])
