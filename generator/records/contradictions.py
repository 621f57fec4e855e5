"""Where a seed report's claim contradicts this report: measurements/literature/contradictions.toml.

Each entry names the claim, the seed, our number and the page that shows it, and reconciles the
two in one sentence with one of a few causes; the page that shows our number prints the
sentence (pages/contradictions.py), so a reader meets the conflict where it arises.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from generator.errors import UserError
from generator.records.versioned import load_toml, upgrade, validated

SCHEMA_VERSION = 1
CONTRADICTIONS_FILE = "contradictions.toml"
CAUSE_WORDS = {
    "different_device": "a different device",
    "intensity_definition": "a different intensity definition",
    "seed_error": "an error in the seed",
    "host_bound": "host-bound",
    "open_question": "an open question",
}


class Contradiction(BaseModel):
    """One seed claim against one number of ours, reconciled."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9-]+$")
    seed: str = Field(pattern=r"^\d{3}$")
    where: str = Field(min_length=1, description="section or table in the seed")
    claim: str = Field(min_length=1, description="the seed's claim, quoted or close to it")
    ours: str = Field(min_length=1, description="our number, as the page shows it")
    page: str = Field(
        pattern=r"^measurements/[A-Za-z0-9/_.-]+\.md$",
        description="the generated page (docs-relative) that shows our number",
    )
    cause: Literal[
        "different_device", "intensity_definition", "seed_error", "host_bound", "open_question"
    ]
    sentence: str = Field(min_length=1, description="the reconciliation, one sentence")
    rows: tuple[str, ...] = ()  # seeds.csv rows that carry the seed's numbers

    @property
    def cause_words(self) -> str:
        return CAUSE_WORDS[self.cause]


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int
    contradiction: tuple[Contradiction, ...]


def read_contradictions(measurements: Path, row_ids: set[str]) -> list[Contradiction]:
    """The file's entries, in file order; [] when it is absent. Every `rows` id must be a
    seeds.csv row, and ids unique."""
    path = measurements / "literature" / CONTRADICTIONS_FILE
    if not path.is_file():
        return []
    fix = (
        "each [[contradiction]] takes id, seed, where, claim, ours, page "
        "(measurements/<page>.md), cause (" + ", ".join(CAUSE_WORDS) + "), sentence and "
        "optionally rows (ids in seeds.csv)"
    )
    parsed = validated(_File, upgrade(load_toml(path), path, SCHEMA_VERSION), path, fix)
    seen: set[str] = set()
    for index, item in enumerate(parsed.contradiction):
        if item.id in seen:
            raise UserError(
                f"contradiction {item.id!r} appears twice",
                file=path,
                key=f"contradiction.{index}.id",
                fix="give each [[contradiction]] its own id",
            )
        seen.add(item.id)
        unknown = [row for row in item.rows if row not in row_ids]
        if unknown:
            raise UserError(
                f"contradiction {item.id!r} names rows not in seeds.csv: {', '.join(unknown)}",
                file=path,
                key=f"contradiction.{index}.rows",
                fix="name ids of measurements/literature/seeds.csv",
            )
    return list(parsed.contradiction)
