"""The one policy for every versioned file of measurements/ (after asv's `load_json` with
`update_to_N`): an older version is migrated step by step to the current one, a newer one
asks the reader to update Roofline Atlas, anything else is an error naming the key."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from generator.errors import UserError

KEY = "schema_version"
UPDATE = "update Roofline Atlas (git pull) to read files written by a newer version"

# A versioned file's keys as parsed, before its migrations and its model have checked them:
# free-form by nature (any version's keys, damaged or hand-edited values).
RawRecord = dict[str, Any]
Migration = Callable[[RawRecord], RawRecord]
Record = TypeVar("Record", bound=BaseModel)


def load_json(path: Path, fix: str) -> Any:
    """A JSON file, or a UserError naming its file and line."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise UserError(
            f"not valid JSON: {error.msg}", file=path, line=error.lineno, fix=fix
        ) from None


def load_toml(path: Path) -> RawRecord:
    """A TOML file, or a UserError naming it and what is wrong."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise UserError(f"invalid TOML: {err}", file=path) from None


def validated(record: type[Record], data: RawRecord, path: Path, fix: str) -> Record:
    """`data` as a `record`, or a UserError naming the file, the first bad key and the fix."""
    try:
        return record.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        raise UserError(
            first["msg"]
            .replace("Extra inputs are not permitted", "unknown key")
            .removeprefix("Value error, "),
            file=path,
            key=".".join(str(p) for p in first["loc"]) or None,
            fix=fix,
        ) from None


def upgrade(
    data: Any,
    path: Path,
    current: int,
    migrations: Mapping[int, Migration] | None = None,
    unversioned: int | None = None,
) -> RawRecord:
    """`data` (a parsed file) at version `current`.

    migrations[n] turns version n into version n + 1. `unversioned` is the version of files
    written before the format recorded one (None: the key is required)."""
    if not isinstance(data, dict):
        raise UserError(
            "expected a table of keys at the top level",
            file=path,
            fix="the file was damaged or is not this kind of file: restore or regenerate it",
        )
    version = data.get(KEY, unversioned)
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise UserError(
            f"{KEY} {version!r} is not a version number",
            file=path,
            key=KEY,
            fix=f"write {KEY} = {current}",
        )
    if version > current:
        raise UserError(
            f"{KEY} {version} is newer than this tool reads ({current})", file=path, key=KEY,
            fix=UPDATE,
        )  # fmt: skip
    steps = migrations or {}
    while version < current:
        if version not in steps:
            raise UserError(
                f"{KEY} {version} is older than this tool reads ({current}) and no migration "
                "exists for it",
                file=path,
                key=KEY,
                fix="regenerate the file with this version of Roofline Atlas",
            )
        data = {**steps[version](dict(data)), KEY: version + 1}
        version += 1
    return {**data, KEY: current}
