"""The Cite page: CITATION.cff rendered, its BibTeX, and a stable id per measured run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl
import yaml

from generator.errors import UserError
from generator.pages import _ENV
from generator.units_format import seconds


def load_citation(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise UserError(f"not valid YAML: {error}", file=path, fix="fix CITATION.cff") from None
    if not isinstance(data, dict) or "title" not in data:
        raise UserError("no title", file=path, key="title", fix="CITATION.cff needs a title")
    return data


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


def cite_page(citation_path: Path, runs: pl.DataFrame, commits: dict[str, str | None]) -> str:
    data: dict[str, Any] = (
        load_citation(citation_path)
        if citation_path.is_file()
        else {"title": "Roofline Atlas", "message": "No CITATION.cff beside measurements/."}
    )
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
    return _ENV.get_template("cite.md.j2").render(
        message=data.get("message", ""), fields=fields, bibtex=bibtex(data), runs=rows
    )
