"""The `device` line of a text summary: the catalog device, how it was matched, and the
name the file recorded, so that a reader can check the match."""

from __future__ import annotations

from typing import Any


def device_text(summary: dict[str, Any]) -> str:
    text = summary["device_name"] or "unknown"
    if summary["device_match"]:
        text += f" ({summary['device_match']})"
    if summary["device_note"]:
        text += f": {summary['device_note']}"
    recorded = summary["device"]["recorded"]
    if recorded and recorded != summary["device_name"] and repr(recorded) not in text:
        text += f"; the file records {recorded!r}"
    return text
