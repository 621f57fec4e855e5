"""Atomic writes: a temporary file in the target's folder, then one rename, so a reader
never sees half a file and a crash leaves the old one."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def write_via(path: Path, write: Callable[[Path], object]) -> None:
    """Call `write(temporary_path)`, then move the result over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(Path(temp))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)  # mkstemp's 0600 would hide the file from other readers
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str) -> None:
    write_via(path, lambda temp: temp.write_text(text, encoding="utf-8"))


def write_bytes(path: Path, data: bytes) -> None:
    write_via(path, lambda temp: temp.write_bytes(data))


def write_json(path: Path, data: Any) -> None:
    write_text(path, json.dumps(data, indent=2, allow_nan=False) + "\n")
