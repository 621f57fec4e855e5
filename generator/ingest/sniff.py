"""Telling a file's format by its first bytes, never by its name: one read, no exception for
a file that cannot be opened (it is then no file of that kind, and its reader says why)."""

from __future__ import annotations

from pathlib import Path


def starts_with(path: Path, magic: bytes) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(magic)) == magic
    except OSError:
        return False
