"""CITATION.cff beside measurements/: how the report asks to be cited."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml

from generator.errors import UserError

CITATION_FILE = "CITATION.cff"
NO_CITATION: dict[str, Any] = {
    "title": "Roofline Atlas",
    "message": "No CITATION.cff beside measurements/.",
}


def load_citation(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise UserError(f"not valid YAML: {error}", file=path, fix="fix CITATION.cff") from None
    if not isinstance(data, dict) or "title" not in data:
        raise UserError("no title", file=path, key="title", fix="CITATION.cff needs a title")
    return data


def read_citation(repository: Path) -> dict[str, Any]:
    """The repository's CITATION.cff, or a placeholder when it has none."""
    path = repository / CITATION_FILE
    return load_citation(path) if path.is_file() else NO_CITATION


def report_commit(repository: Path) -> str | None:
    """The commit the report is built from, "+changes" when the working tree differs from it;
    None when `repository` is not a git checkout's top level (a copied folder, a test's
    measurement set inside another repository), so a citation never names a wrong commit."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repository), *args],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout.strip()

    try:
        if Path(git("rev-parse", "--show-toplevel")).resolve() != repository.resolve():
            return None
        commit = git("rev-parse", "HEAD")
        changed = bool(git("status", "--porcelain"))
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("+changes" if changed else "")
