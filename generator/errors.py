"""The one error type users see: what is wrong, where, and how to fix it."""

from __future__ import annotations

from pathlib import Path


class UserError(Exception):
    """A mistake in the user's input. The CLI prints it without a traceback and exits 1."""

    def __init__(
        self,
        what: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        key: str | None = None,
        fix: str | None = None,
    ) -> None:
        self.what = what
        self.file = str(file) if file is not None else None
        self.line = line
        self.key = key
        self.fix = fix
        super().__init__(self.message)

    @property
    def location(self) -> str:
        parts = []
        if self.file is not None:
            parts.append(self.file)
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.key is not None:
            parts.append(f"key '{self.key}'")
        return ", ".join(parts)

    @property
    def message(self) -> str:
        where = self.location
        text = f"{where}: {self.what}" if where else self.what
        if self.fix:
            text += f"\n  fix: {self.fix}"
        return text
