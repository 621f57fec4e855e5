"""The seed reports as a reader cites them: measurements/literature/references.toml.

The Replication page names each report by author, title, institution or course, date and the
public repository of its data, never by a file path that only this project's authors have.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from generator.errors import UserError
from generator.records.versioned import load_toml, upgrade, validated

SCHEMA_VERSION = 1
REFERENCES_FILE = "references.toml"


class Reference(BaseModel):
    """One report, as its title page and references state it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: str = Field(pattern=r"^\d{3}$")
    authors: str = Field(min_length=1)
    title: str = Field(min_length=1)
    kind: str = Field(min_length=1, description="e.g. 'Course project report'")
    institution: str = ""
    date: str = Field(min_length=1, description="as precise as the report states it")
    url: str = Field(default="", pattern=r"^(https://\S+)?$")
    note: str = ""

    @property
    def short_title(self) -> str:
        """'Kim: Performance Profiling of …' for headings; subtitles after ':' dropped."""
        surname = self.authors.split(" and ")[0].split()[-1]
        rest = " and others" if " and " in self.authors else ""
        return f"{surname}{rest}: {self.title.split(': ')[0]}"

    @property
    def bibliographic(self) -> str:
        """Authors. *Title*. Kind, institution, date. (Markdown; the URL is linked apart.)"""
        where = ", ".join(p for p in (self.kind, self.institution, self.date) if p)
        return f"{self.authors}. *{self.title}*. {where}."


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int
    reference: tuple[Reference, ...]


def read_references(measurements: Path) -> dict[str, Reference]:
    """measurements/literature/references.toml by seed id; {} when the file is absent."""
    path = measurements / "literature" / REFERENCES_FILE
    if not path.is_file():
        return {}
    fix = (
        "each [[reference]] takes seed, authors, title, kind, date and optionally "
        "institution, url (https://…) and note"
    )
    parsed = validated(_File, upgrade(load_toml(path), path, SCHEMA_VERSION), path, fix)
    seen: dict[str, Reference] = {}
    for index, reference in enumerate(parsed.reference):
        if reference.seed in seen:
            raise UserError(
                f"seed {reference.seed} has two references",
                file=path,
                key=f"reference.{index}.seed",
                fix="keep one [[reference]] per seed report",
            )
        seen[reference.seed] = reference
    return seen
